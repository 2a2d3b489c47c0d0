import type { WorkflowInputs } from '../../../lib/schemas';
import { readSubmitInput } from '../../../lib/submit-input-read';

/** Declared inputs of the workflows seen in this editor session, by workflow id. */
export const knownInputs: Record<string, WorkflowInputs> = {};

/** The Inputs JSON as plain maps: {variables: {Name: value}, ..., labels: {id: {Param: value}}}. */
export interface FormValues {
  variables: Record<string, unknown>;
  media_nicknames: Record<string, unknown>;
  attachments: Record<string, unknown>;
  labels: Record<string, Record<string, unknown>>;
}

/** The Inputs JSON (short or full form), read by the library as the node reads it, as form values. */
export function formValues(json: string): FormValues {
  const out: FormValues = { variables: {}, media_nicknames: {}, attachments: {}, labels: {} };
  let parsed: unknown;
  try {
    parsed = JSON.parse(json || '{}');
  } catch {
    return out;
  }
  const { inputs } = readSubmitInput(parsed);
  for (const v of inputs.variables) out.variables[v.name] = v.value;
  for (const n of inputs.media_nicknames) out.media_nicknames[n.identifier] = n.files?.[0];
  for (const a of inputs.attachments) out.attachments[a.identifier] = a.file;
  for (const l of inputs.labels) {
    out.labels[l.identifier] = Object.fromEntries((l.parameters ?? []).map((p) => [p.name, p.value]));
  }
  return out;
}

/** The first rule a JSON submission breaks against a workflow's declared inputs, as the node would report it. */
export function firstInputProblem(json: string, declared: WorkflowInputs): string | null {
  let parsed: unknown;
  try {
    parsed = JSON.parse(json);
  } catch {
    return null;
  }
  const [first] = Object.entries(readSubmitInput(parsed, declared).errors);
  return first ? `${first[0]}: ${first[1]}` : null;
}

/** A short-form skeleton of a workflow's declared inputs, with defaults filled in. */
export function skeleton(inputs: WorkflowInputs): Record<string, Record<string, unknown>> {
  const out: Record<string, Record<string, unknown>> = {};
  const put = (kind: string, key: string, value: unknown) => {
    out[kind] ??= {};
    out[kind][key] = value;
  };
  for (const v of inputs.variables ?? []) put('variables', v.name, v.default ?? '');
  for (const n of inputs.media_nicknames ?? []) put('media_nicknames', n.identifier ?? '', n.files?.[0] ?? '');
  for (const a of inputs.attachments ?? []) put('attachments', a.identifier ?? '', a.file ?? '');
  for (const l of inputs.labels ?? []) {
    put(
      'labels',
      l.identifier ?? '',
      Object.fromEntries((l.parameters ?? []).map((p) => [p.name, p.default_value ?? ''])),
    );
  }
  return out;
}

/** One input of the short form, by where it sits: [kind, key] or, for a label parameter, [kind, label, parameter]. */
type InputPath = [string, string] | [string, string, string];

function flatten(values: FormValues | Record<string, Record<string, unknown>>): Map<string, [InputPath, unknown]> {
  const out = new Map<string, [InputPath, unknown]>();
  for (const [kind, entries] of Object.entries(values)) {
    for (const [key, value] of Object.entries(entries ?? {})) {
      if (kind === 'labels' && typeof value === 'object' && value !== null) {
        for (const [param, v] of Object.entries(value)) out.set(`${key}: ${param}`, [[kind, key, param], v]);
      } else {
        out.set(key, [[kind, key], value]);
      }
    }
  }
  return out;
}

const typed = (v: unknown) => v !== undefined && v !== null && v !== '';

/** What "Fill inputs from the workflow" does with what the user typed. */
export interface InputsMerge {
  /** the user's values for inputs the workflow declares, the workflow's defaults for the others (short form) */
  merged: Record<string, Record<string, unknown>>;
  /** the workflow's defaults only */
  defaults: Record<string, Record<string, unknown>>;
  /** inputs whose typed value differs from the workflow's default (a merge keeps them, a reset loses them) */
  differing: string[];
  /** typed inputs the workflow does not declare (both lose them) */
  undeclared: string[];
  /** how many declared inputs the merge adds with their defaults */
  added: number;
}

/** Merges the typed Inputs JSON with a workflow's declared inputs, keeping what the user typed. */
export function mergeInputs(json: string, declared: WorkflowInputs): InputsMerge {
  const defaults = skeleton(declared);
  const current = flatten(formValues(json));
  const merged: Record<string, Record<string, unknown>> = {};
  const differing: string[] = [];
  let added = 0;
  for (const [name, [path, fallback]] of flatten(defaults)) {
    const mine = current.get(name)?.[1];
    const value = typed(mine) ? mine : fallback;
    if (!typed(mine)) added++;
    else if (String(mine) !== String(fallback ?? '')) differing.push(name);
    const [kind, key, param] = path;
    merged[kind] ??= {};
    if (param === undefined) merged[kind][key] = value;
    else merged[kind][key] = { ...(merged[kind][key] as Record<string, unknown> | undefined), [param]: value };
  }
  const declaredNames = new Set(flatten(defaults).keys());
  const undeclared = [...current].filter(([name, [, v]]) => typed(v) && !declaredNames.has(name)).map(([n]) => n);
  return { merged, defaults, differing, undeclared, added };
}

import type { WorkflowInputs } from '../../../lib/schemas';
import { isRequiredProblem, settingsInputProblems } from '../../../lib/submit-input-check';
import { readSubmitInput } from '../../../lib/submit-input-read';

/** Declared inputs of the workflows seen in this editor session, by workflow id. */
export const knownInputs: Record<string, WorkflowInputs> = {};

/** The Inputs JSON as plain maps: {variables: {Name: value}, ..., labels: {id: {Param: value}}}. */
interface FormValues {
  variables: Record<string, unknown>;
  media_nicknames: Record<string, unknown>;
  attachments: Record<string, unknown>;
  labels: Record<string, Record<string, unknown>>;
}

/** The Inputs JSON (short or full form), read by the library as the node reads it, as form values. */
function formValues(json: string): FormValues {
  try {
    return formValuesOf(JSON.parse(json || '{}'));
  } catch {
    return formValuesOf({});
  }
}

/** Inputs (short or full form, parsed), read by the library as the node reads them, as form values. */
export function formValuesOf(parsed: unknown): FormValues {
  const out: FormValues = { variables: {}, media_nicknames: {}, attachments: {}, labels: {} };
  const { inputs } = readSubmitInput(parsed);
  for (const v of inputs.variables) out.variables[v.name] = v.value;
  for (const n of inputs.media_nicknames) out.media_nicknames[n.identifier] = n.files?.[0];
  for (const a of inputs.attachments) out.attachments[a.identifier] = a.file;
  for (const l of inputs.labels) {
    out.labels[l.identifier] = Object.fromEntries((l.parameters ?? []).map((p) => [p.name, p.value]));
  }
  return out;
}

/**
 * The first rule the node's JSON Inputs break against a workflow's declared inputs, as the runtime
 * reports it when the message adds nothing (the library's own check: a wrong value, a required
 * input left out). Empty Inputs are checked too: a workflow may need inputs that have no default.
 */
export function firstInputProblem(json: string, declared: WorkflowInputs, fromMessage = false): string | null {
  let parsed: unknown;
  try {
    parsed = json.trim() === '' ? {} : JSON.parse(json);
  } catch {
    return null;
  }
  // a schedule's follow-up gives inputs in the message: one the node leaves out is not missing
  const [first] = Object.entries(settingsInputProblems(parsed, declared)).filter(
    ([, problem]) => !(fromMessage && isRequiredProblem(problem)),
  );
  return first ? `${first[0]}: ${first[1]}` : null;
}

/**
 * A short-form skeleton of a workflow's declared inputs with their defaults. An input without a
 * default is left out, not written as "": the node then says it is required, where "" would be a
 * wrong value the user never typed.
 */
function skeleton(inputs: WorkflowInputs): Record<string, Record<string, unknown>> {
  const out: Record<string, Record<string, unknown>> = {};
  const put = (kind: string, key: string, value: unknown) => {
    if (value === undefined || value === null || value === '') return;
    out[kind] ??= {};
    out[kind][key] = value;
  };
  for (const v of inputs.variables ?? []) put('variables', v.name, v.default);
  for (const n of inputs.media_nicknames ?? []) put('media_nicknames', n.identifier ?? '', n.files?.[0]);
  for (const a of inputs.attachments ?? []) put('attachments', a.identifier ?? '', a.file);
  for (const l of inputs.labels ?? []) {
    const given = (l.parameters ?? []).filter((p) => p.default_value !== undefined && p.default_value !== null);
    // the label itself is always written: the node requires every declared label
    out.labels ??= {};
    out.labels[l.identifier ?? ''] = Object.fromEntries(given.map((p) => [p.name, p.default_value]));
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

/** Every declared input by its name in the merge's lists, where it sits, and its default (undefined: none). */
function declaredInputs(declared: WorkflowInputs): Map<string, [InputPath, unknown]> {
  const out = new Map<string, [InputPath, unknown]>();
  for (const v of declared.variables ?? []) out.set(v.name, [['variables', v.name], v.default]);
  for (const n of declared.media_nicknames ?? []) {
    out.set(n.identifier ?? '', [['media_nicknames', n.identifier ?? ''], n.files?.[0]]);
  }
  for (const a of declared.attachments ?? [])
    out.set(a.identifier ?? '', [['attachments', a.identifier ?? ''], a.file]);
  for (const l of declared.labels ?? []) {
    const id = l.identifier ?? '';
    for (const p of l.parameters ?? []) out.set(`${id}: ${p.name}`, [['labels', id, p.name], p.default_value]);
  }
  return out;
}

/**
 * Merges the typed Inputs JSON with a workflow's declared inputs, keeping what the user typed; an
 * input neither typed nor defaulted stays out (the node names it as required).
 */
export function mergeInputs(json: string, declared: WorkflowInputs): InputsMerge {
  const defaults = skeleton(declared);
  const current = flatten(formValues(json));
  const merged: Record<string, Record<string, unknown>> = {};
  for (const l of declared.labels ?? []) {
    merged.labels ??= {};
    merged.labels[l.identifier ?? ''] = {};
  }
  const differing: string[] = [];
  let added = 0;
  const all = declaredInputs(declared);
  for (const [name, [path, fallback]] of all) {
    const mine = current.get(name)?.[1];
    const value = typed(mine) ? mine : fallback;
    if (!typed(value)) continue;
    if (!typed(mine)) added++;
    else if (String(mine) !== String(fallback ?? '')) differing.push(name);
    const [kind, key, param] = path;
    merged[kind] ??= {};
    if (param === undefined) merged[kind][key] = value;
    else merged[kind][key] = { ...(merged[kind][key] as Record<string, unknown> | undefined), [param]: value };
  }
  const undeclared = [...current].filter(([name, [, v]]) => typed(v) && !all.has(name)).map(([n]) => n);
  return { merged, defaults, differing, undeclared, added };
}

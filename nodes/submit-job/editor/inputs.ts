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

import type { WorkflowInputs } from './schemas';
import { checkRequired, type FieldErrors, readSubmitInput } from './submit-input-read';

/**
 * The node's verdict on the Inputs of its settings against a workflow's declared inputs: what
 * `submitJob` refuses when the message adds nothing (the palette's inject sends a timestamp),
 * by field (`variables.Name`, `labels.id.parameters.Name`). The editor marks the node and the
 * form's fields with exactly this, so the editor and the runtime never disagree.
 */
export function settingsInputProblems(value: unknown, declared: WorkflowInputs): FieldErrors {
  const { inputs, errors } = readSubmitInput(value ?? {}, declared);
  checkRequired(inputs, declared, errors);
  return errors;
}

/** The field keys of `settingsInputProblems` for one declared input. */
export const inputKey = {
  variable: (name: string) => `variables.${name}`,
  nickname: (identifier: string) => `media_nicknames.${identifier}`,
  attachment: (identifier: string) => `attachments.${identifier}`,
  label: (identifier: string) => `labels.${identifier}`,
  parameter: (identifier: string, name: string) => `labels.${identifier}.parameters.${name}`,
};

/**
 * The inputs a submission must give because the workflow has no default for them, by field key:
 * what `settingsInputProblems` reports as required when nothing is given (labels present but empty,
 * so that each parameter without a default is named).
 */
export function requiredInputs(declared: WorkflowInputs): Set<string> {
  const emptyLabels = Object.fromEntries((declared.labels ?? []).map((l) => [l.identifier ?? '', {}]));
  const problems = settingsInputProblems({ labels: emptyLabels }, declared);
  return new Set(Object.keys(problems).filter((key) => isRequiredProblem(problems[key] ?? '')));
}

/** Whether a problem of `settingsInputProblems` is an input left out (rather than a wrong value). */
export function isRequiredProblem(problem: string): boolean {
  return /is required/.test(problem);
}

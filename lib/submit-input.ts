import { listFieldErrors, MediaSpacesError } from './errors';
import { isPlainObject } from './guards';
import { isPlainSubmission } from './plain-submission';
import { INPUT_KINDS } from './rules';
import type { SubmitJobRequest, WorkflowInputs } from './schemas';
import { schemas } from './schemas-lazy';
import {
  checkRequired,
  checkValues,
  emptyInputs,
  type FieldErrors,
  type Inputs,
  mergeBy,
  readInputs,
} from './submit-input-read';

export { describeType, type ShortSubmitInput, type SubmitInput } from './submit-input-read';

/**
 * Turns any accepted form into the description's request, merging `base`
 * (the node's settings) under `override` (the message), checking every value
 * against its typecode. Throws one MediaSpacesError naming every bad field.
 */
export function buildSubmitRequest(
  override: unknown,
  options: {
    base?: unknown;
    declared?: WorkflowInputs;
    jobName?: string;
    /** With `declared`: refuse a request that leaves out a required input (submitJob sets it). */
    requireDeclared?: boolean;
  } = {},
): SubmitJobRequest {
  // prototype-free: payload keys such as "__proto__" or "constructor" are reported like any unknown field
  const errors: FieldErrors = Object.create(null);
  const base =
    options.base === undefined ? emptyInputs() : readInputs(options.base, 'settings', errors, options.declared);
  const top = readInputs(override ?? {}, 'payload', errors, options.declared);
  const merged: Inputs = {
    variables: mergeBy(base.variables, top.variables, (v) => v.name),
    media_nicknames: mergeBy(base.media_nicknames, top.media_nicknames, (v) => v.identifier),
    attachments: mergeBy(base.attachments, top.attachments, (v) => v.identifier),
    labels: mergeBy(base.labels, top.labels, (v) => v.identifier),
  };
  checkValues(merged, errors);
  if (options.declared && options.requireDeclared) checkRequired(merged, options.declared, errors);

  const jobName = options.jobName ?? (isPlainObject(override) ? override.job_name : undefined);
  const input: Record<string, unknown> = {};
  for (const key of INPUT_KINDS) {
    if (merged[key].length > 0) input[key] = merged[key];
  }
  const request: Record<string, unknown> = {};
  if (jobName !== undefined && jobName !== '') request.job_name = jobName;
  if (Object.keys(input).length > 0) request.usage = { input };

  let checked = request as SubmitJobRequest;
  if (!isPlainSubmission(request)) {
    const { describeIssues, SubmitJobRequest } = schemas();
    const parsed = SubmitJobRequest.safeParse(request);
    if (parsed.success) checked = parsed.data;
    else Object.assign(errors, describeIssues(parsed.error));
  }
  if (Object.keys(errors).length > 0) {
    // the field comes first so that a truncated message in the debug sidebar still names it
    throw MediaSpacesError.invalidInput(`${listFieldErrors(errors)} (job not submitted)`, errors);
  }
  return checked;
}

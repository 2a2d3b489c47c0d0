import type { SubmitJobRequest } from '../schemas';
import { checkParameter, checkTypecode } from '../typecodes';
import type { WorkflowRecord } from './state';

type Input = NonNullable<NonNullable<SubmitJobRequest['usage']>['input']>;

/**
 * Checks a submission's inputs against what the workflow declares and returns
 * the 422 field map (empty when the inputs are acceptable). Keys name the
 * input: `variables.Name`, `media_nicknames.ident`, `attachments.ident`,
 * `labels.ident`, `labels.ident.parameters.Name`.
 *
 * Values are checked against the declared typecode: name and typecode are
 * read-only in the description, so the workflow, not the submitter, is the
 * authority on what a value must look like.
 */
export function checkInputs(workflow: WorkflowRecord, input: Input | undefined): Record<string, string> {
  const errors: Record<string, string> = {};
  const name = JSON.stringify(workflow.def.name);

  const variables = new Set<string>();
  for (const v of input?.variables ?? []) {
    const key = `variables.${v.name}`;
    const declared = workflow.variables.get(v.name);
    if (!declared) {
      errors[key] = `is not a variable of workflow ${name}${listOf(workflow.variables.keys())}`;
      continue;
    }
    if (variables.has(v.name)) {
      errors[key] = 'is supplied more than once';
      continue;
    }
    variables.add(v.name);
    const value = v.value ?? v.default ?? declared.default;
    if (value === undefined) errors[key] = `needs a value (${declared.typecode}); it has no default`;
    else {
      const problem = checkTypecode(declared.typecode, value);
      if (problem) errors[key] = problem;
    }
  }
  for (const declared of workflow.variables.values()) {
    if (!variables.has(declared.name) && declared.default === undefined) {
      errors[`variables.${declared.name}`] = `is required (${declared.typecode}) and has no default`;
    }
  }

  const nicknames = new Set<string>();
  for (const n of input?.media_nicknames ?? []) {
    const key = `media_nicknames.${n.identifier}`;
    if (!workflow.nicknames.has(n.identifier)) {
      errors[key] = `is not a media nickname of workflow ${name}${listOf(workflow.nicknames.keys())}`;
    } else if (nicknames.has(n.identifier)) errors[key] = 'is supplied more than once';
    else if (!(n.files && n.files.length > 0) && n.data === undefined) {
      errors[key] = 'needs files (the first is the root file) or data';
    } else if (n.files?.some((f) => f.trim() === '')) {
      errors[key] = 'has an empty file name';
    }
    nicknames.add(n.identifier);
  }
  for (const id of workflow.nicknames.keys()) {
    if (!nicknames.has(id)) errors[`media_nicknames.${id}`] = 'is required: supply it with files or data';
  }

  const attachments = new Set<string>();
  for (const a of input?.attachments ?? []) {
    const key = `attachments.${a.identifier}`;
    if (!workflow.attachments.has(a.identifier)) {
      errors[key] = `is not an attachment of workflow ${name}${listOf(workflow.attachments.keys())}`;
    } else if (attachments.has(a.identifier)) errors[key] = 'is supplied more than once';
    else if (!a.file?.trim()) errors[key] = 'needs a file';
    attachments.add(a.identifier);
  }
  for (const id of workflow.attachments.keys()) {
    if (!attachments.has(id)) errors[`attachments.${id}`] = 'is required: supply it with a file';
  }

  const labels = new Set<string>();
  for (const l of input?.labels ?? []) {
    const key = `labels.${l.identifier}`;
    const declared = workflow.labels.get(l.identifier);
    if (!declared) {
      errors[key] = `is not a label of workflow ${name}${listOf(workflow.labels.keys())}`;
      continue;
    }
    if (labels.has(l.identifier)) {
      errors[key] = 'is supplied more than once';
      continue;
    }
    labels.add(l.identifier);
    const given = new Set<string>();
    for (const p of l.parameters ?? []) {
      const pkey = `${key}.parameters.${p.name}`;
      const param = declared.parameters.get(p.name);
      if (!param) {
        errors[pkey] = `is not a parameter of label ${l.identifier}${listOf(declared.parameters.keys())}`;
        continue;
      }
      if (given.has(p.name)) {
        errors[pkey] = 'is supplied more than once';
        continue;
      }
      given.add(p.name);
      const value = p.value ?? p.default_value ?? param.default_value;
      if (value === undefined) errors[pkey] = `needs a value (${param.typecode}); it has no default`;
      else {
        const problem = checkParameter(param, value);
        if (problem) errors[pkey] = problem;
      }
    }
    for (const param of declared.parameters.values()) {
      if (!given.has(param.name) && param.default_value === undefined) {
        errors[`${key}.parameters.${param.name}`] = `is required (${param.typecode}) and has no default`;
      }
    }
  }
  for (const id of workflow.labels.keys()) {
    if (!labels.has(id)) errors[`labels.${id}`] = 'is required: supply the label with its parameters';
  }
  return errors;
}

function listOf(names: Iterable<string>): string {
  const all = [...names];
  return all.length === 0 ? ' (it declares none)' : ` (declared: ${all.join(', ')})`;
}

import { randomUUID } from 'node:crypto';
import { isPlainSubmission } from '../plain-submission';
import { describeIssues, SubmitJobRequest, UUID_PATTERN } from '../schemas';
import { checkInputs } from './job-inputs';
import { jobView } from './jobs';
import type { OperationContext } from './operation';
import { fail, ok, quote, type Reply } from './reply';
import { isoTime } from './timespan';
import { findWorkflow } from './workflow-routes';

/**
 * POST /{space_id}/workflows/{workflow_id}/jobs. Checks run from the path
 * inwards: workflow_id (400), workflow (404), JSON (400), active status
 * (422), body schema (422), then the inputs against the declaration (422).
 */
export function submitJob(c: OperationContext): Reply {
  const found = findWorkflow(c, c.params[1]);
  if ('status' in found) return found;
  const { workflow } = found;

  const body = c.json();
  if (!body.ok) return fail(400, body.reason);

  if (workflow.def.status !== 'active') {
    return fail(422, `workflow is ${workflow.def.status}`, {
      workflow_id: `workflow ${JSON.stringify(workflow.def.name)} is ${workflow.def.status}; jobs can be submitted only to active workflows`,
    });
  }
  const request = isPlainSubmission(body.value)
    ? { success: true as const, data: body.value }
    : SubmitJobRequest.safeParse(body.value);
  if (!request.success) {
    const fields = describeIssues(request.error);
    if ('(value)' in fields) {
      fields.body = fields['(value)'];
      delete fields['(value)'];
    }
    return fail(422, 'the request body is not a submit-job request', fields);
  }
  const inputErrors = checkInputs(workflow, request.data.usage?.input);
  if (Object.keys(inputErrors).length > 0) return fail(422, 'invalid inputs', inputErrors);

  const job = {
    id: randomUUID(),
    name: request.data.job_name ?? `${workflow.def.name} ${isoTime(c.now)}`,
    workflow,
    createdAt: c.now,
    input: request.data.usage?.input,
  };
  c.space.jobs.set(job.id, job);
  return ok(200, jobView(job, c.now));
}

/** GET /{space_id}/workflows/{workflow_id}/jobs/{job_id} (extension, for polling). */
export function getJob(c: OperationContext): Reply {
  const [, workflowId, jobId] = c.params;
  for (const [name, value] of [
    ['workflow_id', workflowId],
    ['job_id', jobId],
  ]) {
    if (!UUID_PATTERN.test(value))
      return fail(400, `${name} must be a GUID (8-4-4-4-12 hex digits), got ${quote(value)}`);
  }
  const found = findWorkflow(c, workflowId);
  if ('status' in found) return found;
  const job = c.space.jobs.get(jobId.toLowerCase());
  if (!job || job.workflow !== found.workflow) {
    return fail(404, `job ${jobId} not found for workflow ${found.workflow.def.id}`);
  }
  return ok(200, jobView(job, c.now));
}

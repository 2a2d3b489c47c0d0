import { idSegment, uuidSegment } from '../../lib/client';
import { MediaSpacesError } from '../../lib/errors';
import { isPlainObject } from '../../lib/guards';
import type { WorkflowJob } from '../../lib/schemas';
import { WatchError } from '../../lib/watch';
import { given, textValue } from '../shared/message-fields';
import type { NodeMessage } from '../shared/node-red-types';

/** The job an input asks to follow, and what the input already tells of it. */
export interface JobRef {
  jobId: string;
  workflowId: string;
  known?: Partial<WorkflowJob>;
}

/** The job to follow: msg.job_id / msg.workflow_id, else msg.payload.id / msg.payload.workflow_id. */
export function jobRef(msg: NodeMessage): JobRef {
  const payload = isPlainObject(msg.payload) ? msg.payload : undefined;
  const rawJobId = given(msg, 'job_id') ? msg.job_id : payload?.id;
  const rawWorkflowId = given(msg, 'workflow_id') ? msg.workflow_id : payload?.workflow_id;
  if (rawJobId === undefined) {
    throw MediaSpacesError.invalidInput(
      'No job to follow: set msg.job_id, or send the job (msg.payload with id and workflow_id, as media-spaces-submit-job outputs it)',
      { job_id: 'is required' },
    );
  }
  if (rawWorkflowId === undefined) {
    throw MediaSpacesError.invalidInput('No workflow for the job: set msg.workflow_id or msg.payload.workflow_id', {
      workflow_id: 'is required',
    });
  }
  const source = given(msg, 'job_id') ? 'msg.job_id' : 'msg.payload.id';
  const jobId = textValue(source, rawJobId);
  idSegment(jobId, 'job_id');
  const workflowId = uuidSegment(rawWorkflowId, 'workflow_id');
  // the payload is the job itself only when its id is this job's (text or number; anything else is not an id)
  const payloadId = payload?.id;
  const sameJob = (typeof payloadId === 'string' || typeof payloadId === 'number') && String(payloadId) === jobId;
  return { jobId, workflowId, known: sameJob ? (payload as Partial<WorkflowJob>) : undefined };
}

/** The job's read onto a message: payload, ids, state and progress. */
export function describeJob(msg: NodeMessage, job: WorkflowJob, workflowId: string): void {
  msg.payload = job;
  msg.job_id = job.id;
  msg.workflow_id = job.workflow_id ?? workflowId;
  msg.state = job.state;
  if (job.progress === undefined) delete msg.progress;
  else msg.progress = job.progress;
}

/** The error of a job that ended failed or stopped. */
export function jobFailure(job: WorkflowJob, workflowId: string): WatchError {
  const state = String(job.state ?? '').toLowerCase();
  return new WatchError({
    code: state === 'stopped' ? 'job_stopped' : 'job_failed',
    message: `Job ${job.name ? `"${job.name}" (${job.id})` : job.id} ended in state ${job.state}`,
    details: { state: job.state, jobId: job.id, workflowId: job.workflow_id ?? workflowId },
  });
}

import { idSegment, uuidSegment } from '../../lib/client';
import { MediaSpacesError } from '../../lib/errors';
import { isPlainObject } from '../../lib/guards';
import type { WorkflowJob } from '../../lib/schemas';
import { WatchError } from '../../lib/watch';
import type { NodeMessage } from '../shared/node-red-types';

/** The job an input asks to follow, and what the input already tells of it. */
export interface JobRef {
  jobId: string;
  workflowId: string;
  known?: Partial<WorkflowJob>;
}

/** The job's ids as the node's input map resolves them: msg.payload.id / msg.payload.workflow_id, else msg.job_id / msg.workflow_id. */
interface JobInputs {
  jobId?: string;
  workflowId?: unknown;
}

/** The job to follow, and the job itself when msg.payload is that job. */
export function jobRef(msg: NodeMessage, inputs: JobInputs): JobRef {
  const { jobId, workflowId: rawWorkflowId } = inputs;
  if (jobId === undefined) {
    throw MediaSpacesError.invalidInput(
      'No job to follow: send the job (msg.payload with id and workflow_id, as media-spaces-submit-job outputs it), or set msg.job_id',
      { job_id: 'is required' },
    );
  }
  if (rawWorkflowId === undefined) {
    throw MediaSpacesError.invalidInput('No workflow for the job: set msg.payload.workflow_id or msg.workflow_id', {
      workflow_id: 'is required',
    });
  }
  idSegment(jobId, 'job_id');
  const workflowId = uuidSegment(rawWorkflowId, 'workflow_id');
  // the payload is the job itself only when its id is this job's (text or number; anything else is not an id)
  const payload = isPlainObject(msg.payload) ? msg.payload : undefined;
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

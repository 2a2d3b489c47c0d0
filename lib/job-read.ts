import { isPlainObject } from './guards';
import type { WorkflowJob } from './schemas';
import { schemas } from './schemas-lazy';

/** The WorkflowJob fields the schema reads as optional text (besides the required id). */
const OPTIONAL_TEXT = ['name', 'workflow_id', 'workflow_name', 'state', 'workflow_version', 'created_at', 'updated_at'];

/**
 * A job as `WorkflowJob.parse` reads it. Every submission and every poll of
 * a followed job reads one, so a job in the usual form (text where the
 * schema wants text, a number for progress, nothing wrapped) is checked by
 * hand and kept as it is, which is what the schema would return; anything
 * else goes through the schema, which unwraps or names the problem exactly
 * as before.
 */
export function readJob(body: unknown): WorkflowJob {
  if (isPlainObject(body) && typeof body.id === 'string' && usual(body)) return body as WorkflowJob;
  return schemas().WorkflowJob.parse(body);
}

function usual(job: Record<string, unknown>): boolean {
  for (const field of OPTIONAL_TEXT) {
    const value = job[field];
    if (value !== undefined && typeof value !== 'string') return false;
  }
  const progress = job.progress;
  if (progress !== undefined && typeof progress !== 'number') return false;
  const elapsed = job.elapsed_time;
  return elapsed === undefined || elapsed === null || typeof elapsed === 'string';
}

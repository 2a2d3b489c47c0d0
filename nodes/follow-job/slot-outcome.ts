import { isPlainObject } from '../../lib/guards';
import { jobElapsedSeconds } from '../../lib/job-elapsed';
import { type SlotJobOutcome, slotJobs } from '../../lib/schedule/slot-events';
import type { WorkflowJob } from '../../lib/schemas';
import type { NodeMessage } from '../shared/node-red-types';

/**
 * The slot a followed job belongs to: msg.slot, else msg.window.slotKey,
 * which a schedule's end message carries (and submit-job passes on).
 */
function slotOf(msg: NodeMessage): string | undefined {
  if (typeof msg.slot === 'string' && msg.slot !== '') return msg.slot;
  const key = isPlainObject(msg.window) ? msg.window.slotKey : undefined;
  return typeof key === 'string' && key !== '' ? key : undefined;
}

/** Tells the slot's as-run record and the metrics how its follow-up job ended (media-spaces:slot-job). */
export function reportSlotJob(msg: NodeMessage, job: WorkflowJob, workflowId: string): void {
  if (!slotJobs.hasSubscribers) return;
  const slot = slotOf(msg);
  if (slot === undefined) return;
  const elapsed = jobElapsedSeconds(job);
  const outcome: SlotJobOutcome = {
    slot,
    job: {
      id: String(job.id),
      state: String(job.state ?? 'unknown').toLowerCase(),
      workflowId: job.workflow_id ?? workflowId,
      ...(elapsed !== undefined ? { elapsed } : {}),
    },
  };
  slotJobs.publish(outcome);
}

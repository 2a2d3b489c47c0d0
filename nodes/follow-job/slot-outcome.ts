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

/**
 * Tells the slot how its follow-up job ended: the sidebar's view of the slot
 * (`toSidebar`), and its as-run record and the metrics (media-spaces:slot-job).
 */
export function reportSlotJob(
  msg: NodeMessage,
  job: WorkflowJob,
  workflowId: string,
  toSidebar: (slot: string, job: { id: string; state: string }) => void,
): void {
  const slot = slotOf(msg);
  if (slot === undefined) return;
  const id = String(job.id);
  const state = String(job.state ?? 'unknown').toLowerCase();
  toSidebar(slot, { id, state });
  if (!slotJobs.hasSubscribers) return;
  const elapsed = jobElapsedSeconds(job);
  const outcome: SlotJobOutcome = {
    slot,
    job: { id, state, workflowId: job.workflow_id ?? workflowId, ...(elapsed !== undefined ? { elapsed } : {}) },
  };
  slotJobs.publish(outcome);
}

import { z } from 'zod';
import { WORKFLOW_STATUSES } from '../../lib/rules';
import { POLL_LABELS, pollTimingFields } from '../shared/poll-settings-old';

/** The watch-workflows node's settings, as the editor stores them. */
export const watchWorkflowsSettings = z.object({
  ...pollTimingFields,
  /** Only workflows with this status; blank: all. */
  statusFilter: z.preprocess((v) => (v === '' || v === null ? undefined : v), z.enum(WORKFLOW_STATUSES).optional()),
  /** The first poll's workflows sent as added (the checkbox stores a boolean; imported flows may hold text). */
  emitInitial: z.preprocess((v) => v === true || v === 'true', z.boolean()),
});
export type WatchWorkflowsSettings = z.infer<typeof watchWorkflowsSettings>;

export const WATCH_WORKFLOWS_LABELS = {
  ...POLL_LABELS,
  statusFilter: 'Status',
  emitInitial: 'Send every workflow of the first poll as added',
};

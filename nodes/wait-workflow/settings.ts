import { z } from 'zod';
import { POLL_LABELS, pollTimingFields, wholeSetting } from '../shared/poll-settings-old';

/** The wait-workflow node's settings, as the editor stores them. */
export const waitWorkflowSettings = z.object({
  ...pollTimingFields,
  /** Give up after this many ms; unset: 10 minutes; 0: never. */
  timeout: wholeSetting(0),
  /** The workflow's id or name when the message names none. */
  workflow: z.string().trim().default(''),
});
export type WaitWorkflowSettings = z.infer<typeof waitWorkflowSettings>;

export const WAIT_WORKFLOW_LABELS = { ...POLL_LABELS, workflow: 'Workflow' };

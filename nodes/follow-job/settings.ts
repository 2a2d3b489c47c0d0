import { z } from 'zod';
import { POLL_LABELS, pollTimingFields, wholeSetting } from '../shared/poll-settings-old';

/** The follow-job node's settings, as the editor stores them. */
export const followJobSettings = z.object({
  ...pollTimingFields,
  /** Requests in flight at most, over every followed job; unset: 8. */
  concurrency: wholeSetting(1),
  /** Give up on a job after this many ms; unset or 0: never. */
  timeout: wholeSetting(0),
  /** The media-spaces-coordination node's id; empty: this instance alone. */
  coordination: z.string().catch('').optional(),
});
export type FollowJobSettings = z.infer<typeof followJobSettings>;

export const FOLLOW_JOB_LABELS = { ...POLL_LABELS, concurrency: 'Concurrency' };

import type { SlotPhase } from './slot-events';
import { FINAL_PHASES } from './slot-machine';

/**
 * Where one slot is in its life, as the schedule owns it:
 * starting (attempt n, then its channel until the service says it records) ->
 * recording -> stopping -> finished (follow-up submitted; recorded, overran or
 * partial, said in its note), or missed (nothing recorded: the start never
 * succeeded), skipped (paused, or skipped on request) or cancelled (taken out
 * of the plan): the words of lib/schedule/slot-outcome. Upcoming slots are not
 * reported: the tab plans them from the windows.
 */
export type SlotStage = 'starting' | 'recording' | 'stopping' | 'finished' | 'missed' | 'skipped' | 'cancelled';

/** The sidebar's stage for each phase of a slot (lib/schedule/slot-machine). */
export const STAGE_OF_PHASE: Readonly<Record<SlotPhase, SlotStage>> = {
  planned: 'starting',
  starting: 'starting',
  recording: 'recording',
  interrupted: 'starting',
  stopping: 'stopping',
  finishing: 'stopping',
  finished: 'finished',
  partial: 'finished',
  missed: 'missed',
  skipped: 'skipped',
  cancelled: 'cancelled',
};

/** The stages after which nothing more happens to a slot: those of the final phases. */
export const FINAL_STAGES: readonly SlotStage[] = [...new Set(FINAL_PHASES.map((p) => STAGE_OF_PHASE[p]))];

/** What the schedule says of a slot besides its stage. */
export interface SlotLife {
  stage: SlotStage;
  /** starting: the attempt under way (2 and more after failures) */
  attempt?: number;
  /**
   * one sentence: the last failed attempt (starting), why nothing was recorded
   * (missed, skipped), or what the follow-up went with (finished)
   */
  note?: string;
  /** how late the recording started (ms), when it started a second or more after the slot */
  lateMs?: number;
  /** finished: when the follow-up was sent (epoch ms) */
  followupAt?: number;
}

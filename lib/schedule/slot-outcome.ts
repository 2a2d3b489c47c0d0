import type { SlotTransition } from './slot-events';

/**
 * The words for how a slot ended, each with one meaning wherever a slot is
 * told of (the sidebar, the as-run log, the metrics, the reports, the docs):
 *
 * - `recorded`: the recording ran its window (started on time or late, the
 *   lateness is told beside it) and ended by its scheduled end.
 * - `overran`: recorded, but the recording ended more than OVERRUN_AFTER_S
 *   past the scheduled end by the service's clock (a stop refused, say).
 * - `partial`: the recording was interrupted and the window has gaps.
 * - `missed`: nothing was recorded, and nobody chose it (the start failed,
 *   the instance was down, Redis could not be used).
 * - `skipped`: nothing was recorded because an operator chose it (skip, pause), or the windows' priorities
 *   gave its channel to others (a conflict lost over max_channels).
 * - `cancelled`: the occurrence was taken out of the plan (its calendar event
 *   or guide entry cancelled) before it started.
 */
export type SlotOutcome = 'recorded' | 'overran' | 'partial' | 'missed' | 'skipped' | 'cancelled';
export const SLOT_OUTCOMES: readonly SlotOutcome[] = [
  'recorded',
  'overran',
  'partial',
  'missed',
  'skipped',
  'cancelled',
];

// "final" is defined once, by the transition table: a phase no transition leaves
export { FINAL_PHASES, isFinalPhase } from './slot-machine';

/**
 * A recording that began this long or longer after its padded start began late (seconds, by the service's
 * clock). Below it, the channel's own warm-up (a few seconds from creation to RECORDING) counts as on time:
 * the lateness is still measured and exported, only not called late.
 */
export const LATE_AFTER_S = 3;

/** A recording that ended more than this long past its scheduled (padded) end overran it (seconds). */
export const OVERRUN_AFTER_S = 5;

/** Whether a start this many seconds after the padded start is late. */
export function isLate(lateBySeconds: number | undefined): boolean {
  return lateBySeconds !== undefined && lateBySeconds >= LATE_AFTER_S;
}

/** Seconds the recording ran past its scheduled end (0 when it ended by it), to the tenth. */
export function endLatenessSeconds(scheduledEndMs: number, endedAtMs: number): number {
  return Math.max(0, Math.round((endedAtMs - scheduledEndMs) / 100) / 10);
}

/** Whether a recording that ended this many seconds past its scheduled end overran it. */
export function isOverrun(endLateBySeconds: number | undefined): boolean {
  return endLateBySeconds !== undefined && endLateBySeconds > OVERRUN_AFTER_S;
}

/** How a slot ended, from its final transition; undefined while it has not ended. */
export function outcomeOf(t: Pick<SlotTransition, 'to' | 'overrun'>): SlotOutcome | undefined {
  switch (t.to) {
    case 'finished':
      return t.overrun ? 'overran' : 'recorded';
    case 'partial':
    case 'missed':
    case 'skipped':
    case 'cancelled':
      return t.to;
    default:
      return undefined;
  }
}

/** "overran by 15 s: stop refused 503 ×14", "overran by 8 s". */
export function overrunSentence(overrun: { by: number; why?: string }): string {
  return `overran by ${Math.round(overrun.by)} s${overrun.why ? `: ${overrun.why}` : ''}`;
}

/** "started 7 s late". */
export function lateSentence(lateBySeconds: number): string {
  return `started ${Math.round(lateBySeconds)} s late`;
}

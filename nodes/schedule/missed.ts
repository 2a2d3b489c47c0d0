import type { ScheduleWindow, Slot } from '../../lib/schedule';
import { isoSeconds, occurrenceName, windowInfo } from '../../lib/schedule';

/**
 * Why a window recorded nothing:
 * - start_failed: create-channel tried until the window's end and gave up;
 * - not_started: no channel came back and no instance started the slot;
 * - coordination: Redis could not be used until past the end (policy skip);
 * - paused, skipped: an operator paused the schedule or skipped the slot;
 * - cancelled: the calendar or guide dropped the occurrence before it started.
 */
export type MissedWhy = 'start_failed' | 'not_started' | 'coordination' | 'paused' | 'skipped' | 'cancelled';

/** Misses someone chose: reported, but not a failure. */
const CHOSEN: readonly MissedWhy[] = ['paused', 'skipped', 'cancelled'];
/**
 * A start given up is raised as an error by the create-channel node that gave
 * it up (its message is the slot's start): the report alone follows, so that
 * a Catch node hears of each missed window once.
 */
const RAISED_ELSEWHERE: readonly MissedWhy[] = ['start_failed'];

type MissedReport = {
  /** the slot's outcome (lib/schedule/slot-outcome): `skipped` paused or skipped by an operator, `cancelled` its
   * occurrence left its calendar or guide, `missed` otherwise */
  topic: 'missed' | 'skipped' | 'cancelled';
  payload: {
    slot: string;
    /** the programme's title and episode, else the window's name */
    name: string;
    why: MissedWhy;
    reason: string;
    attempts?: number;
    window: ReturnType<typeof windowInfo>;
  };
  window: ReturnType<typeof windowInfo>;
};

/** The output-3 message of a slot that recorded nothing. */
export function missedReport(
  window: ScheduleWindow,
  slot: Slot,
  why: MissedWhy,
  reason: string,
  attempts?: number,
): MissedReport {
  const info = windowInfo(window, slot);
  return {
    topic: outcomeOfMiss(why),
    payload: {
      slot: slot.key,
      name: occurrenceName(window.name, slot.programme),
      why,
      reason,
      ...(attempts ? { attempts } : {}),
      window: info,
    },
    window: info,
  };
}

/** The outcome of a slot that recorded nothing (lib/schedule/slot-outcome): missed, skipped or cancelled. */
export function outcomeOfMiss(why: MissedWhy): 'missed' | 'skipped' | 'cancelled' {
  return why === 'cancelled' ? 'cancelled' : isAlarm(why) ? 'missed' : 'skipped';
}

/** Whether the miss is a failure (shown as missed, not skipped). */
export function isAlarm(why: MissedWhy): boolean {
  return !CHOSEN.includes(why);
}

/** Whether the schedule raises the miss as an error for Catch nodes (once per window across the flow). */
export function raisesError(why: MissedWhy): boolean {
  return isAlarm(why) && !RAISED_ELSEWHERE.includes(why);
}

/** The one sentence of the error, reason first. */
export function missedSentence(window: ScheduleWindow, slot: Slot, reason: string): string {
  return `nothing recorded for "${occurrenceName(window.name, slot.programme)}" at ${isoSeconds(slot.start)}: ${reason}`;
}

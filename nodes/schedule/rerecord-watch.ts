import { isoSeconds, type PlannedOccurrence, type ScheduleConfig, type Scheduler } from '../../lib/schedule';
import type { FeedPlans } from '../../lib/schedule/feed-plans';
import {
  decideRerecord,
  type FailedSlot,
  factsOf,
  failedSlotOf,
  isRerecordBooking,
  type ProgrammeFacts,
  type RerecordBooking,
} from '../../lib/schedule/rerecord';
import { type SlotTransition, slotTransitions } from '../../lib/schedule/slot-events';
import { occurrenceName, slotKey } from '../../lib/schedule/template-context';

/** The output-3 message of a booking: the failed slot is recorded again at a later airing. */
export type RerecordReport = {
  topic: 'rerecord';
  payload: {
    /** the new slot */
    slot: string;
    /** the slot that failed */
    of: string;
    /** the new slot's padded start, ISO */
    at: string;
    end: string;
    window_id: string;
    title?: string;
    /** why the first slot is recorded again: `missed: …` or `partial: 40% lost` */
    reason: string;
  };
};

/** How a booking is claimed once when several instances share the schedule (Redis); absent: this instance alone. */
export type BookingClaim = (booking: RerecordBooking) => Promise<'won' | 'done'>;

/** With Redis: the booking another instance made of an airing, if any (see SlotCoordination.bookedElsewhere). */
export type BookingLookup = (
  airing: Pick<RerecordBooking, 'slot' | 'windowId' | 'occurrence' | 'start'>,
) => Promise<unknown>;

/** How often, with Redis, the repeats starting soon are looked up for another instance's booking. */
export const LOOKUP_EVERY_MS = 2_000;
/** How far ahead: a booking made elsewhere is planned here by then (the instance that made it may die). */
const LOOKUP_AHEAD_MS = 3600_000;
/** Repeats looked up per round at the most. */
const LOOKUP_MAX = 50;

/** What the watch reads of the schedule node it works for, and, with Redis, how it claims and finds bookings. */
export interface RerecordReads {
  config(): ScheduleConfig;
  scheduler(): Scheduler | undefined;
  feeds: FeedPlans;
  claim?: BookingClaim;
  lookup?: BookingLookup;
}

/**
 * What the watch asks of the schedule node, as data; the node carries each out:
 * - `rerecord`: a booking this instance made, said once on output 3 (another instance's booking is planned
 *   here too, but said by the instance that made it);
 * - `log`: a failed slot not booked and why, or a booking taken from another instance;
 * - `warn`: a booking made on this instance alone because Redis cannot be used (it may be said twice).
 */
export type RerecordOut =
  | { kind: 'rerecord'; report: RerecordReport }
  | { kind: 'log'; text: string }
  | { kind: 'warn'; text: string };

/**
 * Turns a schedule's failed slots (its final `missed` and `partial` transitions, as published on
 * `media-spaces:slot`) into bookings at the next airing (lib/schedule/rerecord decides): the scheduler keeps
 * the booking with its state, the window's feed plans the airing, and output 3 says so once.
 */
export class RerecordWatch {
  private readonly listener = (message: unknown) => this.onTransition(message as SlotTransition);
  private closed = false;
  private timer: ReturnType<typeof setInterval> | undefined;
  private looking = false;

  /** `out`: the node's one way of carrying out what the watch asks. */
  constructor(
    private readonly nodeId: string,
    private readonly parts: RerecordReads,
    private readonly out: (effect: RerecordOut) => void,
  ) {
    slotTransitions.subscribe(this.listener);
    if (parts.lookup) {
      this.timer = setInterval(() => void this.lookUp(), LOOKUP_EVERY_MS);
      this.timer.unref?.();
    }
  }

  close(): void {
    this.closed = true;
    if (this.timer) clearInterval(this.timer);
    slotTransitions.unsubscribe(this.listener);
  }

  /** With Redis: the repeats starting soon that another instance booked are planned here too. */
  private async lookUp(): Promise<void> {
    const scheduler = this.parts.scheduler();
    const lookup = this.parts.lookup;
    if (this.looking || this.closed || !scheduler || !lookup) return;
    this.looking = true;
    try {
      const now = Date.now();
      const booked = new Set(scheduler.bookings().map((b) => b.slot));
      const due = this.parts
        .config()
        .windows.filter((w) => w.rerecord)
        .flatMap((w) => this.parts.feeds.repeats(w.id).map((o) => ({ w, o })))
        .filter(({ o }) => o.end > now && o.start <= now + LOOKUP_AHEAD_MS)
        .map(({ w, o }) => ({
          slot: slotKey(scheduler.scheduleId, w.id, o.id),
          windowId: w.id,
          occurrence: o.id,
          start: o.start,
        }))
        .filter((a) => !booked.has(a.slot))
        .slice(0, LOOKUP_MAX);
      for (const airing of due) {
        const found = await lookup(airing);
        if (this.closed) return;
        if (!isRerecordBooking(found) || found.slot !== airing.slot) continue;
        this.out({ kind: 'log', text: `${found.slot}: booked by another instance to record ${found.of} again` });
        scheduler.book(found);
        this.parts.feeds.replan(found.windowId);
      }
    } catch {
      // Redis cannot be used now: looked up again next round (the slot coordination says why)
    } finally {
      this.looking = false;
    }
  }

  private onTransition(t: SlotTransition): void {
    if (this.closed || t.schedule.id !== this.nodeId) return;
    const failed = failedSlotOf(t);
    if (!failed) return;
    const window = this.parts.config().windows.find((w) => w.id === failed.windowId);
    const kind = window?.source?.kind;
    if (!window?.rerecord || (kind !== 'xmltv' && kind !== 'ical')) return;
    const airings = this.parts.feeds.airings(window.id);
    const own = airings.find((o) => o.id === failed.occurrence);
    const facts: ProgrammeFacts = own
      ? factsOf(own, kind)
      : {
          ...(t.occurrence.title ? { title: t.occurrence.title } : {}),
          ...(t.occurrence.episode ? { episode: t.occurrence.episode } : {}),
        };
    const scheduler = this.parts.scheduler();
    if (!scheduler) return;
    const decision = decideRerecord({
      failed,
      facts,
      rule: window.rerecord,
      kind,
      airings,
      bookings: scheduler.bookings(),
      now: Date.now(),
    });
    if ('none' in decision) {
      this.out({ kind: 'log', text: `${failed.key} (${failed.outcome}) is not recorded again: ${decision.none}` });
      return;
    }
    const booking = bookingOf(failed, decision.book, facts, scheduler.scheduleId);
    void this.book(booking, failed, decision.book, window.name);
  }

  private async book(
    booking: RerecordBooking,
    failed: FailedSlot,
    airing: PlannedOccurrence,
    windowName: string,
  ): Promise<void> {
    let claimed: 'won' | 'done' = 'won';
    try {
      if (this.parts.claim) claimed = await this.parts.claim(booking);
    } catch (err) {
      // better twice told than not recorded: the airing's own start is still claimed once
      this.out({
        kind: 'warn',
        text: `${booking.slot}: the re-record of ${failed.key} is booked on this instance alone, Redis cannot be used (${String((err as Error).message ?? err)})`,
      });
    }
    const scheduler = this.parts.scheduler();
    if (this.closed || !scheduler) return;
    scheduler.book(booking);
    this.parts.feeds.replan(booking.windowId);
    if (claimed === 'done') return;
    const title = airing.programme?.title ? occurrenceName(windowName, airing.programme) : undefined;
    this.out({
      kind: 'rerecord',
      report: {
        topic: 'rerecord',
        payload: {
          slot: booking.slot,
          of: booking.of,
          at: isoSeconds(booking.start),
          end: isoSeconds(booking.end),
          window_id: booking.windowId,
          ...(title ? { title } : {}),
          reason: failureReason(failed),
        },
      },
    });
  }
}

function bookingOf(
  failed: FailedSlot,
  airing: PlannedOccurrence,
  programme: ProgrammeFacts,
  scheduleId: string,
): RerecordBooking {
  return {
    slot: slotKey(scheduleId, failed.windowId, airing.id),
    windowId: failed.windowId,
    occurrence: airing.id,
    of: failed.key,
    start: airing.start,
    end: airing.end,
    failedStart: failed.start,
    programme,
  };
}

/** `missed: HTTP 503 …`, `partial: 40% lost`. */
function failureReason(failed: FailedSlot): string {
  if (failed.outcome === 'partial') return `partial: ${Math.round(failed.lost * 100)}% lost`;
  return failed.why ? `missed: ${failed.why}` : 'missed';
}

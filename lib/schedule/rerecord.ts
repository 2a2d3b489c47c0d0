import type { PlannedOccurrence, Programme } from './plan';
import type { SlotTransition } from './slot-events';

/**
 * Record at the next airing: a guide or calendar slot that ends `missed`, or `partial` with more than
 * `minLost` of it lost, is booked again at the next airing of the same programme within `within`.
 * Everything here is a decision on data; the schedule node carries the decisions out.
 */

/** A window's `rerecord` (normalised): seconds, and the share of a partial recording that must be lost. */
export interface RerecordRule {
  within: number;
  minLost: number;
}

export const DEFAULT_RERECORD: Readonly<RerecordRule> = Object.freeze({ within: 7 * 24 * 3600, minLost: 0.1 });

/** One booking: the airing `occurrence` of window `windowId` records again what slot `of` failed to. */
export interface RerecordBooking {
  /** the new slot's key */
  slot: string;
  windowId: string;
  occurrence: string;
  /** the failed slot's key */
  of: string;
  /** epoch ms: the new slot's padded start and end (the booking is dropped a day after the end) */
  start: number;
  end: number;
  /** epoch ms: the failed slot's padded start: at most one booking per programme within `within` of it */
  failedStart: number;
  /** what makes it the same programme (see sameProgramme), kept so that a later failure can be compared */
  programme: ProgrammeFacts;
}

/** What the same-programme rule reads of an occurrence. */
export type ProgrammeFacts = Pick<Programme, 'title' | 'subtitle' | 'description' | 'episode'> & {
  /** a calendar event's UID (calendar windows) */
  uid?: string;
};

/** A slot that ended without a whole recording, as its final transition tells it. */
export interface FailedSlot {
  key: string;
  windowId: string;
  occurrence: string;
  outcome: 'missed' | 'partial';
  /** epoch ms, padded */
  start: number;
  end: number;
  /** the share of the slot not recorded, 0..1 */
  lost: number;
  /** the slot was itself a re-record: its booking counts for the programme */
  rerecordOf?: string;
  why?: string;
}

const norm = (text: string | undefined): string | undefined => {
  const t = text?.replace(/\s+/g, ' ').trim().toLowerCase();
  return t ? t : undefined;
};

/**
 * The same-programme rule. A guide's programmes: the same title and the same episode-num (xmltv_ns or
 * onscreen, as shown); failing an episode-num on either, the same title and sub-title; failing that, the same
 * title and description. A calendar's events: the same UID (another instance of a recurring event), or the
 * same title. Texts compare with case and runs of spaces ignored; an occurrence without a title is never the
 * same as another.
 */
export function sameProgramme(a: ProgrammeFacts, b: ProgrammeFacts, kind: 'xmltv' | 'ical'): boolean {
  if (kind === 'ical') {
    if (a.uid !== undefined && a.uid === b.uid) return true;
    return norm(a.title) !== undefined && norm(a.title) === norm(b.title);
  }
  const title = norm(a.title);
  if (title === undefined || title !== norm(b.title)) return false;
  const pairs: Array<[string | undefined, string | undefined]> = [
    [a.episode, b.episode],
    [a.subtitle, b.subtitle],
    [a.description, b.description],
  ];
  for (const [x, y] of pairs) {
    const [nx, ny] = [norm(x), norm(y)];
    if (nx !== undefined && ny !== undefined) return nx === ny;
  }
  return false;
}

/** A calendar occurrence's UID: its id without the recurrence's ISO time (`uid/2026-11-28T18:00:00Z`). */
export function uidOfCalendarId(id: string): string {
  return id.replace(/\/\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/, '');
}

/** What the rule reads of a planned occurrence of a window of this kind. */
export function factsOf(o: Pick<PlannedOccurrence, 'id' | 'programme'>, kind: 'xmltv' | 'ical'): ProgrammeFacts {
  const p = o.programme;
  return {
    ...(p?.title !== undefined ? { title: p.title } : {}),
    ...(p?.subtitle !== undefined ? { subtitle: p.subtitle } : {}),
    ...(p?.description !== undefined ? { description: p.description } : {}),
    ...(p?.episode !== undefined ? { episode: p.episode } : {}),
    ...(kind === 'ical' ? { uid: uidOfCalendarId(o.id) } : {}),
  };
}

/**
 * The failed slot a final transition tells of, or undefined when it is not one: `missed`, or `partial` (the
 * share lost from its gaps over the padded window).
 */
export function failedSlotOf(t: SlotTransition): FailedSlot | undefined {
  if (t.from === t.to || (t.to !== 'missed' && t.to !== 'partial')) return undefined;
  const start = Date.parse(t.scheduled.start);
  const end = Date.parse(t.scheduled.end);
  let lost = 1;
  if (t.to === 'partial') {
    const span = Math.max(1, end - start);
    const gaps = (t.gaps ?? []).reduce((sum, g) => {
      const from = Math.max(start, Date.parse(g.from));
      const to = Math.min(end, Date.parse(g.to));
      return sum + Math.max(0, to - from);
    }, 0);
    lost = Math.min(1, gaps / span);
  }
  return {
    key: t.slot,
    windowId: t.window.id,
    occurrence: t.occurrence.id,
    outcome: t.to,
    start,
    end,
    lost,
    ...(t.rerecordOf ? { rerecordOf: t.rerecordOf } : {}),
    ...(t.why ? { why: t.why } : {}),
  };
}

export type RerecordDecision =
  | { book: PlannedOccurrence }
  /** why not, in words (a debug line, never an error) */
  | { none: string };

/**
 * Whether and where `failed` is recorded again: the earliest airing of the same programme that starts after
 * now and within `within` of the failed slot's start. None when too little was lost, when the programme was
 * re-recorded already within `within` (a failed re-record ends the chain), or when no such airing is listed.
 */
export function decideRerecord(args: {
  failed: FailedSlot;
  /** the failed occurrence's facts (from the plan) */
  facts: ProgrammeFacts;
  rule: RerecordRule;
  kind: 'xmltv' | 'ical';
  /** every airing the window's feed lists, planned or not (a guide read `duplicates: once` keeps its repeats) */
  airings: readonly PlannedOccurrence[];
  bookings: readonly RerecordBooking[];
  now: number;
}): RerecordDecision {
  const { failed, facts, rule, kind, airings, bookings, now } = args;
  if (failed.outcome === 'partial' && !(failed.lost > rule.minLost)) {
    return {
      none: `${Math.round(failed.lost * 100)}% of it was lost, not more than rerecord.min_lost (${Math.round(rule.minLost * 100)}%)`,
    };
  }
  if (!norm(facts.title) && facts.uid === undefined) return { none: 'it has no title to find it again by' };
  const withinMs = rule.within * 1000;
  const already = bookings.find(
    (b) =>
      b.windowId === failed.windowId &&
      (b.slot === failed.key ||
        b.of === failed.key ||
        (Math.abs(failed.start - b.failedStart) < withinMs && sameProgramme(facts, b.programme, kind))),
  );
  if (already || failed.rerecordOf)
    return { none: 'the programme was re-recorded once already within rerecord.within' };
  const next = airings
    .filter(
      (o) =>
        o.id !== failed.occurrence &&
        o.start > now &&
        o.start > failed.start &&
        o.start <= failed.start + withinMs &&
        sameProgramme(facts, factsOf(o, kind), kind),
    )
    .sort((a, b) => a.start - b.start || (a.id < b.id ? -1 : 1))[0];
  return next ? { book: next } : { none: 'no later airing of it is listed within rerecord.within' };
}

/** A booking as the journal or Redis gives it back (anything else is left out). */
export function isRerecordBooking(value: unknown): value is RerecordBooking {
  const b = value as RerecordBooking;
  return (
    typeof b === 'object' &&
    b !== null &&
    typeof b.slot === 'string' &&
    typeof b.windowId === 'string' &&
    typeof b.occurrence === 'string' &&
    typeof b.of === 'string' &&
    Number.isFinite(b.start) &&
    Number.isFinite(b.end) &&
    Number.isFinite(b.failedStart) &&
    typeof b.programme === 'object' &&
    b.programme !== null
  );
}

/** Bookings still of use: the new slot has not ended a day ago. */
export function liveBookings(bookings: readonly RerecordBooking[], now: number): RerecordBooking[] {
  return bookings.filter((b) => b.end + 24 * 3600_000 > now);
}

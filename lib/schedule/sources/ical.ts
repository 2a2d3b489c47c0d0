import type ICALNamespace from 'ical.js';
import { quoteShort } from '../../quote';
import { DAY, HOUR, isoSeconds } from '../tz';
import { ruleStarts } from './ical-recur';
import { blockText, type EventBlock, scanCalendar } from './ical-scan';
import { dayOf, type IcalDate, readDate } from './ical-values';
import { vtimezoneOffset, zoneOfTzid } from './ical-zones';
import { compileMatch, overlaps, type TitlePattern } from './match';
import { byStart, type Occurrence, revisionOf, type SourceResult } from './occurrence';
import { Problems } from './problems';
import { ianaOffset, type OffsetAt, resolveWallClock } from './wall-clock';

type ICAL = typeof ICALNamespace;
type Component = InstanceType<ICAL['Component']>;
type Property = InstanceType<ICAL['Property']>;
type Time = InstanceType<ICAL['Time']>;
type Recur = InstanceType<ICAL['Recur']>;

let ical: ICAL | undefined;

/** ical.js, loaded when a calendar is first read: flows without calendar windows never load it (25 ms, 1.4 MB). */
function loadIcal(): ICAL {
  // the package's CommonJS build exports { default }; a loader that interops with its ES module gives the namespace
  const loaded = require('ical.js') as ICAL & { default?: ICAL };
  ical ??= loaded.default ?? loaded;
  return ical;
}

export interface CalendarOptions {
  windowId: string;
  /** IANA zone of floating times and of all-day events */
  zone: string;
  /** occurrences that overlap [from, to) are kept */
  from: Date;
  to: Date;
  /** `title`: a regular expression (source text) the SUMMARY must match */
  match?: { title?: string };
  /** all-day events are left out unless this is true; then they span their days' midnights in `zone` */
  allDay?: boolean;
  /** ms: the length of a timed event that has neither DTEND nor DURATION, or whose end is its start */
  defaultDuration?: number;
  /** steps of a rule expanded by ical.js (the uncommon ones) before giving up on it (default 100,000) */
  maxIterations?: number;
  /** occurrences kept from the whole calendar (default 50,000) */
  maxOccurrences?: number;
}

/** A wall-clock time and its instant are at most this far apart (UTC offsets stay within -12 h and +14 h). */
const ZONE_SLACK = 15 * HOUR;

/**
 * The occurrences of a calendar's events in [from, to): recurrences expanded
 * (RRULE, RDATE, EXDATE) at their wall-clock time in their zone, overrides
 * (RECURRENCE-ID) in place of the instance they replace, cancelled events and
 * instances left out. An event that cannot be read is left out and named in
 * `problems`; a text that is no calendar at all sets `error`. Never throws.
 *
 * The text is cut into events first (ical-scan.ts) and each UID's events are
 * parsed when their turn comes: a large calendar is never one parsed tree.
 */
export function expandCalendar(text: string, opts: CalendarOptions): SourceResult {
  const problems = new Problems();
  try {
    const match = compileMatch(opts.match);
    if (typeof match === 'string') return failed(match);
    const notCalendar = checkEnvelope(text);
    if (notCalendar) return failed(notCalendar);
    const ICAL = loadIcal();
    const scanned = scanCalendar(text);
    for (const sentence of scanned.problems) problems.push(sentence);
    let rest: unknown[];
    try {
      rest = ICAL.parse(scanned.rest) as unknown[];
    } catch (error) {
      return failed(parseFailure(error, text));
    }
    const roots = (Array.isArray(rest[0]) ? rest : [rest]) as unknown[];
    const zones = new Map<string, OffsetAt>();
    for (const root of roots) {
      for (const [tzid, offset] of timezones(ICAL, new ICAL.Component(root as never))) {
        if (!zones.has(tzid)) zones.set(tzid, offset);
      }
    }
    const occurrences: Occurrence[] = [];
    const ctx: Context = {
      ICAL,
      opts,
      match,
      zones,
      windowOffset: ianaOffset(opts.zone),
      problems,
      named: new Set(),
      occurrences,
      budget: { left: opts.maxOccurrences ?? 50_000, warned: false },
    };
    for (const [uid, blocks] of groupByUid(scanned.events)) {
      expandGroup(ctx, uid, blocks, text);
      if (ctx.budget.warned) break; // the occurrences kept are all there will be: the rest is not parsed
    }
    occurrences.sort(byStart);
    return { occurrences, problems: problems.list() };
  } catch (error) {
    // a bug or a library failure outside one event: the calendar as a whole is not read
    return failed(parseFailure(error, text));
  }

  function failed(error: string): SourceResult {
    return { occurrences: [], problems: problems.list(), error };
  }
}

interface Context {
  ICAL: ICAL;
  opts: CalendarOptions;
  match: { title?: TitlePattern };
  zones: Map<string, OffsetAt>;
  /** the window's zone: floating times and all-day days */
  windowOffset: OffsetAt;
  problems: Problems;
  /** problems already named once (a zone guessed for an event is said once, not per value) */
  named: Set<string>;
  occurrences: Occurrence[];
  budget: { left: number; warned: boolean };
}

/** The feed is a calendar, whole: not an HTML page (a login form, an error page), not cut off. */
function checkEnvelope(text: string): string | undefined {
  const bare = text.replace(/^\uFEFF/, '');
  const body = bare.trimStart();
  if (body === '') return 'The calendar is empty (no BEGIN:VCALENDAR).';
  // no message quotes the body: what a feed server answers may be what only this host can reach
  const skipped = bare.slice(0, bare.length - body.length).split('\n').length - 1;
  if (!/^BEGIN:VCALENDAR\r?\n/i.test(body)) {
    return body.startsWith('<')
      ? `The feed is an HTML or XML page, not an iCalendar feed (line ${skipped + 1} is markup).`
      : `The feed is not an iCalendar feed: line ${skipped + 1} is not BEGIN:VCALENDAR.`;
  }
  if (!/(^|\n)END:VCALENDAR\s*$/i.test(body)) {
    const lines = body.replace(/\s+$/, '').split(/\r?\n/);
    return `The calendar is truncated: it ends at line ${skipped + lines.length} before END:VCALENDAR.`;
  }
  return undefined;
}

/** The calendar's own VTIMEZONE definitions by TZID: they take precedence over IANA names (RFC 5545 3.2.19). */
function timezones(ICAL: ICAL, calendar: Component): Map<string, OffsetAt> {
  const zones = new Map<string, OffsetAt>();
  for (const comp of calendar.getAllSubcomponents('vtimezone')) {
    const tzid = comp.getFirstPropertyValue('tzid');
    if (typeof tzid !== 'string') continue;
    zones.set(tzid, vtimezoneOffset(new ICAL.Timezone(comp)));
  }
  return zones;
}

/** The events by UID, in the order of the file (an event without UID is its own group). */
function groupByUid(events: EventBlock[]): Map<string, EventBlock[]> {
  const groups = new Map<string, EventBlock[]>();
  events.forEach((block, index) => {
    const uid = block.uid ?? `event-${index + 1}`;
    const group = groups.get(uid);
    if (group) group.push(block);
    else groups.set(uid, [block]);
  });
  return groups;
}

const UNQUOTED_TZID = /;TZID=([^";:\r\n]*:[^";\r\n]*?):([0-9]{8}(?:T[0-9]{6}Z?)?(?:[,/][0-9A-Z]+)*\r?)$/gim;

/**
 * A TZID with a colon in it, unquoted (`DTSTART;TZID=(UTC-05:00) Eastern Time (US & Canada):2024…`, as
 * some Outlook versions write it), quoted as RFC 5545 requires: the parser would take the value from its
 * first colon. Only where what follows the last colon is a date, date-time or list of them.
 */
function quoteTzids(body: string): string {
  if (!/;TZID=[^";:\r\n]*:[^\r\n]*:/i.test(body)) return body;
  return body.replace(UNQUOTED_TZID, ';TZID="$1":$2');
}

/** An override, and the instance (its start instant) it replaces. */
interface Override {
  event: Component;
  rid: number;
  sequence: number;
}

/** One UID's events parsed, their master and overrides chosen by SEQUENCE, and expanded. */
function expandGroup(ctx: Context, uid: string, blocks: EventBlock[], text: string): void {
  const { ICAL } = ctx;
  const events: Component[] = [];
  for (const block of blocks) {
    const body = quoteTzids(blockText(text, block));
    try {
      events.push(new ICAL.Component(ICAL.parse(body) as never));
    } catch (error) {
      const summary = /^SUMMARY(?:;[^:\r\n]*)?:(.*)$/im.exec(body)?.[1];
      // the line ical.js quotes is not quoted on (see parseFailure)
      ctx.problems.push(`${nameOf(uid, undefined, summary)} is left out: ${parseKind(error)}.`);
    }
  }
  if (events.length === 0) return;
  const parsedUid = events[0].getFirstPropertyValue('uid');
  const id = parsedUid === null || parsedUid === undefined ? uid : String(parsedUid);
  let master: Component | undefined;
  const overrides: Component[] = [];
  for (const event of events) {
    if (event.hasProperty('recurrence-id')) overrides.push(event);
    else if (!master) master = event;
    else if (sequenceOf(event) > sequenceOf(master))
      master = event; // a later version of the series
    else if (sequenceOf(event) === sequenceOf(master))
      ctx.problems.push(
        `${nameOf(id, master)} appears twice without RECURRENCE-ID and with the same SEQUENCE; the second is left out.`,
      );
  }
  const named = nameOf(id, master ?? overrides[0]);
  try {
    expandEvent(ctx, id, master, overrides, named);
  } catch (error) {
    ctx.problems.push(`${named} is left out: ${messageOf(error)}.`);
  }
}

function expandEvent(
  ctx: Context,
  uid: string,
  master: Component | undefined,
  overrides: Component[],
  named: string,
): void {
  if (master && isCancelled(master)) return; // the whole series, overrides included
  const masterShape = master ? shapeOf(ctx, master, undefined, named) : undefined;
  const masterStart = master ? readProp(ctx, master.getFirstProperty('dtstart'), named) : undefined;
  // the instance each override replaces; of two for one instance, the higher SEQUENCE (else the later one)
  const chosen = new Map<number, Override>();
  for (const event of overrides) {
    const recurrenceId = event.getFirstProperty('recurrence-id') as Property;
    const rid = ridOf(ctx, recurrenceId, masterStart, masterShape, named);
    if (rid === undefined) continue;
    const sequence = sequenceOf(event);
    const before = chosen.get(rid);
    if (before && before.sequence > sequence) continue;
    if (before && before.sequence === sequence)
      ctx.problems.push(
        `${named} has two overrides of its instance of ${isoSeconds(rid)} with SEQUENCE ${sequence}; the later in the file is kept.`,
      );
    chosen.set(rid, { event, rid, sequence });
  }
  const overridden = new Set<number>(chosen.keys());
  const ranges: RangeOverride[] = [];
  for (const { event, rid } of chosen.values()) {
    const recurrenceId = event.getFirstProperty('recurrence-id') as Property;
    const cancelled = isCancelled(event);
    const shape = cancelled ? undefined : shapeOf(ctx, event, master, named, recurrenceId);
    if (String(recurrenceId.getParameter('range') ?? '').toUpperCase() === 'THISANDFUTURE') {
      const ridValue = readDate(recurrenceId.jCal[3]);
      const shift = shape && typeof ridValue !== 'string' ? shape.start.local - ridValue.local : 0;
      ranges.push({ ridAt: rid, shift, shape, event, cancelled });
    }
    if (shape) emitOne(ctx, uid, event, shape, `${uid}/${isoSeconds(rid)}`);
  }
  ranges.sort((a, b) => a.ridAt - b.ridAt);
  if (!master || !masterShape) return;
  const recurring = master.hasProperty('rrule') || master.hasProperty('rdate');
  if (!recurring) {
    emitOne(ctx, uid, master, masterShape, uid);
    return;
  }
  expandSeries(ctx, uid, master, masterShape, { overridden, ranges }, named);
}

/**
 * An override with RANGE=THISANDFUTURE: the instances after it move by as
 * much as it moved (wall-clock), take its length and its text, or are all
 * cancelled with it.
 */
interface RangeOverride {
  ridAt: number;
  /** ms of wall-clock time the override moved its instance by */
  shift: number;
  shape: Shape | undefined;
  event: Component;
  cancelled: boolean;
}

/** How an event's instances are placed: start zone, all-day or not, and how the end follows from the start. */
interface Shape {
  /** the event's own start (an override without DTSTART starts at its RECURRENCE-ID) */
  start: IcalDate;
  allDay: boolean;
  offset: OffsetAt;
  end: (startLocal: number, start: number) => number;
  /** an upper bound of the length, in ms, to skip instances long before the range */
  longest: number;
}

function shapeOf(
  ctx: Context,
  event: Component,
  master: Component | undefined,
  named: string,
  recurrenceId?: Property,
): Shape | undefined {
  const dtstart = event.getFirstProperty('dtstart') ?? recurrenceId ?? master?.getFirstProperty('dtstart');
  if (!dtstart) {
    ctx.problems.push(`${named} has no DTSTART; it is left out.`);
    return undefined;
  }
  const start = readProp(ctx, dtstart, named);
  if (!start) return undefined;
  if (start.isDate && !ctx.opts.allDay) return undefined;
  const offset = start.isDate ? ctx.windowOffset : zoneOf(ctx, dtstart, start, ctx.windowOffset, named);
  const at = (local: number) => resolveWallClock(local, offset);
  // an override without an end of its own lasts as long as its series: the series' end less the series' start
  const source = event.hasProperty('dtend') || event.hasProperty('duration') || !master ? event : master;
  const sourceStartProp = source === event ? dtstart : (master?.getFirstProperty('dtstart') ?? dtstart);
  const sourceStart = source === event ? start : readProp(ctx, sourceStartProp, named);
  if (!sourceStart) return undefined;
  const dtendProp = source.getFirstProperty('dtend');
  const duration = source.getFirstPropertyValue('duration') as InstanceType<ICAL['Duration']> | null;
  if (dtendProp) {
    const end = readProp(ctx, dtendProp, named);
    if (!end) return undefined;
    if (start.isDate) {
      const days = Math.round((dayOf(end.local) - dayOf(sourceStart.local)) / DAY);
      return lengthChecked(ctx, named, days * DAY, allDayShape(start, offset, Math.max(days, 1)));
    }
    const length = instantOf(ctx, dtendProp, end, named) - instantOf(ctx, sourceStartProp, sourceStart, named);
    const timed = (ms: number): Shape => ({ start, allDay: false, offset, end: (_l, s) => s + ms, longest: ms });
    return lengthChecked(ctx, named, length, timed(length), timed);
  }
  if (duration) {
    if (duration.isNegative) {
      ctx.problems.push(`${named} has a negative DURATION; it is left out.`);
      return undefined;
    }
    // days and weeks are nominal (wall-clock days, 23 or 25 h across a change of clocks); the rest is exact
    const days = duration.weeks * 7 + duration.days;
    const exact = ((duration.hours * 60 + duration.minutes) * 60 + duration.seconds) * 1000;
    if (start.isDate) return allDayShape(start, offset, Math.max(days, 1));
    const end = (local: number, s: number) => (days > 0 ? at(local + days * DAY) : s) + exact;
    const shape: Shape = { start, allDay: false, offset, end, longest: days * DAY + exact + DAY };
    const timed = (ms: number): Shape => ({ start, allDay: false, offset, end: (_l, s) => s + ms, longest: ms });
    return lengthChecked(ctx, named, days * DAY + exact, shape, timed);
  }
  if (start.isDate) return allDayShape(start, offset, 1);
  const fallback = ctx.opts.defaultDuration;
  if (!fallback) {
    ctx.problems.push(`${named} has no DTEND or DURATION and the window has no default duration; it is left out.`);
    return undefined;
  }
  return { start, allDay: false, offset, end: (_l, s) => s + fallback, longest: fallback };
}

function allDayShape(start: IcalDate, offset: OffsetAt, days: number): Shape {
  return {
    start,
    allDay: true,
    offset,
    end: (local) => resolveWallClock(local + days * DAY, offset),
    longest: (days + 1) * DAY,
  };
}

/**
 * A positive length is the shape; a negative one is named and left out; a zero-length event
 * (its end is its start: a reminder, a deadline) is named and recorded for the window's
 * `default_duration` when it has one, else left out. An all-day event of zero days lasts one day.
 */
function lengthChecked(
  ctx: Context,
  named: string,
  length: number,
  shape: Shape,
  timed?: (ms: number) => Shape,
): Shape | undefined {
  if (length > 0) return shape;
  if (length < 0) {
    ctx.problems.push(`${named} ends before it starts (DTEND or DURATION); it is left out.`);
    return undefined;
  }
  if (shape.allDay) return shape;
  const fallback = ctx.opts.defaultDuration;
  if (fallback && timed) {
    ctx.problems.push(`${named} is zero-length (it ends when it starts); it is recorded for the default duration.`);
    return timed(fallback);
  }
  ctx.problems.push(
    `${named} is zero-length (it ends when it starts) and the window has no default duration; it is left out.`,
  );
  return undefined;
}

function emitOne(ctx: Context, uid: string, event: Component, shape: Shape, id: string): void {
  const local = shape.start.local;
  const at = resolveWallClock(local, shape.offset);
  push(ctx, uid, event, id, at, shape.end(local, at));
}

/** An instance an RDATE adds: its start, and its own end when it is a PERIOD. */
interface ExtraDate {
  local: number;
  at: number;
  end?: number;
}

function expandSeries(
  ctx: Context,
  uid: string,
  master: Component,
  shape: Shape,
  changed: { overridden: Set<number>; ranges: RangeOverride[] },
  named: string,
): void {
  const { ICAL, opts } = ctx;
  const { overridden, ranges } = changed;
  // instances a range override moves may come from outside the range: look that much further on both sides
  const moved = Math.max(0, ...ranges.map((r) => Math.abs(r.shift) + (r.shape?.longest ?? 0)));
  const slack = ZONE_SLACK + moved;
  const from = opts.from.getTime();
  const to = opts.to.getTime();
  // every EXDATE and RDATE is read before any instance is given: a bad value is named and skipped, never half a series
  const excluded = exclusions(ctx, master, shape, named);
  const extra = additions(ctx, master, shape, named);
  const emit = (local: number, at: number, ownEnd?: number): boolean => {
    if (overridden.has(at) || excluded.instants.has(at) || excluded.days.has(dayOf(local))) return true;
    const id = `${uid}/${isoSeconds(at)}`;
    const range = ranges.findLast((r) => r.ridAt < at);
    if (range) {
      if (range.cancelled || !range.shape) return true;
      const movedLocal = local + range.shift;
      const movedAt = resolveWallClock(movedLocal, range.shape.offset);
      return push(ctx, uid, range.event, id, movedAt, range.shape.end(movedLocal, movedAt));
    }
    return push(ctx, uid, master, id, at, ownEnd ?? shape.end(local, at));
  };
  const given = new Set<number>();
  const rule = master.getFirstPropertyValue('rrule') as Recur | null;
  const limit = opts.maxIterations ?? 100_000;
  if (rule) {
    const within = untilOf(rule, shape);
    const window = { from: from - shape.longest - slack, to: to + slack, limit, within };
    const { starts, capped } = ruleStarts(ICAL, rule, shape.start, window);
    for (const local of starts) {
      const at = resolveWallClock(local, shape.offset);
      given.add(at);
      if (!emit(local, at)) return;
    }
    if (capped)
      ctx.problems.push(
        `${named} recurs more than ${limit} times before the end of the range; its later instances are left out.`,
      );
  } else {
    // RDATEs without RRULE: DTSTART is still the first instance (RFC 5545 3.8.5.2)
    const at = resolveWallClock(shape.start.local, shape.offset);
    given.add(at);
    if (!emit(shape.start.local, at)) return;
  }
  for (const date of extra) {
    if (given.has(date.at) || date.at >= to + slack || (date.end ?? date.at + shape.longest) + slack <= from) continue;
    given.add(date.at);
    if (!emit(date.local, date.at, date.end)) return;
  }
}

/** UNTIL as a test of an instance's wall-clock start: a date is its whole day, UTC is an instant, else wall-clock. */
function untilOf(rule: Recur, shape: Shape): (local: number) => boolean {
  const until = rule.until as Time | null;
  if (!until) return () => true;
  const last = wallClock(until);
  if (until.isDate) return (local) => local < last + DAY;
  if (until.zone?.tzid === 'UTC' && !shape.allDay) return (local) => resolveWallClock(local, shape.offset) <= last;
  if (until.zone?.tzid === 'UTC') return (local) => local <= last + shape.offset(last);
  return (local) => local <= last;
}

/** The EXDATEs: instants, and days (a DATE EXDATE on a timed series takes out its day). */
function exclusions(
  ctx: Context,
  master: Component,
  shape: Shape,
  named: string,
): { instants: Set<number>; days: Set<number> } {
  const instants = new Set<number>();
  const days = new Set<number>();
  for (const prop of master.getAllProperties('exdate')) {
    for (const raw of prop.jCal.slice(3)) {
      const value = readDate(raw);
      if (typeof value === 'string') {
        ctx.problems.push(`${named}: its EXDATE ${value}; that exception is ignored.`);
        continue;
      }
      if (value.untyped) nameOnce(ctx, `${named}: its EXDATE ${untypedDate(value)}.`);
      if (shape.allDay) {
        const local = value.isDate ? value.local : localOf(ctx, prop, value, shape, named);
        instants.add(resolveWallClock(dayOf(local), shape.offset));
      } else if (value.isDate) days.add(value.local);
      else instants.add(instantOf(ctx, prop, value, named, shape.offset));
    }
  }
  return { instants, days };
}

/** The RDATEs: dates, date-times (in any zone) and periods (start/end, start/duration). */
function additions(ctx: Context, master: Component, shape: Shape, named: string): ExtraDate[] {
  const out: ExtraDate[] = [];
  const time = shape.start.local - dayOf(shape.start.local);
  for (const prop of master.getAllProperties('rdate')) {
    for (const raw of prop.jCal.slice(3)) {
      const [startRaw, endRaw] = Array.isArray(raw) ? raw : [raw, undefined];
      const value = readDate(startRaw);
      if (typeof value === 'string') {
        ctx.problems.push(`${named}: its RDATE ${value}; that instance is left out.`);
        continue;
      }
      if (value.untyped) nameOnce(ctx, `${named}: its RDATE ${untypedDate(value)}.`);
      let local: number;
      let at: number;
      if (shape.allDay) {
        local = dayOf(value.isDate ? value.local : localOf(ctx, prop, value, shape, named));
        at = resolveWallClock(local, shape.offset);
      } else if (value.isDate) {
        // a date beside a timed DTSTART: that day at DTSTART's time
        local = value.local + time;
        at = resolveWallClock(local, shape.offset);
      } else {
        at = instantOf(ctx, prop, value, named, shape.offset);
        local = at + shape.offset(at);
      }
      const date: ExtraDate = { local, at };
      if (endRaw !== undefined) {
        const end = periodEnd(ctx, prop, String(endRaw), at, named, shape);
        if (typeof end === 'string') {
          const written = `${startRaw}/${endRaw}`.replace(/[-:]/g, '');
          ctx.problems.push(`${named}: its RDATE period ${quoteShort(written, 60)} ${end}; that instance is left out.`);
          continue;
        }
        date.end = end;
      }
      out.push(date);
    }
  }
  return out;
}

/** The end instant of an RDATE PERIOD (an end, or a duration from its start), or a sentence fragment. */
function periodEnd(
  ctx: Context,
  prop: Property,
  raw: string,
  at: number,
  named: string,
  shape: Shape,
): number | string {
  if (/^[+-]?P/i.test(raw)) {
    let seconds: number;
    try {
      seconds = ctx.ICAL.Duration.fromString(raw).toSeconds();
    } catch {
      return 'has no valid duration';
    }
    return seconds > 0 ? at + seconds * 1000 : 'ends before it starts';
  }
  const end = readDate(raw);
  if (typeof end === 'string') return `ends at ${end}`;
  const endAt = instantOf(ctx, prop, end, named, shape.offset);
  return endAt > at ? endAt : 'ends before it starts';
}

/** Adds an occurrence when it overlaps the range and matches; false when the calendar's budget is spent. */
function push(ctx: Context, uid: string, event: Component, id: string, start: number, end: number): boolean {
  const { opts } = ctx;
  if (!overlaps(start, end, opts.from.getTime(), opts.to.getTime())) return true;
  const title = textOf(event, 'summary');
  if (ctx.match.title && !ctx.match.title.test(title ?? '')) return true;
  if (ctx.budget.left <= 0) {
    if (!ctx.budget.warned) {
      ctx.budget.warned = true;
      ctx.problems.push(
        `The calendar has more than ${opts.maxOccurrences ?? 50_000} occurrences in range; the rest, from event ${quoteShort(uid)} on, are left out.`,
      );
    }
    return false;
  }
  ctx.budget.left--;
  const s = new Date(start);
  const e = new Date(end);
  const details: Occurrence['details'] = {};
  const description = textOf(event, 'description');
  const location = textOf(event, 'location');
  const categories = event
    .getAllProperties('categories')
    .flatMap((p) => p.getValues() as unknown[])
    .map(String)
    .filter((c) => c !== '');
  if (description !== undefined) details.description = description;
  if (location !== undefined) details.location = location;
  if (categories.length > 0) details.categories = categories;
  ctx.occurrences.push({
    id,
    windowId: opts.windowId,
    start: s,
    end: e,
    revision: revisionOf(s, e, title),
    ...(title !== undefined ? { title } : {}),
    ...(Object.keys(details).length > 0 ? { details } : {}),
  });
  return true;
}

function textOf(event: Component, name: string): string | undefined {
  const value = event.getFirstPropertyValue(name);
  return value === null || value === undefined ? undefined : String(value);
}

function isCancelled(event: Component): boolean {
  return String(event.getFirstPropertyValue('status') ?? '').toUpperCase() === 'CANCELLED';
}

function sequenceOf(event: Component): number {
  const value = Number(event.getFirstPropertyValue('sequence'));
  return Number.isFinite(value) ? value : 0;
}

/** A DTSTART, DTEND or RECURRENCE-ID value read strictly; undefined (named) when it is no date. */
function readProp(ctx: Context, prop: Property | null | undefined, named: string): IcalDate | undefined {
  if (!prop) return undefined;
  const value = readDate(prop.jCal[3]);
  if (typeof value !== 'string') {
    if (value.untyped) nameOnce(ctx, `${named}: its ${prop.name.toUpperCase()} ${untypedDate(value)}.`);
    return value;
  }
  nameOnce(ctx, `${named}: its ${prop.name.toUpperCase()} ${value}; it is left out.`);
  return undefined;
}

/** A problem said once per read, however many times the value is looked at. */
function nameOnce(ctx: Context, sentence: string): void {
  if (ctx.named.has(sentence)) return;
  ctx.named.add(sentence);
  ctx.problems.push(sentence);
}

function untypedDate(value: IcalDate): string {
  return `${isoSeconds(value.local).slice(0, 10)} is a date where a date-time is due (no VALUE=DATE); it is read as that date`;
}

/**
 * The start instant of the instance an override replaces. In an all-day series that is a day,
 * whatever the RECURRENCE-ID is written as: Exchange writes a DATE-TIME, midnight in the
 * organiser's zone (or that midnight in UTC); it names the day nearest to it.
 */
function ridOf(
  ctx: Context,
  prop: Property,
  masterStart: IcalDate | undefined,
  masterShape: Shape | undefined,
  named: string,
): number | undefined {
  const value = readProp(ctx, prop, named);
  if (!value) return undefined;
  const seriesOffset = masterShape?.offset ?? ctx.windowOffset;
  if (masterStart?.isDate) {
    if (value.isDate) return resolveWallClock(value.local, ctx.windowOffset);
    const local = value.utc ? value.local + ctx.windowOffset(value.local) : value.local;
    return resolveWallClock(Math.round(local / DAY) * DAY, ctx.windowOffset);
  }
  if (value.isDate && masterStart) {
    return resolveWallClock(value.local + (masterStart.local - dayOf(masterStart.local)), seriesOffset);
  }
  return instantOf(ctx, prop, value, named, seriesOffset);
}

/** The instant of a value: a date at midnight in the window's zone, else in its zone (`fallback` when unknown). */
function instantOf(ctx: Context, prop: Property, value: IcalDate, named: string, fallback?: OffsetAt): number {
  const offset = value.isDate ? ctx.windowOffset : zoneOf(ctx, prop, value, fallback ?? ctx.windowOffset, named);
  return resolveWallClock(value.local, offset);
}

/** A value's wall-clock time in the series' zone (for a value written in another zone or UTC). */
function localOf(ctx: Context, prop: Property, value: IcalDate, shape: Shape, named: string): number {
  const at = instantOf(ctx, prop, value, named, shape.offset);
  return at + shape.offset(at);
}

const UTC: OffsetAt = () => 0;

/**
 * The zone a date-time is written in: UTC (Z), its TZID (ical-zones.ts), or floating (the window's
 * zone). A TZID that names no zone is read in `fallback` (the window's zone, or for an exception the
 * series' zone), and named once per event.
 */
function zoneOf(ctx: Context, prop: Property, value: IcalDate, fallback: OffsetAt, named: string): OffsetAt {
  if (value.utc) return UTC;
  const tzid = prop.getParameter('tzid');
  if (typeof tzid !== 'string' || tzid === '') return ctx.windowOffset; // floating: the window's zone
  const reading = zoneOfTzid(tzid, ctx.zones);
  const key = `${named}\n${tzid}`;
  if (reading && !reading.note) return reading.offset;
  if (!ctx.named.has(key)) {
    ctx.named.add(key);
    const where = fallback === ctx.windowOffset ? `in the window's zone (${ctx.opts.zone})` : "in the series' zone";
    ctx.problems.push(
      reading
        ? `${named}: its ${prop.name.toUpperCase()} names the time zone ${quoteShort(tzid)}, which the calendar does not define; it is read ${reading.note}.`
        : `${named}: its ${prop.name.toUpperCase()} names the time zone ${quoteShort(tzid)}, which the calendar does not define and is no IANA or Windows zone; it is read ${where}.`,
    );
  }
  return reading?.offset ?? fallback;
}

/** The wall-clock fields of an ical.js time as local milliseconds. */
function wallClock(t: Time): number {
  return Date.UTC(t.year, t.month - 1, t.day, t.hour, t.minute, t.second);
}

function nameOf(uid: string, event: Component | undefined, text?: string): string {
  const summary = event?.getFirstPropertyValue('summary') ?? text;
  return summary === null || summary === undefined || summary === ''
    ? `Event ${quoteShort(uid)}`
    : `Event ${quoteShort(String(summary))} (UID ${quoteShort(uid)})`;
}

function messageOf(error: unknown): string {
  const text = error instanceof Error ? error.message : String(error);
  return text.replace(/[.\s]+$/, '');
}

/**
 * ical.js's error without the line it quotes ('invalid line (no token ";" or
 * ":") "…"', "Invalid parameters in '…'"): a line that is no property is
 * not quoted on. A property's value it names ('invalid frequency "…"') stays.
 */
function parseKind(error: unknown): string {
  const message = messageOf(error);
  if (!/^invalid line\b|\sin\s+["']/i.test(message)) return message;
  return message.replace(/^(invalid line \([^)]*\)|[^"']*?)\s*(?:in\s+)?["'][\s\S]*$/, '$1');
}

/**
 * Why a calendar as a whole cannot be read, as the kind of problem: ical.js
 * quotes the line it failed on ('invalid line (no token ";" or ":") "…"'),
 * and no message quotes a feed's body (what a feed server answers may be what
 * only this host can reach), so the quote is cut and named by its line number
 * where the text has it verbatim.
 */
function parseFailure(error: unknown, text: string): string {
  const message = messageOf(error);
  const kind = parseKind(error);
  if (kind === message) return `The calendar cannot be read: ${kind}.`;
  const quoted = message.slice(kind.length).replace(/^\s*(?:in\s+)?["']|["']$/g, '');
  const line = quoted === '' ? -1 : text.split(/\r?\n/).indexOf(quoted);
  return `The calendar cannot be read: ${kind}${line < 0 ? '' : ` at line ${line + 1}`}.`;
}

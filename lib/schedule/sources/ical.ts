import type ICALNamespace from 'ical.js';
import { quoteShort } from '../../quote';
import { DAY, HOUR, isoSeconds } from '../tz';
import { compileMatch, overlaps, type TitlePattern } from './match';
import { byStart, type Occurrence, revisionOf, type SourceResult } from './occurrence';
import { Problems } from './problems';
import { ianaOffset, ianaZoneOf, type OffsetAt, resolveWallClock } from './wall-clock';

type ICAL = typeof ICALNamespace;
type Component = InstanceType<ICAL['Component']>;
type Property = InstanceType<ICAL['Property']>;
type Time = InstanceType<ICAL['Time']>;

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
  /** ms: the length of a timed event that has neither DTEND nor DURATION */
  defaultDuration?: number;
  /** recurrences looked at per event before giving up on it (default 100,000) */
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
 */
export function expandCalendar(text: string, opts: CalendarOptions): SourceResult {
  const problems = new Problems();
  try {
    const match = compileMatch(opts.match);
    if (typeof match === 'string') return failed(match);
    const notCalendar = checkEnvelope(text);
    if (notCalendar) return failed(notCalendar);
    const ICAL = loadIcal();
    let parsed: unknown[];
    try {
      parsed = ICAL.parse(text) as unknown[];
    } catch (error) {
      const kept = withoutUnreadableEvents(ICAL, text, problems);
      if (kept === undefined) return failed(parseFailure(error, text));
      parsed = kept;
    }
    const roots = (Array.isArray(parsed[0]) ? parsed : [parsed]) as unknown[];
    const occurrences: Occurrence[] = [];
    const budget = { left: opts.maxOccurrences ?? 50_000, warned: false };
    for (const root of roots) {
      const calendar = new ICAL.Component(root as never);
      const ctx: Context = { ICAL, opts, match, zones: timezones(ICAL, calendar), problems, occurrences, budget };
      for (const [uid, group] of groupByUid(calendar)) expandEvent(ctx, uid, group);
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
  problems: Problems;
  occurrences: Occurrence[];
  budget: { left: number; warned: boolean };
}

interface EventGroup {
  master?: Component;
  overrides: Component[];
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

/**
 * ical.js reads a whole text or nothing (an RRULE it cannot read fails the
 * parse): when the whole fails, each event is read on its own, and the
 * calendar is read again without the events that fail, each named. Undefined
 * when the failure is outside the events.
 */
function withoutUnreadableEvents(ICAL: ICAL, text: string, problems: Problems): unknown[] | undefined {
  const lines = text.split(/\r?\n/);
  const kept: string[] = [];
  let block: string[] | undefined;
  let dropped = 0;
  for (const line of lines) {
    if (block === undefined && /^BEGIN:VEVENT\s*$/i.test(line)) block = [];
    if (block === undefined) {
      kept.push(line);
      continue;
    }
    block.push(line);
    if (!/^END:VEVENT\s*$/i.test(line)) continue;
    try {
      ICAL.parse(`BEGIN:VCALENDAR\r\n${block.join('\r\n')}\r\nEND:VCALENDAR\r\n`);
      kept.push(...block);
    } catch (error) {
      dropped++;
      const field = (name: string) =>
        new RegExp(`^${name}(?:;[^:\\r\\n]*)?:(.*)$`, 'im').exec(block?.join('\n') ?? '')?.[1];
      const uid = field('UID') ?? '?';
      // the line ical.js quotes is not quoted on (see parseFailure)
      problems.push(`${nameOf(uid, undefined, field('SUMMARY'))} is left out: ${parseKind(error)}.`);
    }
    block = undefined;
  }
  if (dropped === 0) return undefined;
  try {
    return ICAL.parse(kept.join('\r\n')) as unknown[];
  } catch {
    return undefined;
  }
}

/** The calendar's own VTIMEZONE definitions by TZID: they take precedence over IANA names (RFC 5545 3.2.19). */
function timezones(ICAL: ICAL, calendar: Component): Map<string, OffsetAt> {
  const zones = new Map<string, OffsetAt>();
  for (const comp of calendar.getAllSubcomponents('vtimezone')) {
    const tzid = comp.getFirstPropertyValue('tzid');
    if (typeof tzid !== 'string') continue;
    const zone = new ICAL.Timezone(comp);
    zones.set(tzid, (instant) => {
      const utc = ICAL.Time.fromJSDate(new Date(instant), true);
      const local = utc.convertToZone(zone);
      return wallClock(local) - Math.floor(instant / 1000) * 1000;
    });
  }
  return zones;
}

function groupByUid(calendar: Component): Map<string, EventGroup> {
  const groups = new Map<string, EventGroup>();
  calendar.getAllSubcomponents('vevent').forEach((event, index) => {
    const uid = String(event.getFirstPropertyValue('uid') ?? `event-${index + 1}`);
    let group = groups.get(uid);
    if (!group) {
      group = { overrides: [] };
      groups.set(uid, group);
    }
    if (event.hasProperty('recurrence-id')) group.overrides.push(event);
    else if (group.master)
      group.overrides.push(event); // a second master: read like an override (it is a problem below)
    else group.master = event;
  });
  return groups;
}

function expandEvent(ctx: Context, uid: string, group: EventGroup): void {
  const named = nameOf(uid, group.master ?? group.overrides[0]);
  try {
    const master = group.master;
    if (master && isCancelled(master)) return; // the whole series, overrides included
    const overridden = new Set<number>();
    const ranges: RangeOverride[] = [];
    for (const override of group.overrides) {
      const recurrenceId = override.getFirstProperty('recurrence-id');
      if (!recurrenceId) {
        ctx.problems.push(`${named} appears twice without RECURRENCE-ID; the second is left out.`);
        continue;
      }
      const rid = instantOf(ctx, recurrenceId);
      overridden.add(rid);
      const cancelled = isCancelled(override);
      const shape = cancelled ? undefined : shapeOf(ctx, override, master, named);
      if (String(recurrenceId.getParameter('range') ?? '').toUpperCase() === 'THISANDFUTURE') {
        const start = (override.getFirstPropertyValue('dtstart') ?? recurrenceId.getFirstValue()) as Time;
        const shift = wallClock(start) - wallClock(recurrenceId.getFirstValue() as Time);
        ranges.push({ ridAt: rid, shift, shape, event: override, cancelled });
      }
      if (shape) emitOne(ctx, uid, override, shape, `${uid}/${isoSeconds(rid)}`);
    }
    ranges.sort((a, b) => a.ridAt - b.ridAt);
    if (!master) return;
    const shape = shapeOf(ctx, master, undefined, named);
    if (!shape) return;
    const recurring = master.hasProperty('rrule') || master.hasProperty('rdate');
    if (!recurring) {
      emitOne(ctx, uid, master, shape, uid);
      return;
    }
    expandSeries(ctx, uid, master, shape, { overridden, ranges }, named);
  } catch (error) {
    ctx.problems.push(`${named} is left out: ${messageOf(error)}.`);
  }
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
  allDay: boolean;
  offset: OffsetAt;
  end: (startLocal: number, start: number) => number;
  /** an upper bound of the length, in ms, to skip instances long before the range */
  longest: number;
}

function shapeOf(ctx: Context, event: Component, master: Component | undefined, named: string): Shape | undefined {
  const dtstart = event.getFirstProperty('dtstart') ?? master?.getFirstProperty('dtstart');
  if (!dtstart) {
    ctx.problems.push(`${named} has no DTSTART; it is left out.`);
    return undefined;
  }
  const start = dtstart.getFirstValue() as Time;
  if (start.isDate && !ctx.opts.allDay) return undefined;
  const offset = start.isDate ? ianaOffset(ctx.opts.zone) : offsetOf(ctx, dtstart);
  // an override without an end of its own lasts as long as its series: the series' end less the series' start
  const source = event.hasProperty('dtend') || event.hasProperty('duration') || !master ? event : master;
  const sourceStart = source === event ? dtstart : (master?.getFirstProperty('dtstart') ?? dtstart);
  const dtend = source.getFirstProperty('dtend');
  const duration = source.getFirstPropertyValue('duration') as InstanceType<ICAL['Duration']> | null;
  if (dtend) {
    const end = dtend.getFirstValue() as Time;
    if (start.isDate) {
      const days = Math.round((wallClock(end) - wallClock(sourceStart.getFirstValue() as Time)) / DAY);
      return positive(ctx, named, days * DAY, allDayShape(offset, days));
    }
    const length = instantOf(ctx, dtend) - instantOf(ctx, sourceStart);
    return positive(ctx, named, length, { allDay: false, offset, end: (_l, s) => s + length, longest: length });
  }
  if (duration) {
    if (duration.isNegative) {
      ctx.problems.push(`${named} has a negative DURATION; it is left out.`);
      return undefined;
    }
    // days and weeks are nominal (wall-clock days, 23 or 25 h across a change of clocks); the rest is exact
    const days = duration.weeks * 7 + duration.days;
    const exact = ((duration.hours * 60 + duration.minutes) * 60 + duration.seconds) * 1000;
    if (start.isDate) return positive(ctx, named, Math.max(days, 1) * DAY, allDayShape(offset, Math.max(days, 1)));
    const end = (local: number, s: number) => (days > 0 ? resolveWallClock(local + days * DAY, offset) : s) + exact;
    return positive(ctx, named, days * DAY + exact, { allDay: false, offset, end, longest: days * DAY + exact + DAY });
  }
  if (start.isDate) return allDayShape(offset, 1);
  const fallback = ctx.opts.defaultDuration;
  if (!fallback) {
    ctx.problems.push(`${named} has no DTEND or DURATION and the window has no default duration; it is left out.`);
    return undefined;
  }
  return { allDay: false, offset, end: (_l, s) => s + fallback, longest: fallback };
}

function allDayShape(offset: OffsetAt, days: number): Shape {
  return {
    allDay: true,
    offset,
    end: (local) => resolveWallClock(local + days * DAY, offset),
    longest: (days + 1) * DAY,
  };
}

function positive(ctx: Context, named: string, length: number, shape: Shape): Shape | undefined {
  if (length > 0) return shape;
  ctx.problems.push(`${named} ends before it starts (DTEND or DURATION); it is left out.`);
  return undefined;
}

function emitOne(ctx: Context, uid: string, event: Component, shape: Shape, id: string): void {
  const start = event.getFirstPropertyValue('dtstart') as Time | null;
  if (!start) return;
  const local = wallClock(start);
  const at = resolveWallClock(local, shape.offset);
  push(ctx, uid, event, id, at, shape.end(local, at));
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
  const excluded = new Set<number>();
  for (const prop of master.getAllProperties('exdate')) {
    for (const value of prop.getValues() as Time[]) {
      excluded.add(resolveWallClock(wallClock(value), value.isDate ? shape.offset : zoneOfValue(ctx, prop, value)));
    }
  }
  const rule = master.getFirstPropertyValue('rrule') as InstanceType<ICAL['Recur']> | null;
  const months = rule?.parts.BYMONTH as number[] | undefined;
  const start = master.getFirstPropertyValue('dtstart') as Time;
  const zoneKnownToIcal = start.zone !== undefined && start.zone !== null && start.zone.tzid !== 'floating';
  if (rule?.until && !rule.until.isDate && rule.until.zone?.tzid === 'UTC' && !zoneKnownToIcal) {
    // ical.js compares a UTC UNTIL with the wall-clock times of a zone it does not know as if they were UTC:
    // UNTIL is turned into the wall-clock time of the series' zone first, so the last instance stays in
    const until = wallClock(rule.until);
    const local = new Date(until + shape.offset(until));
    rule.until = ICAL.Time.fromData({
      year: local.getUTCFullYear(),
      month: local.getUTCMonth() + 1,
      day: local.getUTCDate(),
      hour: local.getUTCHours(),
      minute: local.getUTCMinutes(),
      second: local.getUTCSeconds(),
      isDate: false,
    });
  }
  const expansion = new ICAL.Event(master).iterator();
  const limit = opts.maxIterations ?? 100_000;
  let first = true;
  for (let n = 0; ; n++) {
    if (n >= limit) {
      ctx.problems.push(
        `${named} recurs more than ${limit} times before the end of the range; its later instances are left out.`,
      );
      return;
    }
    const time = expansion.next() as Time | undefined;
    if (!time) return;
    const local = wallClock(time);
    if (local - slack >= to) return;
    // ical.js rolls an impossible date over (30 February becomes 2 March): not an instance of the rule
    const rolledOver = !first && months !== undefined && months.length > 0 && !months.includes(time.month);
    first = false;
    if (rolledOver || local + shape.longest + slack <= from) continue;
    // an RDATE in UTC beside a DTSTART in a zone is yielded in UTC
    const at = time.zone?.tzid === 'UTC' ? local : resolveWallClock(local, shape.offset);
    if (at >= to && ranges.length === 0) return;
    if (overridden.has(at) || excluded.has(at)) continue;
    const id = `${uid}/${isoSeconds(at)}`;
    const range = ranges.findLast((r) => r.ridAt < at);
    if (range) {
      if (range.cancelled || !range.shape) continue;
      const movedLocal = local + range.shift;
      const movedAt = resolveWallClock(movedLocal, range.shape.offset);
      if (!push(ctx, uid, range.event, id, movedAt, range.shape.end(movedLocal, movedAt))) return;
      continue;
    }
    if (!push(ctx, uid, master, id, at, shape.end(local, at))) return;
  }
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

/** The instant of a DTSTART, DTEND or RECURRENCE-ID (its first value). */
function instantOf(ctx: Context, prop: Property): number {
  const value = prop.getFirstValue() as Time;
  const offset = value.isDate ? ianaOffset(ctx.opts.zone) : zoneOfValue(ctx, prop, value);
  return resolveWallClock(wallClock(value), offset);
}

function offsetOf(ctx: Context, prop: Property): OffsetAt {
  return zoneOfValue(ctx, prop, prop.getFirstValue() as Time);
}

const UTC: OffsetAt = () => 0;

/** The zone a date-time is written in: UTC (Z), the TZID (the calendar's VTIMEZONE, else an IANA name), or floating. */
function zoneOfValue(ctx: Context, prop: Property, value: Time): OffsetAt {
  if (value.zone?.tzid === 'UTC' || value.toString().endsWith('Z')) return UTC;
  const tzid = prop.getParameter('tzid');
  if (typeof tzid !== 'string' || tzid === '') return ianaOffset(ctx.opts.zone); // floating: the window's zone
  const own = ctx.zones.get(tzid);
  if (own) return own;
  const iana = ianaZoneOf(tzid);
  if (iana) return ianaOffset(iana);
  throw new Error(
    `its ${prop.name.toUpperCase()} names the time zone ${quoteShort(tzid)}, which the calendar does not define and is no IANA zone`,
  );
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

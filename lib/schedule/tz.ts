/**
 * Wall-clock arithmetic in IANA time zones with nothing but `Intl`.
 *
 * A local time is handled as "local milliseconds": the wall-clock fields
 * encoded with `Date.UTC`, so that plain arithmetic walks the calendar; it is
 * turned into an instant with {@link resolveLocal}, which applies the
 * daylight-saving rule of the schedule:
 * - a wall-clock time that happens twice (the repeated hour when clocks go
 *   back) resolves to its first occurrence;
 * - a wall-clock time that never happens (the gap when clocks go forward)
 *   resolves to the first instant after the gap.
 */

export const SECOND = 1000;
export const MINUTE = 60 * SECOND;
export const HOUR = 60 * MINUTE;
export const DAY = 24 * HOUR;

export interface LocalParts {
  year: number;
  month: number; // 1-12
  day: number; // 1-31
  hour: number; // 0-23
  minute: number;
  second: number;
  /** 0 = Sunday ... 6 = Saturday */
  weekday: number;
}

const formatters = new Map<string, Intl.DateTimeFormat>();

function formatter(timeZone: string): Intl.DateTimeFormat {
  let f = formatters.get(timeZone);
  if (!f) {
    f = new Intl.DateTimeFormat('en-US', {
      timeZone,
      hourCycle: 'h23',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
      second: 'numeric',
    });
    formatters.set(timeZone, f);
  }
  return f;
}

/** True when `Intl` knows the IANA zone name (e.g. `Europe/London`, `UTC`). */
export function isValidTimeZone(timeZone: unknown): timeZone is string {
  if (typeof timeZone !== 'string' || timeZone.trim() === '') return false;
  try {
    formatter(timeZone);
    return true;
  } catch {
    return false;
  }
}

/** The canonical spelling of a zone name as `Intl` reports it (`europe/london` -> `Europe/London`). */
export function canonicalTimeZone(timeZone: string): string {
  return formatter(timeZone).resolvedOptions().timeZone;
}

/** The zone of the machine, `UTC` when it has none. */
export function systemTimeZone(): string {
  try {
    return Intl.DateTimeFormat().resolvedOptions().timeZone || 'UTC';
  } catch {
    return 'UTC';
  }
}

/**
 * Wall-clock fields already read, by zone and whole second. `formatToParts` is the
 * costly step of every cron and offset computation, and the schedules that start
 * at one instant all ask for the same few seconds (a next start, the offsets a day
 * either side of it): with fifty windows opening at the same second, reading them
 * once each was most of the time each start took (bench/top-of-hour.mjs).
 */
const partsRead = new Map<string, LocalParts>();
const PARTS_KEPT = 4096;

/** The wall-clock fields of an instant in a zone. */
export function localParts(instant: number, timeZone: string): LocalParts {
  const second = Math.floor(instant / SECOND);
  const key = `${timeZone} ${second}`;
  const known = partsRead.get(key);
  if (known) return known;
  const parts = Object.freeze(
    timeZone === 'UTC' ? utcParts(second * SECOND) : formattedParts(second * SECOND, timeZone),
  );
  if (partsRead.size >= PARTS_KEPT) partsRead.clear();
  partsRead.set(key, parts);
  return parts;
}

/** UTC needs no zone rules (its canonical name only: an alias goes through Intl like any other zone). */
function utcParts(instant: number): LocalParts {
  const d = new Date(instant);
  return {
    year: d.getUTCFullYear(),
    month: d.getUTCMonth() + 1,
    day: d.getUTCDate(),
    hour: d.getUTCHours(),
    minute: d.getUTCMinutes(),
    second: d.getUTCSeconds(),
    weekday: d.getUTCDay(),
  };
}

function formattedParts(instant: number, timeZone: string): LocalParts {
  const parts = formatter(timeZone).formatToParts(new Date(instant));
  const get = (type: string): number => {
    const p = parts.find((x) => x.type === type);
    return p ? Number.parseInt(p.value, 10) : 0;
  };
  const year = get('year');
  const month = get('month');
  const day = get('day');
  let hour = get('hour');
  if (hour === 24) hour = 0;
  return {
    year,
    month,
    day,
    hour,
    minute: get('minute'),
    second: get('second'),
    weekday: new Date(Date.UTC(year, month - 1, day)).getUTCDay(),
  };
}

/** Wall-clock fields as local milliseconds. */
export function localMs(p: Pick<LocalParts, 'year' | 'month' | 'day' | 'hour' | 'minute' | 'second'>): number {
  return Date.UTC(p.year, p.month - 1, p.day, p.hour, p.minute, p.second);
}

/** The instant as local milliseconds in the zone (seconds precision). */
export function toLocalMs(instant: number, timeZone: string): number {
  return localMs(localParts(instant, timeZone));
}

/** The zone's UTC offset at an instant, in milliseconds (local minus UTC). */
export function offsetAt(instant: number, timeZone: string): number {
  const whole = Math.floor(instant / SECOND) * SECOND;
  return toLocalMs(whole, timeZone) - whole;
}

export type Resolution = 'exact' | 'repeated' | 'gap';

/**
 * The instant of a wall-clock time in a zone: the first occurrence when the
 * time happens twice, the first instant after the gap when it never happens.
 */
export function resolveLocal(local: number, timeZone: string): { instant: number; kind: Resolution } {
  const before = offsetAt(local - DAY, timeZone);
  const after = offsetAt(local + DAY, timeZone);
  const here = offsetAt(local, timeZone);
  const valid: number[] = [];
  for (const offset of new Set([before, here, after])) {
    const t = local - offset;
    if (t + offsetAt(t, timeZone) === local) valid.push(t);
  }
  if (valid.length > 0) {
    const distinct = [...new Set(valid)].sort((a, b) => a - b);
    return { instant: distinct[0], kind: distinct.length > 1 ? 'repeated' : 'exact' };
  }
  // In a gap: the transition lies between the two readings of the wall clock.
  // Find the first whole second whose offset is the one after the transition.
  let lo = Math.floor((local - Math.max(before, after, here)) / SECOND); // still before the jump
  let hi = Math.ceil((local - Math.min(before, after, here)) / SECOND); // already after it
  const startOffset = offsetAt(lo * SECOND, timeZone);
  while (hi - lo > 1) {
    const mid = Math.floor((lo + hi) / 2);
    if (offsetAt(mid * SECOND, timeZone) === startOffset) lo = mid;
    else hi = mid;
  }
  return { instant: hi * SECOND, kind: 'gap' };
}

const WEEKDAYS_SHORT = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'];
const MONTHS_SHORT = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

const pad = (n: number, width = 2): string => String(n).padStart(width, '0');

/** `18:00` (or `18:00:30` when the seconds are not zero). */
export function formatTime(instant: number, timeZone: string): string {
  const p = localParts(instant, timeZone);
  return `${pad(p.hour)}:${pad(p.minute)}${p.second ? `:${pad(p.second)}` : ''}`;
}

/** `2024-11-22` in the zone. */
export function formatDate(instant: number, timeZone: string): string {
  const p = localParts(instant, timeZone);
  return `${pad(p.year, 4)}-${pad(p.month)}-${pad(p.day)}`;
}

/** `Fri 22 Nov 18:00` in the zone. */
export function formatShort(instant: number, timeZone: string): string {
  const p = localParts(instant, timeZone);
  return `${WEEKDAYS_SHORT[p.weekday]} ${p.day} ${MONTHS_SHORT[p.month - 1]} ${formatTime(instant, timeZone)}`;
}

/** ISO 8601 with the zone's offset: `2024-11-22T18:00:00+00:00`. */
export function formatLocalIso(instant: number, timeZone: string): string {
  const p = localParts(instant, timeZone);
  const offsetMin = Math.round(offsetAt(instant, timeZone) / MINUTE);
  const sign = offsetMin < 0 ? '-' : '+';
  const abs = Math.abs(offsetMin);
  return (
    `${pad(p.year, 4)}-${pad(p.month)}-${pad(p.day)}T${pad(p.hour)}:${pad(p.minute)}:${pad(p.second)}` +
    `${sign}${pad(Math.floor(abs / 60))}:${pad(abs % 60)}`
  );
}

/**
 * The texts isoSeconds gave, by second: a start names its slot's start and end a dozen times over (key,
 * message, transitions, sidebar), and 50 windows starting at one second share them.
 */
const isoWritten = new Map<number, string>();
const ISO_KEPT = 4096;

/** ISO 8601 in UTC without milliseconds: `2024-11-22T18:00:00Z`. */
export function isoSeconds(instant: number): string {
  const second = Math.floor(instant / SECOND);
  const known = isoWritten.get(second);
  if (known !== undefined) return known;
  const text = new Date(second * SECOND).toISOString().replace(/\.\d{3}Z$/, 'Z');
  if (isoWritten.size >= ISO_KEPT) isoWritten.clear();
  isoWritten.set(second, text);
  return text;
}

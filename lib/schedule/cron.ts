import { parse as cronParse, validateDetailed as cronValidate } from 'node-cron';
import { type CronFields, type CronPart, CronSyntaxError, FIELDS, type FieldDef, tokenizeCron } from './cron-syntax';
import { DAY, HOUR, localMs, localParts, offsetAt, resolveLocal } from './tz';

/**
 * Cron expressions in node-cron's syntax: 5 fields (minute hour day-of-month
 * month day-of-week) or 6 with a leading seconds field; `*`, `?`, lists,
 * ranges (`a-b`, wrapping ranges such as `fri-mon`), steps (`*\/n`, `a-b/n`),
 * month and weekday names, `L`, `L-n`, `nW`, `LW` in the day of month, `nL`
 * and `n#k` in the day of week (n a number or a name: `friL`, `fri#2`), and the nicknames @yearly, @annually,
 * @monthly, @weekly, @daily, @midnight, @hourly.
 *
 * An expression must pass both node-cron's own validation and a stricter
 * check of this module (which names the field and the value at fault); when
 * both the day of month and the day of week are restricted, a day must match
 * both, as in node-cron.
 *
 * Occurrences are computed here rather than by node-cron's timers, from the
 * fields node-cron parses, by walking wall-clock time in the window's zone,
 * so that a controlled clock can drive them and daylight saving follows the
 * rule of {@link resolveLocal}.
 */

export interface CronSpec {
  expression: string;
  hasSeconds: boolean;
  fields: CronFields;
}

export {
  type CronFields,
  type CronPart,
  CronSyntaxError,
  cronSyntaxError,
  tokenizeCron,
} from './cron-syntax';

/**
 * Why an expression is not valid, or undefined when it is. Both this module's
 * check and node-cron's `validateDetailed` must accept it.
 */
export function cronError(expression: unknown): string | undefined {
  if (typeof expression !== 'string') return 'the expression must be text';
  try {
    tokenizeCron(expression);
  } catch (err) {
    return err instanceof CronSyntaxError ? err.message : String(err);
  }
  const detailed = cronValidate(expression);
  if (!detailed.valid) {
    const first = detailed.errors[0];
    if (!first) return 'rejected by node-cron';
    if (/impossible/.test(first.message)) return `day of month ${first.value ?? ''} never occurs in the given month`;
    return first.message.replace(/ is a invalid /, ' is an invalid ');
  }
  return undefined;
}

/** Parses and checks an expression; throws CronSyntaxError with the reason. */
export function parseCron(expression: string): CronSpec {
  const error = cronError(expression);
  if (error) throw new CronSyntaxError(error);
  const tokens = tokenizeCron(expression);
  const parsed = cronParse(expression) as CronFields;
  return {
    expression: expression.trim(),
    hasSeconds: tokens.hasSeconds,
    fields: {
      second: [...parsed.second].sort((a, b) => a - b),
      minute: [...parsed.minute].sort((a, b) => a - b),
      hour: [...parsed.hour].sort((a, b) => a - b),
      dayOfMonth: [...parsed.dayOfMonth],
      month: [...parsed.month],
      dayOfWeek: [...parsed.dayOfWeek],
    },
  };
}

const specCache = new Map<string, CronSpec>();

/** parseCron with a cache (expressions are immutable). */
export function compileCron(expression: string): CronSpec {
  let spec = specCache.get(expression);
  if (!spec) {
    spec = parseCron(expression);
    if (specCache.size > 500) specCache.clear();
    specCache.set(expression, spec);
  }
  return spec;
}

// ------------------------------------------------------------ day matching (as node-cron)

function lastDayOfMonth(year: number, month: number): number {
  return new Date(Date.UTC(year, month, 0)).getUTCDate();
}

function weekdayOf(year: number, month: number, day: number): number {
  return new Date(Date.UTC(year, month - 1, day)).getUTCDay();
}

function nearestWeekday(year: number, month: number, target: number): number {
  const last = lastDayOfMonth(year, month);
  if (target < 1 || target > last) return -1;
  const wd = weekdayOf(year, month, target);
  if (wd === 6) return target === 1 ? target + 2 : target - 1;
  if (wd === 0) return target === last ? target - 2 : target + 1;
  return target;
}

function matchesDayOfMonth(field: (number | string)[], year: number, month: number, day: number): boolean {
  for (const value of field) {
    if (value === day) return true;
    if (typeof value !== 'string') continue;
    if (value === 'L' && day === lastDayOfMonth(year, month)) return true;
    const w = /^(\d{1,2}|L)W$/.exec(value);
    if (w) {
      const target = w[1] === 'L' ? lastDayOfMonth(year, month) : Number.parseInt(w[1], 10);
      if (nearestWeekday(year, month, target) === day) return true;
    }
    const off = /^L-(\d{1,2})$/.exec(value);
    if (off && lastDayOfMonth(year, month) - Number.parseInt(off[1], 10) === day) return true;
  }
  return false;
}

function matchesDayOfWeek(field: (number | string)[], year: number, month: number, day: number): boolean {
  const wd = weekdayOf(year, month, day);
  for (const value of field) {
    if (value === wd) return true;
    if (typeof value !== 'string') continue;
    const nth = /^([0-7])#([1-5])$/.exec(value);
    if (nth) {
      if (Number.parseInt(nth[1], 10) % 7 === wd && Math.floor((day - 1) / 7) + 1 === Number.parseInt(nth[2], 10)) {
        return true;
      }
      continue;
    }
    const last = /^([0-7])L$/i.exec(value);
    if (last && Number.parseInt(last[1], 10) % 7 === wd && day + 7 > lastDayOfMonth(year, month)) return true;
  }
  return false;
}

/** Whether a calendar day matches the month, day-of-month and day-of-week fields. */
export function matchesDay(spec: CronSpec, year: number, month: number, day: number): boolean {
  return (
    spec.fields.month.includes(month) &&
    matchesDayOfMonth(spec.fields.dayOfMonth, year, month, day) &&
    matchesDayOfWeek(spec.fields.dayOfWeek, year, month, day)
  );
}

// ------------------------------------------------------------ occurrences

/**
 * How far ahead to look for an occurrence. The rarest day a cron can name is
 * 29 February on a given weekday (`0 0 29 2 1`, or `1#5` / `1L` in February).
 * Within a century that recurs every 28 years, but a century year that is not
 * a leap year (2100, 2200, 2300) breaks the cycle: 29 February is a Monday in
 * 2072 and next in 2112, 40 years later (the longest gap in the 400-year
 * Gregorian cycle). 41 years covers that gap from any starting instant; an
 * expression with no occurrence in 41 years has none at all.
 */
const SEARCH_YEARS = 41;
const MAX_DAYS = 366 * SEARCH_YEARS;

/**
 * The first instant strictly after `after` at which the expression fires in
 * the zone, or null when there is none (none within {@link SEARCH_YEARS} years).
 *
 * Wall-clock times are walked in order; each is resolved to an instant with
 * {@link resolveLocal} (repeated hour: first occurrence; gap: first instant
 * after it). The resolved instants never decrease along the walk, and times
 * that resolve to the same instant count once, so a start inside a gap or a
 * repeated hour fires exactly once.
 */
export function nextOccurrence(spec: CronSpec, after: number, timeZone: string): number | null {
  const { second: seconds, minute: minutes, hour: hours } = spec.fields;
  // The smallest offset near `after`: a wall-clock time L cannot resolve to an
  // instant later than L - minOffset, so times with L - minOffset <= after are skipped
  // without resolving them.
  const minOffset = Math.min(
    offsetAt(after - 2 * DAY, timeZone),
    offsetAt(after, timeZone),
    offsetAt(after + 2 * DAY, timeZone),
  );
  const start = localParts(after - DAY, timeZone);
  // Wall-clock times before this one resolve to a gap's end that is not after `after`.
  let skipBelow = Number.NEGATIVE_INFINITY;
  let dayMs = Date.UTC(start.year, start.month - 1, start.day);
  const lastDayMs = dayMs + MAX_DAYS * DAY;
  for (; dayMs < lastDayMs; dayMs += DAY) {
    const d = new Date(dayMs);
    const year = d.getUTCFullYear();
    const month = d.getUTCMonth() + 1;
    const day = d.getUTCDate();
    if (!spec.fields.month.includes(month)) {
      // a month the expression never names is passed whole: a once-a-year start is found in a dozen
      // steps, not 365, and every window's next start is read again on each tick
      dayMs = Date.UTC(year, month, 1) - DAY;
      continue;
    }
    if (dayMs + DAY - minOffset <= after) continue;
    if (!matchesDay(spec, year, month, day)) continue;
    for (const hour of hours) {
      const hourMs = dayMs + hour * HOUR;
      if (hourMs + HOUR - minOffset <= after) continue;
      for (const minute of minutes) {
        for (const second of seconds) {
          const local = localMs({ year, month, day, hour, minute, second });
          if (local - minOffset <= after || local < skipBelow) continue;
          const { instant, kind } = resolveLocal(local, timeZone);
          if (instant > after) return instant;
          if (kind === 'gap') skipBelow = instant + offsetAt(instant, timeZone);
        }
      }
    }
  }
  return null;
}

/** The next `count` occurrences after `after`. */
export function nextOccurrences(spec: CronSpec, after: number, timeZone: string, count: number): number[] {
  const out: number[] = [];
  let cursor = after;
  while (out.length < count) {
    const next = nextOccurrence(spec, cursor, timeZone);
    if (next === null) break;
    out.push(next);
    cursor = next;
  }
  return out;
}

/** Occurrences in (from, to], at most `limit` of them (the latest ones are kept). */
export function occurrencesBetween(spec: CronSpec, from: number, to: number, timeZone: string, limit = 1000): number[] {
  const out: number[] = [];
  let cursor = from;
  for (;;) {
    const next = nextOccurrence(spec, cursor, timeZone);
    if (next === null || next > to) break;
    out.push(next);
    if (out.length > limit) out.shift();
    cursor = next;
  }
  return out;
}

// ------------------------------------------------------------ describing

const DAY_TITLES = ['Sunday', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday'];
const MONTH_TITLES = [
  'January',
  'February',
  'March',
  'April',
  'May',
  'June',
  'July',
  'August',
  'September',
  'October',
  'November',
  'December',
];
const ORDINALS = ['', 'first', 'second', 'third', 'fourth', 'fifth'];

const pad2 = (n: number): string => String(n).padStart(2, '0');

function joinWords(items: string[]): string {
  if (items.length <= 1) return items.join('');
  return `${items.slice(0, -1).join(', ')} and ${items[items.length - 1]}`;
}

function ordinal(n: number): string {
  const rem100 = n % 100;
  if (rem100 >= 11 && rem100 <= 13) return `${n}th`;
  return `${n}${['th', 'st', 'nd', 'rd'][n % 10] ?? 'th'}`;
}

function isAny(parts: CronPart[]): boolean {
  return parts.length === 1 && parts[0].kind === 'any';
}

function singleValue(parts: CronPart[]): number | undefined {
  return parts.length === 1 && parts[0].kind === 'value' ? parts[0].value : undefined;
}

/** The values of a field made of plain values and plain ranges, or undefined. */
function valueList(parts: CronPart[], def: FieldDef): number[] | undefined {
  const out: number[] = [];
  for (const p of parts) {
    if (p.kind === 'value') out.push(p.value);
    else if (p.kind === 'range' && p.step === 1 && p.from <= p.to) for (let v = p.from; v <= p.to; v++) out.push(v);
    else if (p.kind === 'every' || (p.kind === 'range' && p.from <= p.to)) {
      const from = p.kind === 'every' ? def.min : p.from;
      const to = p.kind === 'every' ? def.max : p.to;
      for (let v = from; v <= to; v += p.step) out.push(v);
    } else return undefined;
  }
  return [...new Set(out)].sort((a, b) => a - b);
}

function everyStep(parts: CronPart[]): number | undefined {
  return parts.length === 1 && parts[0].kind === 'every' ? parts[0].step : undefined;
}

function plural(n: number, unit: string): string {
  return n === 1 ? `every ${unit}` : `every ${n} ${unit}s`;
}

/** "between 09:00 and 17:59" for an hour field that is one plain range, else undefined. */
function hourSpan(parts: CronPart[]): string | undefined {
  if (parts.length === 1 && parts[0].kind === 'range' && parts[0].step === 1) {
    return `between ${pad2(parts[0].from)}:00 and ${pad2(parts[0].to)}:59`;
  }
  return undefined;
}

function describeTime(sec: CronPart[], min: CronPart[], hour: CronPart[]): string {
  const s = singleValue(sec);
  const m = singleValue(min);
  const secondsSuffix = s !== undefined && s !== 0 ? `:${pad2(s)}` : '';
  const minuteValues = valueList(min, FIELDS[1]);
  const hourValues = valueList(hour, FIELDS[2]);

  // sub-minute schedules
  if (s === undefined) {
    const step = everyStep(sec);
    const base = isAny(sec) ? 'every second' : step ? plural(step, 'second') : `at seconds ${listText(sec)}`;
    if (isAny(min) && isAny(hour)) return base;
    if (isAny(hour) && m !== undefined) return `${base} during minute ${m} of every hour`;
    return `${base} (minute ${listText(min)}, hour ${listText(hour)})`;
  }

  // fixed times of day
  if (minuteValues && hourValues && !isAny(hour) && everyStep(hour) === undefined) {
    const simpleMinutes = min.every((p) => p.kind === 'value');
    const simpleHours = hour.every((p) => p.kind === 'value');
    if (simpleMinutes && simpleHours && minuteValues.length * hourValues.length <= 6) {
      const times = hourValues.flatMap((h) => minuteValues.map((mm) => `${pad2(h)}:${pad2(mm)}${secondsSuffix}`));
      return `at ${joinWords(times)}`;
    }
  }

  const minuteStep = everyStep(min);
  const hourStep = everyStep(hour);
  const span = hourSpan(hour);
  if (isAny(min) || minuteStep) {
    const base = isAny(min) ? 'every minute' : plural(minuteStep as number, 'minute');
    if (isAny(hour)) return base;
    if (span) return `${base} ${span}`;
    if (hourValues) return `${base} during hour${hourValues.length > 1 ? 's' : ''} ${joinWords(hourValues.map(pad2))}`;
  }
  if (m !== undefined) {
    const at = m === 0 && !secondsSuffix ? '' : ` at minute ${m}${secondsSuffix ? ` second ${s}` : ''}`;
    if (isAny(hour)) return m === 0 && !secondsSuffix ? 'every hour' : `every hour${at}`;
    if (hourStep) return `${plural(hourStep, 'hour')}${at}`;
    if (span) return `every hour${at} ${span}`;
    if (hourValues) return `at ${joinWords(hourValues.map((h) => `${pad2(h)}:${pad2(m)}${secondsSuffix}`))}`;
  }
  return `at minute ${listText(min)} of hour ${listText(hour)}`;
}

function partText(p: CronPart, names?: string[], nameBase = 0): string {
  const name = (v: number): string => (names ? names[(v - nameBase) % names.length] : String(v));
  switch (p.kind) {
    case 'any':
      return 'every';
    case 'value':
      return name(p.value);
    case 'range':
      return `${name(p.from)} to ${name(p.to)}${p.step > 1 ? ` (every ${ordinal(p.step)})` : ''}`;
    case 'every':
      return `every ${ordinal(p.step)}`;
    case 'last':
      return 'the last day';
    case 'lastOffset':
      return `${p.offset} day${p.offset > 1 ? 's' : ''} before the last day`;
    case 'nearestWeekday':
      return p.day === 'L' ? 'the last weekday' : `the weekday nearest day ${p.day}`;
    case 'lastWeekday':
      return `the last ${DAY_TITLES[p.weekday]}`;
    case 'nth':
      return `the ${ORDINALS[p.nth]} ${DAY_TITLES[p.weekday]}`;
  }
}

function listText(parts: CronPart[], names?: string[], nameBase = 0): string {
  return joinWords(parts.map((p) => partText(p, names, nameBase)));
}

function describeDays(dom: CronPart[], dow: CronPart[]): string {
  const weekdays = dow.map((p) =>
    p.kind === 'value'
      ? { ...p, value: p.value % 7 }
      : p.kind === 'range'
        ? { ...p, from: p.from % 7, to: p.to % 7 }
        : p,
  );
  let dowText = '';
  if (!isAny(dow)) {
    const special = weekdays.every((p) => p.kind === 'nth' || p.kind === 'lastWeekday');
    if (special) dowText = `on ${listText(weekdays)} of the month`;
    else if (everyStep(weekdays) !== undefined) {
      const values = valueList(weekdays, { ...FIELDS[5], max: 6 }) ?? [];
      dowText = `on ${joinWords(values.map((v) => DAY_TITLES[v]))}`;
    } else dowText = `on ${listText(weekdays, DAY_TITLES)}`;
  }
  let domText = '';
  if (!isAny(dom)) {
    const plain = dom.every((p) => p.kind === 'value' || p.kind === 'range' || p.kind === 'every');
    if (plain) {
      const single = singleValue(dom);
      domText =
        single !== undefined
          ? `on day ${single} of the month`
          : `on days ${listText(dom).replace(/every (\d+\w\w)/, 'every $1 day')} of the month`;
    } else domText = `on ${listText(dom)} of the month`;
  }
  if (domText && dowText) return `${domText} if it is ${dowText.replace(/^on /, 'a ')}`;
  return domText || dowText;
}

function describeMonths(month: CronPart[]): string {
  if (isAny(month)) return '';
  const step = everyStep(month);
  if (step !== undefined) {
    const values = valueList(month, FIELDS[4]) ?? [];
    return `in ${joinWords(values.map((v) => MONTH_TITLES[v - 1]))}`;
  }
  return `in ${listText(month, MONTH_TITLES, 1)}`;
}

/**
 * The expression in words: "every day at 18:00", "at 06:30 on Monday to
 * Friday", "every 15 minutes". Throws CronSyntaxError for invalid input.
 */
export function describeCron(expression: string): string {
  const tokens = tokenizeCron(expression);
  const [sec, min, hour, dom, month, dow] = tokens.fields;
  const time = describeTime(sec, min, hour);
  const days = describeDays(dom, dow);
  const months = describeMonths(month);
  if (!days && !months) return time.startsWith('at ') ? `every day ${time}` : time;
  return [time, days, months].filter((s) => s !== '').join(' ');
}

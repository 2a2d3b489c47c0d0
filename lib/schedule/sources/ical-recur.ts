import type ICALNamespace from 'ical.js';
import { DAY, HOUR, MINUTE, SECOND } from '../tz';
import { daysInMonth } from './ical-values';

type ICAL = typeof ICALNamespace;
type Recur = InstanceType<ICAL['Recur']>;
type Time = InstanceType<ICAL['Time']>;

/**
 * The starts (local milliseconds, wall-clock) an RRULE gives from a DTSTART,
 * within [from, to] (local), as RFC 5545 reads them:
 * - DTSTART is always the first instance, and counts toward COUNT;
 * - a date that does not exist (29 February in 2025, 31 April) is no instance
 *   and does not count (3.3.10: "invalid date ... MUST be ignored");
 * - the cost does not grow with the series' age: the common rules (DAILY,
 *   WEEKLY with or without plain BYDAY, DAILY with plain BYDAY, MONTHLY and YEARLY on DTSTART's day,
 *   with INTERVAL, COUNT, UNTIL and for MONTHLY/YEARLY BYMONTH) are computed,
 *   the n-th instance by arithmetic; any other rule is expanded by ical.js,
 *   from a start moved forward by whole periods to just before `from` when it
 *   has no COUNT, and counted from DTSTART when it has (at most `limit` steps).
 */
export interface RuleWindow {
  /** local ms: instances before are not returned (but are counted) */
  from: number;
  /** local ms: instances after are not returned, and the expansion stops */
  to: number;
  /** ical.js steps at the most (rules expanded by ical.js only) */
  limit: number;
  /** false for the first start past UNTIL (checked here in local time, or by the caller in UTC) */
  within: (local: number) => boolean;
}

export interface RuleStarts {
  starts: number[];
  /** the expansion stopped at `limit` steps before reaching `to` */
  capped: boolean;
}

const PLAIN_DAY = /^(SU|MO|TU|WE|TH|FR|SA)$/;
const WEEKDAYS = ['SU', 'MO', 'TU', 'WE', 'TH', 'FR', 'SA'];

export function ruleStarts(
  ICAL: ICAL,
  rule: Recur,
  start: { local: number; isDate: boolean },
  w: RuleWindow,
): RuleStarts {
  const parts = Object.entries(rule.parts as Record<string, unknown[] | undefined>).filter(
    ([, v]) => Array.isArray(v) && v.length > 0,
  );
  const keys = parts.map(([k]) => k);
  const byDay = (rule.parts.BYDAY as string[] | undefined) ?? [];
  const count = rule.count ?? Number.POSITIVE_INFINITY;
  const interval = Math.max(1, rule.interval || 1);
  const out: number[] = [];
  const emit = (local: number, index: number): boolean => {
    if (index >= count || local > w.to || !w.within(local)) return false;
    if (local >= w.from) out.push(local);
    return true;
  };
  if (!emit(start.local, 0)) return { starts: out, capped: false };
  const only = (...allowed: string[]) => keys.every((k) => allowed.includes(k));
  if ((rule.freq === 'DAILY' && only()) || (rule.freq === 'WEEKLY' && only())) {
    const period = (rule.freq === 'DAILY' ? 1 : 7) * interval * DAY;
    const first = Math.max(1, Math.ceil((w.from - start.local) / period));
    for (let k = first; emit(start.local + k * period, k); k++);
    return { starts: out, capped: false };
  }
  // DAILY;BYDAY=MO,TU,WE,TH,FR (every day, those weekdays) is WEEKLY;BYDAY=MO,TU,WE,TH,FR
  const weekly = rule.freq === 'WEEKLY' || (rule.freq === 'DAILY' && interval === 1);
  if (weekly && only('BYDAY') && byDay.every((d) => PLAIN_DAY.test(d))) {
    weeklyByDay(rule, byDay, interval, start.local, w, emit);
    return { starts: out, capped: false };
  }
  if ((rule.freq === 'MONTHLY' || rule.freq === 'YEARLY') && only('BYMONTH')) {
    monthlyOrYearly(rule, interval, start.local, w, emit);
    return { starts: out, capped: false };
  }
  const capped = withIcal(ICAL, rule, start, interval, w, (local, index) => emit(local, index));
  return { starts: out, capped };
}

/** WEEKLY;BYDAY=MO,WE,FR: each period's days from its WKST, the n-th instance by arithmetic. */
function weeklyByDay(
  rule: Recur,
  byDay: string[],
  interval: number,
  l0: number,
  w: RuleWindow,
  emit: (local: number, index: number) => boolean,
): void {
  const wkst = (rule.wkst ?? 2) - 1; // ical.js: 1 = Sunday
  const day0 = Math.floor(l0 / DAY) * DAY;
  const time = l0 - day0;
  const weekStart = day0 - ((new Date(day0).getUTCDay() - wkst + 7) % 7) * DAY;
  const offsets = [...new Set(byDay.map((d) => (WEEKDAYS.indexOf(d) - wkst + 7) % 7))].sort((a, b) => a - b);
  const later = offsets.map((o) => weekStart + o * DAY + time).filter((l) => l > l0);
  let index = 1;
  for (const local of later) if (!emit(local, index++)) return;
  const period = 7 * interval * DAY;
  const first = Math.max(1, Math.floor((w.from - weekStart) / period));
  for (let p = first; ; p++) {
    const base = 1 + later.length + (p - 1) * offsets.length;
    for (let j = 0; j < offsets.length; j++) {
      if (!emit(weekStart + p * period + offsets[j] * DAY + time, base + j)) return;
    }
  }
}

/** MONTHLY or YEARLY on DTSTART's day of the month (and BYMONTH): months without that day are skipped, uncounted. */
function monthlyOrYearly(
  rule: Recur,
  interval: number,
  l0: number,
  w: RuleWindow,
  emit: (local: number, index: number) => boolean,
): void {
  const d = new Date(l0);
  const [y0, m0, day] = [d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate()];
  const time = l0 - Date.UTC(y0, m0, day);
  const byMonth = ((rule.parts.BYMONTH as number[] | undefined) ?? []).map((m) => m - 1);
  const yearly = rule.freq === 'YEARLY';
  const months = yearly ? (byMonth.length > 0 ? [...new Set(byMonth)].sort((a, b) => a - b) : [m0]) : [0];
  let index = 1;
  for (let p = 0; ; p++) {
    for (const month of months) {
      const [y, m] = yearly
        ? [y0 + p * interval, month]
        : [y0 + Math.floor((m0 + p * interval) / 12), (m0 + p * interval) % 12];
      const local = Date.UTC(y, m, 1) + time;
      if (local > w.to) return;
      if (!yearly && byMonth.length > 0 && !byMonth.includes(m)) continue;
      if (day > daysInMonth(y, m + 1)) continue;
      const at = local + (day - 1) * DAY;
      if (at <= l0) continue;
      if (!emit(at, index++)) return;
    }
  }
}

const PERIOD_MS: Record<string, number> = {
  DAILY: DAY,
  WEEKLY: 7 * DAY,
  HOURLY: HOUR,
  MINUTELY: MINUTE,
  SECONDLY: SECOND,
};

/**
 * Any other rule, by ical.js: COUNT and UNTIL are left to the caller (ical.js counts neither an
 * unsynchronised DTSTART nor, for a rule that takes its day from DTSTART, skip invalid dates), and
 * without COUNT the expansion starts a whole number of periods before `from`. True when capped.
 */
function withIcal(
  ICAL: ICAL,
  rule: Recur,
  start: { local: number; isDate: boolean },
  interval: number,
  w: RuleWindow,
  emit: (local: number, index: number) => boolean,
): boolean {
  const r = rule.clone();
  r.count = null as unknown as number;
  r.until = null as unknown as Time;
  const d = new Date(start.local);
  const parts = r.parts as Record<string, unknown[] | undefined>;
  const has = (...names: string[]) => names.some((n) => (parts[n]?.length ?? 0) > 0);
  // the day taken from DTSTART made explicit: ical.js then skips months without it instead of rolling over
  if ((r.freq === 'MONTHLY' || r.freq === 'YEARLY') && !has('BYDAY', 'BYMONTHDAY', 'BYYEARDAY', 'BYWEEKNO')) {
    r.parts.BYMONTHDAY = [d.getUTCDate()];
    if (r.freq === 'YEARLY' && !has('BYMONTH')) r.parts.BYMONTH = [d.getUTCMonth() + 1];
  }
  let anchor = start.local;
  if (rule.count === null || rule.count === undefined) anchor = movedAnchor(r.freq, interval, start.local, w.from);
  const time = ICAL.Time.fromData({
    ...fields(anchor),
    isDate: start.isDate,
  });
  const iterator = r.iterator(time);
  let index = 1;
  for (let n = 0; n < w.limit; n++) {
    const next = iterator.next() as Time | undefined;
    if (!next) return false;
    const local = Date.UTC(next.year, next.month - 1, next.day, next.hour, next.minute, next.second);
    if (local <= start.local) continue; // DTSTART (already given) or, from a moved start, long before `from`
    if (!keepsParts(next, parts)) continue; // a date ical.js rolled over (30 February as 1 or 2 March)
    if (!emit(local, index++)) return false;
  }
  return true;
}

/** Every instance of a rule is in its BYMONTH and on one of its BYMONTHDAYs (counted from the end when negative). */
function keepsParts(t: Time, parts: Record<string, unknown[] | undefined>): boolean {
  const months = parts.BYMONTH as number[] | undefined;
  if (months && months.length > 0 && !months.includes(t.month)) return false;
  const days = parts.BYMONTHDAY as number[] | undefined;
  if (!days || days.length === 0) return true;
  const last = daysInMonth(t.year, t.month);
  return days.some((d) => d === t.day || (d < 0 && last + d + 1 === t.day));
}

/** A start a whole number of periods after DTSTART and at least one period before `from`: same instances from there. */
function movedAnchor(freq: string, interval: number, l0: number, from: number): number {
  const fixed = PERIOD_MS[freq];
  if (fixed !== undefined) {
    const period = fixed * interval;
    const k = Math.floor((from - l0) / period) - 1;
    return k > 0 ? l0 + k * period : l0;
  }
  const d0 = new Date(l0);
  const f = new Date(from);
  const time = l0 - Date.UTC(d0.getUTCFullYear(), d0.getUTCMonth(), d0.getUTCDate());
  if (freq === 'MONTHLY') {
    const months = (f.getUTCFullYear() - d0.getUTCFullYear()) * 12 + f.getUTCMonth() - d0.getUTCMonth();
    const k = Math.floor(months / interval) - 1;
    if (k <= 0) return l0;
    const m = d0.getUTCMonth() + k * interval;
    // the first of the month: the rule's days are explicit, so every day of the period is still looked at
    return Date.UTC(d0.getUTCFullYear() + Math.floor(m / 12), m % 12, 1) + time;
  }
  if (freq === 'YEARLY') {
    const k = Math.floor((f.getUTCFullYear() - d0.getUTCFullYear()) / interval) - 1;
    return k > 0 ? Date.UTC(d0.getUTCFullYear() + k * interval, 0, 1) + time : l0;
  }
  return l0;
}

function fields(local: number) {
  const d = new Date(local);
  return {
    year: d.getUTCFullYear(),
    month: d.getUTCMonth() + 1,
    day: d.getUTCDate(),
    hour: d.getUTCHours(),
    minute: d.getUTCMinutes(),
    second: d.getUTCSeconds(),
  };
}

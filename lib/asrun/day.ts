import { DAY, isValidTimeZone, resolveLocal } from '../schedule/tz';

/** A calendar day in a zone, as the UTC instants [start, end) it spans (23 or 25 hours on a clock change). */
export interface ZoneDay {
  date: string;
  zone: string;
  start: number;
  end: number;
}

const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;

/** `YYYY-MM-DD` in an IANA zone; throws a RangeError naming what is wrong. */
export function zoneDay(date: string, zone: string): ZoneDay {
  const m = DATE.exec(date);
  const local = m ? Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3])) : Number.NaN;
  if (!m || !Number.isFinite(local) || new Date(local).toISOString().slice(0, 10) !== date) {
    throw new RangeError(`day must be a date YYYY-MM-DD, got "${date}"`);
  }
  if (!isValidTimeZone(zone)) throw new RangeError(`zone must be an IANA time zone, got "${zone}"`);
  return { date, zone, start: resolveLocal(local, zone).instant, end: resolveLocal(local + DAY, zone).instant };
}

/** The UTC dates `YYYY-MM-DD` from one instant's to another's, both included. */
export function utcDates(from: number, to: number): string[] {
  const dates: string[] = [];
  for (let t = Math.floor(from / DAY) * DAY; t <= to; t += DAY) dates.push(new Date(t).toISOString().slice(0, 10));
  return dates;
}

/**
 * How long after a slot's scheduled start its entries may still be written:
 * its end, its finishing and its follow-up job. A reader of a day reads the
 * entries written up to this long after the day.
 */
export const WRITTEN_WITHIN_MS = 2 * DAY;

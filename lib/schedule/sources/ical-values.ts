import { DAY } from '../tz';

/**
 * A DATE or DATE-TIME value as written, read without ical.js's Time (which
 * rolls 30 February over to 1 March): its wall-clock fields as local
 * milliseconds (`Date.UTC` of the fields), whether it is a date, and whether it
 * is in UTC (a trailing Z).
 */
export interface IcalDate {
  local: number;
  isDate: boolean;
  utc: boolean;
  /** a date written where a date-time is due, without VALUE=DATE (`EXDATE:20300116`): read as that date */
  untyped?: boolean;
}

// ical.js hands DATE and DATE-TIME values on in jCal's form: 2024-02-29 and 2024-02-29T10:00:00(Z)
const JCAL_DATE = /^(\d{4})-(\d{2})-(\d{2})(?:T(\d{2}):(\d{2}):(\d{2})(Z)?)?$/;
// and PERIOD starts, ends and RDATE/EXDATE lists it could not type, as written in the file
const ICAL_DATE = /^(\d{4})(\d{2})(\d{2})(?:T(\d{2})(\d{2})(\d{2})(Z)?)?$/;
// ical.js's jCal of a bare date in a DATE-TIME property: 2030-01-16T::
const UNTYPED_DATE = /^(\d{4})-(\d{2})-(\d{2})T::$/;

/** The value, or a sentence saying why it is no date ("2024-02-30 is not a date"). */
export function readDate(raw: unknown): IcalDate | string {
  const text = typeof raw === 'string' ? raw.trim() : '';
  const untyped = UNTYPED_DATE.exec(text);
  const m = JCAL_DATE.exec(text) ?? ICAL_DATE.exec(text) ?? untyped;
  if (!m) return `${shown(raw)} is not a date or date-time`;
  const [year, month, day] = [Number(m[1]), Number(m[2]), Number(m[3])];
  const isDate = m[4] === undefined;
  const [hour, minute, second] = isDate ? [0, 0, 0] : [Number(m[4]), Number(m[5]), Number(m[6])];
  if (month < 1 || month > 12 || day < 1 || day > daysInMonth(year, month))
    return `${shown(raw)} is not a date (${year}-${m[2]} has no day ${day})`;
  // a leap second (60) is read as the next second, as RFC 5545 allows
  if (hour > 23 || minute > 59 || second > 60) return `${shown(raw)} is not a time of day`;
  const value: IcalDate = { local: Date.UTC(year, month - 1, day, hour, minute, second), isDate, utc: m[7] === 'Z' };
  if (untyped) value.untyped = true;
  return value;
}

export function daysInMonth(year: number, month: number): number {
  return new Date(Date.UTC(year, month, 0)).getUTCDate();
}

/** The local day (00:00) of local milliseconds. */
export function dayOf(local: number): number {
  return Math.floor(local / DAY) * DAY;
}

/** A value as the file wrote it (ical.js hands it on as 2024-02-30T10:00:00Z, or 2030-01-1T:: when it could not read it). */
function shown(raw: unknown): string {
  const text = typeof raw === 'string' ? raw : JSON.stringify(raw);
  return `"${(text ?? '').replace(/T::$/, '').replace(/[-:]/g, '').slice(0, 40)}"`;
}

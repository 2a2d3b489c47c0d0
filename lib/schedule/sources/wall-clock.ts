import { DAY, isValidTimeZone, offsetAt } from '../tz';

/** The zone's UTC offset at an instant, in milliseconds (local minus UTC). */
export type OffsetAt = (instant: number) => number;

/**
 * The instant of a wall-clock time (local milliseconds: the fields encoded with
 * `Date.UTC`) under RFC 5545's rule (3.3.5), which calendars are written for:
 * a time that happens twice is the first one; a time that never happens (the
 * hour skipped when clocks go forward) is read with the offset from before the
 * gap, so 01:30 on London's spring-forward day is 02:30 BST.
 */
export function resolveWallClock(local: number, offset: OffsetAt): number {
  const before = offset(local - DAY);
  const valid: number[] = [];
  for (const o of new Set([before, offset(local), offset(local + DAY)])) {
    const t = local - o;
    if (t + offset(t) === local) valid.push(t);
  }
  return valid.length > 0 ? Math.min(...valid) : local - before;
}

/**
 * The offset function of an IANA zone through `Intl`, from a table of the
 * zone's changes of offset built once per zone and year: about 400 `Intl`
 * calls a year (one a day, and a bisection to the second at each change)
 * instead of several per occurrence. Two changes less than a day apart are
 * seen as one (no zone has had such since the 1940s).
 */
export function ianaOffset(zone: string): OffsetAt {
  let fn = offsetFunctions.get(zone);
  if (!fn) {
    const years = new Map<number, ZoneYear>();
    fn = (instant) => {
      const year = new Date(instant).getUTCFullYear();
      let table = years.get(year);
      if (!table) {
        if (years.size > 200) years.clear();
        table = zoneYear(zone, year);
        years.set(year, table);
      }
      const { starts, offsets } = table;
      let i = starts.length - 1;
      while (i > 0 && starts[i] > instant) i--;
      return offsets[i];
    };
    if (offsetFunctions.size > 1000) offsetFunctions.clear();
    offsetFunctions.set(zone, fn);
  }
  return fn;
}

interface ZoneYear {
  /** instants from which each offset holds; the first is the start of the year */
  starts: number[];
  offsets: number[];
}

const offsetFunctions = new Map<string, OffsetAt>();

function zoneYear(zone: string, year: number): ZoneYear {
  const start = Date.UTC(year, 0, 1);
  const end = Date.UTC(year + 1, 0, 1);
  const starts = [start];
  const offsets = [offsetAt(start, zone)];
  let before = start;
  for (let t = Math.min(start + DAY, end); before < end; t = Math.min(t + DAY, end)) {
    const offset = offsetAt(t, zone);
    if (offset !== offsets[offsets.length - 1]) {
      // the first second with the new offset
      let lo = before / 1000;
      let hi = t / 1000;
      while (hi - lo > 1) {
        const mid = Math.floor((lo + hi) / 2);
        if (offsetAt(mid * 1000, zone) === offset) hi = mid;
        else lo = mid;
      }
      starts.push(hi * 1000);
      offsets.push(offset);
    }
    before = t;
  }
  return { starts, offsets };
}

const IANA_AREAS =
  /(?:^|\/)((?:Africa|America|Antarctica|Arctic|Asia|Atlantic|Australia|Europe|Indian|Pacific|Etc)\/.+)$/;

/**
 * The IANA zone a calendar's TZID names, or undefined: the name itself, or the
 * tail of a vendor-prefixed one (`/mozilla.org/20050126_1/Europe/London`,
 * `/softwarestudio.org/Olson_20011030_5/America/New_York`).
 */
export function ianaZoneOf(tzid: string): string | undefined {
  const name = tzid.trim().replace(/^"|"$/g, '');
  if (isValidTimeZone(name)) return name;
  const tail = IANA_AREAS.exec(name)?.[1];
  return tail !== undefined && isValidTimeZone(tail) ? tail : undefined;
}

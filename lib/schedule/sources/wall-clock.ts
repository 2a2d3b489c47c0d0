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

/** The offset function of an IANA zone through `Intl`, cached by the minute (offsets change on whole minutes). */
export function ianaOffset(zone: string): OffsetAt {
  const cache = new Map<number, number>();
  return (instant) => {
    const minute = Math.floor(instant / 60_000);
    let o = cache.get(minute);
    if (o === undefined) {
      o = offsetAt(minute * 60_000, zone);
      if (cache.size > 10_000) cache.clear();
      cache.set(minute, o);
    }
    return o;
  };
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

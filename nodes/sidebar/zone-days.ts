import { DAY, HOUR, localMs, localParts, resolveLocal } from '../../lib/schedule/tz';
import type { ZoneDay } from './activity-types';

/**
 * The calendar days of a zone that overlap [from, to): each from its local
 * midnight to the next, so a day whose clocks go forward is 23 hours long
 * and one whose clocks go back 25 (Europe/London, 2026-03-29 and 2026-10-25).
 */
export function zoneDays(timezone: string, from: number, to: number): ZoneDay[] {
  const days: ZoneDay[] = [];
  const first = localParts(from, timezone);
  let local = localMs({ year: first.year, month: first.month, day: first.day, hour: 0, minute: 0, second: 0 });
  let start = resolveLocal(local, timezone).instant;
  while (start < to) {
    const next = local + DAY;
    const end = resolveLocal(next, timezone).instant;
    days.push({ timezone, date: new Date(local).toISOString().slice(0, 10), start, end, hours: (end - start) / HOUR });
    local = next;
    start = end;
  }
  return days;
}

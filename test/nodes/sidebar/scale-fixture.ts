import type { WindowPlan } from '../../../nodes/sidebar/activity-types';

const ZONES = ['Europe/London', 'America/New_York', 'Asia/Tokyo', 'UTC', 'Australia/Sydney'];

/** Twenty windows a day at different hours and zones, half an hour to an hour and a half long. */
export function twentyWindows(): WindowPlan[] {
  return Array.from({ length: 20 }, (_, i) => ({
    id: `w${i}`,
    name: `Window ${i + 1}`,
    cron: `${(i * 7) % 60} ${i} * * *`,
    timezone: ZONES[i % ZONES.length],
    duration: 1800 + (i % 3) * 1800,
  }));
}

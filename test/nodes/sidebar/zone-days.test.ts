import { describe, expect, it } from 'vitest';
import { ActivityFeed } from '../../../nodes/sidebar/feed';
import { zoneDays } from '../../../nodes/sidebar/zone-days';
import { ManualClock } from '../../support/manual-clock';

describe('days in a zone', () => {
  it('Europe/London: 2026-03-29 is 23 hours long and 2026-10-25 is 25 hours long, each from local midnight', () => {
    const spring = zoneDays('Europe/London', Date.UTC(2026, 2, 28, 12), Date.UTC(2026, 2, 30, 12));
    expect(spring.map((d) => [d.date, d.hours])).toEqual([
      ['2026-03-28', 24],
      ['2026-03-29', 23],
      ['2026-03-30', 24],
    ]);
    // midnight GMT, then midnight BST (23:00 UTC)
    expect(spring[1].start).toBe(Date.UTC(2026, 2, 29, 0));
    expect(spring[1].end).toBe(Date.UTC(2026, 2, 29, 23));
    const autumn = zoneDays('Europe/London', Date.UTC(2026, 9, 25, 1), Date.UTC(2026, 9, 25, 2));
    expect(autumn).toEqual([
      {
        timezone: 'Europe/London',
        date: '2026-10-25',
        start: Date.UTC(2026, 9, 24, 23),
        end: Date.UTC(2026, 9, 26, 0),
        hours: 25,
      },
    ]);
  });

  it('a zone without daylight saving has 24-hour days; the days cover the range without gaps', () => {
    const days = zoneDays('Asia/Tokyo', Date.UTC(2026, 2, 28), Date.UTC(2026, 3, 5));
    expect(days.every((d) => d.hours === 24)).toBe(true);
    for (let i = 1; i < days.length; i++) expect(days[i].start).toBe(days[i - 1].end);
  });

  it('the feed gives the days of every zone its windows use, across the timeline range', () => {
    const clock = new ManualClock(Date.UTC(2026, 9, 24, 12));
    const feed = new ActivityFeed(() => undefined, clock);
    feed.registerSchedule({
      nodeId: 's',
      name: 's',
      paused: false,
      windows: [
        { id: 'a', name: 'A', cron: '0 18 * * *', timezone: 'Europe/London', duration: 3600 },
        { id: 'b', name: 'B', cron: '0 18 * * *', timezone: 'America/New_York', duration: 3600 },
      ],
    });
    const days = feed.snapshot().days;
    expect(days.find((d) => d.timezone === 'Europe/London' && d.date === '2026-10-25')?.hours).toBe(25);
    // New York's clocks go back a week later (2026-11-01): its days in this range are all 24 hours
    const newYork = days.filter((d) => d.timezone === 'America/New_York');
    expect(newYork.length).toBeGreaterThanOrEqual(8);
    expect(newYork.every((d) => d.hours === 24)).toBe(true);
    // 18:00 local on both sides of the change: BST (17:00 UTC) on the 24th, GMT (18:00 UTC) on the 25th
    const slots = feed.snapshot().schedules[0].slots.filter((s) => s.windowId === 'a');
    expect(slots.map((s) => new Date(s.start).toISOString())).toContain('2026-10-25T18:00:00.000Z');
    expect(slots.map((s) => new Date(s.start).toISOString())).toContain('2026-10-24T17:00:00.000Z');
  });
});

import { describe, expect, it } from 'vitest';
import { decodeActivity } from '../../../nodes/sidebar/activity-decode';
import type { ActivitySnapshot, PlannedSlotView, SlotView } from '../../../nodes/sidebar/activity-types';
import type { WireSnapshot } from '../../../nodes/sidebar/activity-wire';
import { ActivityFeed } from '../../../nodes/sidebar/feed';
import { ManualClock } from '../../support/manual-clock';

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const WEEK = 7 * 24 * HOUR;
/** 2026-03-02 12:20 UTC */
const NOW = Date.UTC(2026, 2, 2, 12, 20);

const windows = [
  { id: 'guide', name: 'Guide', cron: '', timezone: 'Europe/London', duration: 300, source: 'xmltv' as const },
  { id: 'desk', name: 'Desk', cron: '', timezone: 'UTC', duration: 60, source: 'messages' as const },
];

/**
 * A week of a guide's programmes every 5 minutes (2,016 of them, titled, some over max_channels, one title
 * that looks like HTML), and a window fed by messages at odd instants (to the millisecond, of varied
 * lengths) whose starts past the 3rd are too dense to list: one band.
 */
function plan(from: number, to: number): PlannedSlotView[] {
  const out: PlannedSlotView[] = [];
  const first = Math.ceil(from / (5 * MINUTE)) * 5 * MINUTE;
  for (let start = first, i = 0; start < to; start += 5 * MINUTE, i++) {
    const title = i === 7 ? '<b>Late & live</b>' : i % 3 === 0 ? undefined : `Programme ${i}`;
    out.push({
      windowId: 'guide',
      start,
      end: start + 5 * MINUTE,
      ...(title ? { title } : {}),
      ...(i % 50 === 0 ? { conflict: true as const } : {}),
    });
  }
  for (let n = 0; n < 3; n++)
    out.push({ windowId: 'desk', start: from + n * 7_777_777 + 3, end: from + n * 7_777_777 + 3 + (n + 1) * 1_001 });
  out.push({ windowId: 'desk', start: from + 3 * 7_777_777, end: to, band: true });
  return out;
}

function reportedDay(feed: ActivityFeed): void {
  // the past day's guide slots (reported ones are no longer planned), each finished with its follow-up
  for (let start = NOW - 23 * HOUR; start < NOW - 10 * MINUTE; start += 5 * MINUTE) {
    feed.reportSlot('s1', {
      slotKey: `s1:guide:${start}`,
      windowId: 'guide',
      start,
      end: start + 5 * MINUTE,
      title: `Programme at ${new Date(start).toISOString()}`,
      channel: { state: 'IDLE', id: `channel-${start}` },
      life: {
        stage: 'finished',
        followupAt: start + 5 * MINUTE + 1234,
        ...(start % (15 * MINUTE) === 0 ? { lateMs: 1500 } : {}),
      },
      outcome: { channel: 'created', job: { id: `job-${start}`, state: 'succeeded' } },
    });
  }
  const at = NOW - 10 * MINUTE;
  feed.reportSlot('s1', {
    windowId: 'guide',
    start: at,
    end: at + 5 * MINUTE,
    life: { stage: 'missed', note: 'the service said <no>' },
    outcome: { channel: 'failed', reason: 'the service said <no>' },
  });
  feed.reportSlot('s1', {
    windowId: 'guide',
    start: NOW - 5 * MINUTE,
    end: NOW,
    life: { stage: 'skipped', note: 'skipped on request' },
  });
  feed.reportSlot('s1', {
    windowId: 'guide',
    start: NOW,
    end: NOW + 5 * MINUTE,
    channel: { state: 'RECORDING', id: 'c' },
    life: { stage: 'recording', lateMs: 2000 },
  });
  // a window since removed from the schedule: its reported slot keeps its window's id
  feed.reportSlot('s1', {
    windowId: 'gone',
    start: NOW - HOUR,
    end: NOW - 50 * MINUTE,
    life: { stage: 'finished' },
    outcome: { channel: 'created' },
  });
}

function scaleFeed(): { feed: ActivityFeed; clock: ManualClock } {
  const clock = new ManualClock(NOW);
  const feed = new ActivityFeed(() => undefined, clock);
  feed.registerSchedule({ nodeId: 's1', name: 'Guide <i>schedule</i>', paused: false, windows }, { plan, pause() {} });
  reportedDay(feed);
  return { feed, clock };
}

/** The snapshot as the route sends it: what the tab shows, without the ids it never shows. */
function withoutIds(snapshot: ActivitySnapshot): ActivitySnapshot {
  const slot = ({ slotKey: _key, ...s }: SlotView): SlotView => ({
    ...s,
    ...(s.channel ? { channel: { state: s.channel.state } } : {}),
    ...(s.outcome?.job ? { outcome: { ...s.outcome, job: { state: s.outcome.job.state } } } : {}),
  });
  return { ...snapshot, schedules: snapshot.schedules.map((s) => ({ ...s, slots: s.slots.map(slot) })) };
}

/** The slots of an unpacked answer within the feed's own range (the answer runs to the end of the hour). */
function within(decoded: ActivitySnapshot, to: number): ActivitySnapshot {
  return {
    ...decoded,
    range: { ...decoded.range, to },
    schedules: decoded.schedules.map((s) => ({ ...s, slots: s.slots.filter((slot) => slot.start < to) })),
  };
}

/** What a client gets: the JSON text, parsed. */
function sent(feed: ActivityFeed, aheadMs?: number): { wire: WireSnapshot; bytes: number } {
  const text = JSON.stringify(feed.wire('all', aheadMs));
  return { wire: JSON.parse(text) as WireSnapshot, bytes: Buffer.byteLength(text) };
}

describe('the activity route packed: a week of 2,000 planned slots and a day of reports', () => {
  it('answers the 7-day zoom under 200 KB and unpacks to every slot the feed holds: titles, conflicts, band, stages', () => {
    const { feed } = scaleFeed();
    const { wire, bytes } = sent(feed);
    const decoded = decodeActivity(wire, NOW);
    const full = feed.snapshot();
    const slots = full.schedules[0].slots;
    expect(slots.filter((s) => s.windowId === 'guide' && s.phase === 'upcoming').length).toBeGreaterThanOrEqual(2000);
    expect(slots.filter((s) => s.phase === 'past').length).toBeGreaterThan(270);
    expect(bytes).toBeLessThan(200 * 1024);
    expect(within(decoded, full.range.to)).toEqual(withoutIds(full));
    // what the bars say, as text: the odd title is there as it was given
    expect(decoded.schedules[0].slots.some((s) => s.title === '<b>Late & live</b>' && s.conflict)).toBe(false);
    expect(decoded.schedules[0].slots.filter((s) => s.title === '<b>Late & live</b>')).toHaveLength(1);
    expect(decoded.schedules[0].slots.filter((s) => s.conflict).length).toBeGreaterThan(30);
    expect(decoded.schedules[0].slots.filter((s) => s.band)).toHaveLength(1);
    expect(decoded.schedules[0].slots.find((s) => s.windowId === 'gone')).toMatchObject({ phase: 'past' });
    expect(decoded.schedules[0].slots.find((s) => s.life?.stage === 'skipped')).toMatchObject({ phase: 'past' });
    expect(decoded.schedules[0].slots.find((s) => s.life?.stage === 'recording')).toMatchObject({
      phase: 'active',
      life: { lateMs: 2000 },
    });
  });

  it('sends planned starts only as far as the view asks: the 24-hour view gets a day of them, not a week', () => {
    const { feed } = scaleFeed();
    const day = sent(feed, 24 * HOUR);
    const week = sent(feed, WEEK);
    expect(day.bytes).toBeLessThan(week.bytes - 20 * 1024);
    const inDay = decodeActivity(day.wire, NOW).schedules[0].slots;
    const inWeek = decodeActivity(week.wire, NOW).schedules[0].slots;
    const viewEnd = NOW + 24 * HOUR;
    // every slot the 24-hour view draws is in the 24-hour answer, as it is in the week's
    expect(inDay.filter((s) => s.start < viewEnd && !s.band)).toEqual(
      inWeek.filter((s) => s.start < viewEnd && !s.band),
    );
    expect(Math.max(...inDay.filter((s) => !s.band).map((s) => s.start))).toBeLessThan(NOW + 26 * HOUR);
  });

  it('is the same answer all the hour, unpacked later as the feed would then show it (starts passed are due)', async () => {
    const { feed, clock } = scaleFeed();
    const tag = feed.etag('all');
    const { wire } = sent(feed);
    await clock.advance(25 * MINUTE);
    expect(feed.etag('all')).toBe(tag);
    const later = feed.snapshot();
    expect(within(decodeActivity(wire, clock.now()), later.range.to)).toEqual(withoutIds(later));
    expect(later.schedules[0].slots.some((s) => s.phase === 'due')).toBe(true);
  });

  it('names another answer when anything changes: a report, the hour, the view, the part', async () => {
    const { feed, clock } = scaleFeed();
    const tag = feed.etag('all');
    expect(feed.etag('all', 24 * HOUR)).not.toBe(tag);
    expect(feed.etag('jobs')).not.toBe(tag);
    feed.reportSlot('s1', { windowId: 'guide', start: NOW, end: NOW + 5 * MINUTE, life: { stage: 'stopping' } });
    const reported = feed.etag('all');
    expect(reported).not.toBe(tag);
    await clock.advance(40 * MINUTE);
    expect(feed.etag('all')).not.toBe(reported);
  });
});

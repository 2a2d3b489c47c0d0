import { describe, expect, it } from 'vitest';
import type { ScheduleRegistration, SlotLife } from '../../../nodes/sidebar/activity-types';
import { ActivityFeed, MAX_ENDED_JOBS } from '../../../nodes/sidebar/feed';
import { MAX_STARTS_PER_WINDOW } from '../../../nodes/sidebar/upcoming';
import { ManualClock } from '../../support/manual-clock';

const MINUTE = 60_000;
/** 2026-06-15 12:00 UTC. */
const NOON = Date.UTC(2026, 5, 15, 12, 0, 0);

const everyTenMinutes: ScheduleRegistration = {
  nodeId: 'sched1',
  name: 'News schedule',
  paused: false,
  windows: [{ id: 'flash', name: 'News flash', cron: '*/10 * * * *', timezone: 'UTC', duration: 300 }],
};

function feedAt(start = NOON) {
  const clock = new ManualClock(start);
  const feed = new ActivityFeed(() => undefined, clock);
  return { clock, feed };
}

function slotsAround(feed: ActivityFeed, from: number, to: number) {
  return feed.snapshot().schedules[0].slots.filter((s) => s.start >= from && s.start < to);
}

describe('activity feed: a slot through its life', () => {
  it('reports each stage: in progress while starting, recording, stopping; past once finished, missed or skipped', async () => {
    const { feed, clock } = feedAt();
    feed.registerSchedule(everyTenMinutes);
    const slot = { windowId: 'flash', start: NOON, end: NOON + 5 * MINUTE };
    const seen: { phase: string; life?: SlotLife }[] = [];
    const lives: SlotLife[] = [
      { stage: 'starting', attempt: 1 },
      { stage: 'starting', attempt: 4, note: '503 Service Unavailable' },
      { stage: 'recording', lateMs: 31_000 },
      { stage: 'stopping' },
      { stage: 'finished', followupAt: NOON + 5 * MINUTE + 4000 },
    ];
    for (const life of lives) {
      feed.reportSlot('sched1', { ...slot, life });
      const [shown] = slotsAround(feed, NOON, NOON + 1);
      seen.push({ phase: shown.phase, life: shown.life });
      await clock.advance(MINUTE);
    }
    expect(seen.map((s) => `${s.phase}:${s.life?.stage}`)).toEqual([
      'active:starting',
      'active:starting',
      'active:recording',
      'active:stopping',
      'past:finished',
    ]);
    expect(seen[1].life).toEqual({ stage: 'starting', attempt: 4, note: '503 Service Unavailable' });
    for (const stage of ['missed', 'skipped'] as const) {
      const start = NOON + (stage === 'missed' ? 10 : 20) * MINUTE;
      feed.reportSlot('sched1', { windowId: 'flash', start, end: start + 5 * MINUTE, life: { stage, note: 'why' } });
      expect(slotsAround(feed, start, start + 1)).toEqual([
        { windowId: 'flash', start, end: start + 5 * MINUTE, phase: 'past', life: { stage, note: 'why' } },
      ]);
    }
  });

  it('never shows an unreported start as recording: due once its start passed, and gone when its window ended', async () => {
    // paused across 12:10, resumed at 12:12: nothing reported the 12:10 slot
    const { feed, clock } = feedAt(NOON + 5 * MINUTE + 30_000);
    feed.registerSchedule({ ...everyTenMinutes, paused: true });
    await clock.advance(5 * MINUTE);
    feed.updateSchedule('sched1', { paused: false });
    await clock.advance(2 * MINUTE);
    const slots = feed.snapshot().schedules[0].slots;
    expect(slots.filter((s) => s.phase === 'active')).toEqual([]);
    expect(slots[0]).toMatchObject({ start: NOON + 10 * MINUTE, phase: 'due' });
    expect(slots[1]).toMatchObject({ start: NOON + 20 * MINUTE, phase: 'upcoming' });
    await clock.advance(4 * MINUTE);
    expect(feed.snapshot().schedules[0].slots[0]).toMatchObject({ start: NOON + 20 * MINUTE, phase: 'upcoming' });
  });

  it('keeps a skipped slot and a started one of the same window apart, each at its own start', () => {
    const { feed } = feedAt(NOON + 6 * MINUTE);
    feed.registerSchedule(everyTenMinutes);
    // "Skip next" (12:10), then "Start now" (12:06)
    feed.reportSlot('sched1', {
      windowId: 'flash',
      start: NOON + 10 * MINUTE,
      end: NOON + 15 * MINUTE,
      life: { stage: 'skipped', note: 'skipped on request' },
    });
    feed.reportSlot('sched1', {
      windowId: 'flash',
      start: NOON + 6 * MINUTE,
      end: NOON + 11 * MINUTE,
      life: { stage: 'starting', attempt: 1 },
    });
    const slots = slotsAround(feed, NOON, NOON + 30 * MINUTE);
    expect(slots.map((s) => `${(s.start - NOON) / MINUTE}:${s.phase}:${s.life?.stage ?? '-'}`)).toEqual([
      '6:active:starting',
      '10:past:skipped',
      '20:upcoming:-',
    ]);
  });

  it('draws an every-minute window to the end of the week: the starts past the listed ones are one band', () => {
    const { feed } = feedAt();
    feed.registerSchedule({
      ...everyTenMinutes,
      windows: [{ id: 'm', name: 'Minutely', cron: '* * * * *', timezone: 'UTC', duration: 40 }],
    });
    const snap = feed.snapshot();
    const slots = snap.schedules[0].slots;
    const listed = slots.filter((s) => !s.band);
    const bands = slots.filter((s) => s.band);
    expect(listed).toHaveLength(MAX_STARTS_PER_WINDOW);
    expect(bands).toHaveLength(1);
    // the band starts at the next minute after the listed ones and reaches past the view's end
    expect(bands[0].start).toBe((listed.at(-1)?.start ?? 0) + MINUTE);
    expect(bands[0].end).toBeGreaterThanOrEqual(snap.range.to);
    expect(bands[0].phase).toBe('upcoming');
  });

  it('names an unnamed schedule by its windows', () => {
    const { feed } = feedAt();
    feed.registerSchedule({ ...everyTenMinutes, name: '' });
    expect(feed.snapshot().schedules[0].name).toBe('Schedule: News flash');
    const windows = ['A', 'B', 'C', 'D', 'E'].map((n) => ({ ...everyTenMinutes.windows[0], id: n, name: `Show ${n}` }));
    feed.updateSchedule('sched1', { windows });
    expect(feed.snapshot().schedules[0].name).toBe('Schedule: Show A, Show B, Show C and 2 more');
    feed.updateSchedule('sched1', { windows: [] });
    expect(feed.snapshot().schedules[0].name).toBe('Schedule (no windows)');
  });

  it('keeps the newest ended jobs, a bounded list, and every job in progress', async () => {
    const { feed, clock } = feedAt();
    feed.reportJob({ nodeId: 'f', jobId: 'running', workflowId: 'w', state: 'running' });
    for (let i = 0; i < MAX_ENDED_JOBS + 50; i++) {
      feed.reportJob({ nodeId: 'f', jobId: `j${i}`, workflowId: 'w', state: i % 2 ? 'succeeded' : 'failed' });
      await clock.advance(1000);
    }
    const jobs = feed.snapshot('jobs').jobs;
    expect(jobs.filter((j) => j.terminal)).toHaveLength(MAX_ENDED_JOBS);
    expect(jobs.some((j) => j.jobId === 'j49')).toBe(false);
    expect(jobs.some((j) => j.jobId === 'j50')).toBe(true);
    expect(jobs.find((j) => j.jobId === 'running')?.terminal).toBe(false);
  });
});

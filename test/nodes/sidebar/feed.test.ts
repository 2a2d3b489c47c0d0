import { EventEmitter } from 'node:events';
import { describe, expect, it } from 'vitest';
import type { ActivitySignal, ScheduleRegistration } from '../../../nodes/sidebar/activity-types';
import { ActivityActionError, ActivityFeed, HISTORY_MS } from '../../../nodes/sidebar/feed';
import { activityFeed } from '../../../nodes/sidebar/feed-host';
import { ManualClock } from '../../support/manual-clock';

const HOUR = 3_600_000;
/** 2026-06-15 12:00 UTC = 13:00 in London (BST). */
const NOON = Date.UTC(2026, 5, 15, 12, 0, 0);

const eveningNews: ScheduleRegistration = {
  nodeId: 'sched1',
  name: 'News schedule',
  z: 'flow1',
  paused: false,
  windows: [{ id: 'news', name: 'Evening news', cron: '0 18 * * *', timezone: 'Europe/London', duration: 3600 }],
};

function feedAt(start = NOON) {
  const clock = new ManualClock(start);
  const signals: ActivitySignal[] = [];
  const feed = new ActivityFeed((s) => signals.push(s), clock);
  return { clock, signals, feed };
}

describe('activity feed: the registry', () => {
  it('lists a registered schedule with its upcoming slots from the window cron, in the window zone', () => {
    const { feed } = feedAt();
    feed.registerSchedule(eveningNews, { pause() {}, resume() {} });
    const snap = feed.snapshot();
    expect(snap.schedules).toHaveLength(1);
    const [s] = snap.schedules;
    expect(s).toMatchObject({ nodeId: 'sched1', name: 'News schedule', z: 'flow1', paused: false });
    expect(s.actions).toEqual(['pause', 'resume']);
    // 18:00 BST = 17:00 UTC, a week of them, each an hour long
    expect(s.slots[0]).toEqual({
      windowId: 'news',
      start: Date.UTC(2026, 5, 15, 17),
      end: Date.UTC(2026, 5, 15, 18),
      phase: 'upcoming',
    });
    expect(s.slots).toHaveLength(7);
    expect(snap.range).toEqual({ from: NOON - HISTORY_MS, to: NOON + 7 * 24 * HOUR });
  });

  it('shows a slot in progress as active, its reported channel state, and a finished one with its outcome', async () => {
    const { feed, clock } = feedAt(Date.UTC(2026, 5, 15, 17, 20));
    feed.registerSchedule(eveningNews);
    // planned, its start passed, nothing reported: due, not a recording
    expect(feed.snapshot().schedules[0].slots[0]).toMatchObject({ phase: 'due', start: Date.UTC(2026, 5, 15, 17) });
    feed.reportSlot('sched1', {
      windowId: 'news',
      start: Date.UTC(2026, 5, 15, 17),
      end: Date.UTC(2026, 5, 15, 18),
      channel: { state: 'running', id: 'ch-1' },
    });
    const active = feed.snapshot().schedules[0].slots[0];
    expect(active).toMatchObject({ phase: 'active', channel: { state: 'running', id: 'ch-1' } });
    await clock.advance(HOUR);
    feed.reportSlot('sched1', {
      windowId: 'news',
      start: Date.UTC(2026, 5, 15, 17),
      end: Date.UTC(2026, 5, 15, 18),
      outcome: { channel: 'created', job: { id: 'job-1', state: 'running' } },
    });
    const slots = feed.snapshot().schedules[0].slots;
    expect(slots[0]).toMatchObject({ phase: 'past', outcome: { channel: 'created', job: { id: 'job-1' } } });
    // the same slot is not listed twice (reported and planned)
    expect(slots.filter((x) => x.start === Date.UTC(2026, 5, 15, 17))).toHaveLength(1);
    // a day later the outcome has left the 24 hours of history
    await clock.advance(25 * HOUR);
    expect(feed.snapshot().schedules[0].slots.some((x) => x.phase === 'past')).toBe(false);
  });

  it('updates the paused state, drops the schedule on unregister and keeps its history for a redeploy', () => {
    const { feed } = feedAt();
    feed.registerSchedule(eveningNews);
    feed.updateSchedule('sched1', { paused: true });
    expect(feed.snapshot().schedules[0].paused).toBe(true);
    feed.reportSlot('sched1', {
      windowId: 'news',
      start: NOON - 2 * HOUR,
      end: NOON - HOUR,
      outcome: { channel: 'failed', reason: 'The service refused the channel name.' },
    });
    feed.unregister('sched1');
    expect(feed.snapshot().schedules).toEqual([]);
    feed.updateSchedule('sched1', { paused: false }); // unknown now: ignored
    feed.registerSchedule(eveningNews);
    expect(feed.snapshot().schedules[0].slots[0]).toMatchObject({
      phase: 'past',
      outcome: { channel: 'failed', reason: 'The service refused the channel name.' },
    });
  });

  it('calls the schedule control for an action, 404 for an unknown schedule, 409 for an unsupported action', async () => {
    const { feed } = feedAt();
    const calls: string[] = [];
    feed.registerSchedule(eveningNews, {
      pause: () => void calls.push('pause'),
      startNow: (w) => void calls.push(`start ${w}`),
    });
    await feed.act('sched1', 'pause');
    await feed.act('sched1', 'start', 'news');
    expect(calls).toEqual(['pause', 'start news']);
    await expect(feed.act('nope', 'pause')).rejects.toMatchObject({ status: 404 });
    const refused = await feed.act('sched1', 'skip').catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(ActivityActionError);
    expect(refused).toMatchObject({ status: 409, message: 'the schedule "News schedule" does not support skip' });
  });

  it('keeps the latest report of each followed job; unregister drops the unfinished ones', () => {
    const { feed } = feedAt();
    const job = { nodeId: 'f1', workflowId: 'wf', state: 'running' };
    feed.reportJob({ ...job, jobId: 'a', progress: 10 });
    feed.reportJob({ ...job, jobId: 'a', progress: 140 });
    feed.reportJob({ ...job, jobId: 'b', state: 'failed', reason: 'The input file is missing.' });
    const jobs = feed.snapshot('jobs').jobs;
    expect(jobs).toHaveLength(2);
    expect(jobs[0]).toMatchObject({ jobId: 'a', progress: 100, terminal: false });
    expect(jobs[1]).toMatchObject({ jobId: 'b', terminal: true, reason: 'The input file is missing.' });
    expect(feed.snapshot('jobs').schedules).toEqual([]);
    feed.unregister('f1');
    expect(feed.snapshot().jobs.map((j) => j.jobId)).toEqual(['b']);
  });

  it("lists a node's followed jobs from its own records when the tab asks, and keeps only their ends", async () => {
    const { feed, signals, clock } = feedAt();
    const followed: { jobId: string; workflowId: string; name?: string; state?: string; progress?: number }[] = [
      { jobId: 'a', workflowId: 'wf' },
      { jobId: 'b', workflowId: 'wf', name: 'Transcode', state: 'in-process', progress: 140 },
    ];
    feed.reportJob({ nodeId: 'f1', jobId: 'a', workflowId: 'wf', state: 'succeeded' });
    feed.followJobs('f1', () => followed);
    // followed again: the earlier end of the job no longer shows
    feed.forgetJob('f1', 'a');
    const jobs = feed.snapshot('jobs').jobs;
    expect(jobs).toEqual([
      {
        nodeId: 'f1',
        jobId: 'a',
        workflowId: 'wf',
        state: 'created',
        progress: undefined,
        updatedAt: NOON,
        terminal: false,
      },
      {
        nodeId: 'f1',
        jobId: 'b',
        workflowId: 'wf',
        name: 'Transcode',
        state: 'in-process',
        progress: 100,
        updatedAt: NOON,
        terminal: false,
      },
    ]);
    // the records change in place: the next fetch shows them as they are
    followed[1] = { ...followed[1], progress: 60 };
    followed.shift();
    feed.reportJob({
      nodeId: 'f1',
      jobId: 'a',
      workflowId: 'wf',
      state: 'failed',
      reason: 'The input file is missing.',
    });
    expect(feed.snapshot('jobs').jobs.map((j) => `${j.jobId}:${j.state}:${j.progress}`)).toEqual([
      'a:failed:undefined',
      'b:in-process:60',
    ]);
    feed.jobsChanged();
    feed.unregister('f1');
    expect(feed.snapshot('jobs').jobs.map((j) => j.jobId)).toEqual(['a']);
    await clock.advance(1000);
    expect(signals.length).toBeGreaterThan(0);
    expect(signals.at(-1)?.jobsRev).toBe(6);
  });
});

describe('activity feed: the change signal', () => {
  it('coalesces a burst into one publish, then at most one per 500 ms, and never loses the last change', async () => {
    const { feed, clock, signals } = feedAt();
    for (let i = 0; i < 1000; i++) feed.reportJob({ nodeId: 'f', jobId: `j${i}`, workflowId: 'w', state: 'running' });
    expect(signals).toHaveLength(0); // not inside the reporting call
    await clock.advance(0);
    expect(signals).toEqual([{ epoch: NOON, rev: 1000, schedulesRev: 0, jobsRev: 1000 }]);
    // a change every 10 ms for 3 s: 6 publishes (every 500 ms), the last one with the last revision
    for (let t = 0; t < 3000; t += 10) {
      feed.reportJob({ nodeId: 'f', jobId: 'j0', workflowId: 'w', state: 'running', progress: t / 30 });
      await clock.advance(10);
    }
    await clock.advance(500);
    expect(signals.length).toBe(7);
    expect(signals.at(-1)).toEqual({ epoch: NOON, rev: 1300, schedulesRev: 0, jobsRev: 1300 });
    expect(feed.publishes).toBe(7);
    // the published signal carries no activity data
    for (const s of signals) expect(Object.keys(s).sort()).toEqual(['epoch', 'jobsRev', 'rev', 'schedulesRev']);
  });

  it('tells schedule changes from job changes', async () => {
    const { feed, clock, signals } = feedAt();
    feed.registerSchedule(eveningNews);
    await clock.advance(0);
    feed.reportJob({ nodeId: 'f', jobId: 'j', workflowId: 'w', state: 'queued' });
    await clock.advance(500);
    expect(signals).toEqual([
      { epoch: NOON, rev: 1, schedulesRev: 1, jobsRev: 0 },
      { epoch: NOON, rev: 2, schedulesRev: 1, jobsRev: 1 },
    ]);
  });

  it('is one feed per runtime event bus, published retained on the activity topic, and again when flows start', async () => {
    const events = new EventEmitter();
    const published: { topic: string; data: unknown; retain?: boolean }[] = [];
    const publish = (topic: string, data: unknown, retain?: boolean) => void published.push({ topic, data, retain });
    // each module gets its own RED object; they share the runtime's events
    const a = activityFeed({ events, comms: { publish } });
    const b = activityFeed({ events, comms: { publish } });
    expect(a).toBe(b);
    expect(activityFeed({ events: new EventEmitter() })).not.toBe(a);
    a.registerSchedule(eveningNews);
    await new Promise((r) => setTimeout(r, 20));
    expect(published).toEqual([
      { topic: 'media-spaces/activity', data: expect.objectContaining({ rev: 1 }), retain: true },
    ]);
    events.emit('flows:started');
    await new Promise((r) => setTimeout(r, 600));
    expect(published).toHaveLength(2);
    a.close();
  });
});

describe('activity feed: slot rows over days', () => {
  it('keeps a finished slot shown for the 24 hours of history while later slots are reported, then lets it go', async () => {
    const day1 = { windowId: 'news', start: Date.UTC(2026, 5, 15, 17), end: Date.UTC(2026, 5, 15, 18) };
    const day2 = { windowId: 'news', start: Date.UTC(2026, 5, 16, 17), end: Date.UTC(2026, 5, 16, 18) };
    const { feed, clock } = feedAt(Date.UTC(2026, 5, 15, 18, 30));
    feed.registerSchedule(eveningNews);
    feed.reportSlot('sched1', { ...day1, outcome: { channel: 'created' } });
    // 23 hours on, the next day's slot is reported: yesterday's is still within the tab's range
    await clock.advance(23 * HOUR);
    feed.reportSlot('sched1', { ...day2, channel: { state: 'running', id: 'ch-2' } });
    const pastStarts = () =>
      feed
        .snapshot()
        .schedules[0].slots.filter((s) => s.phase === 'past' || s.phase === 'active')
        .map((s) => s.start);
    expect(pastStarts()).toEqual([day1.start, day2.start]);
    // past the 24 hours: yesterday's row leaves the range, today's stays
    await clock.advance(2 * HOUR);
    feed.reportSlot('sched1', { ...day2, outcome: { channel: 'created' } });
    expect(pastStarts()).toEqual([day2.start]);
  });
});

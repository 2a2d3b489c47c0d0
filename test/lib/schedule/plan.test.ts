import { afterEach, describe, expect, it } from 'vitest';
import { slotKeys } from '../../../lib/coordination/keys';
import { loadScheduleYaml } from '../../../lib/schedule/config';
import { CronPlan, ListedPlan, type PlannedOccurrence } from '../../../lib/schedule/plan';
import {
  type EndEvent,
  type MissedEvent,
  type ReplanEvent,
  Scheduler,
  type SchedulerState,
  type SchedulerStore,
  type StartEvent,
} from '../../../lib/schedule/scheduler';
import { ManualClock } from '../../support/manual-clock';

/**
 * The plan of dated occurrences: cron is one plan, a listed window (calendar, guide, messages) another; the
 * scheduler times either the same way, follows a listing that changes, and keeps the keys of cron slots saved
 * by earlier versions.
 */

const T = (iso: string) => Date.parse(iso);

class MemoryStore implements SchedulerStore {
  state: SchedulerState | undefined;
  load() {
    return this.state === undefined ? undefined : structuredClone(this.state);
  }
  save(state: SchedulerState) {
    this.state = structuredClone(state);
  }
}

const running: Scheduler[] = [];
afterEach(() => {
  for (const s of running.splice(0)) s.stop();
});

interface Seen {
  starts: StartEvent[];
  ends: EndEvent[];
  missed: MissedEvent[];
  replans: ReplanEvent[];
  errors: unknown[];
}

async function run(yaml: string, clock: ManualClock, store = new MemoryStore(), catchUp = true) {
  const seen: Seen = { starts: [], ends: [], missed: [], replans: [], errors: [] };
  const scheduler = new Scheduler({
    scheduleId: 'sched',
    config: loadScheduleYaml(yaml),
    clock,
    store,
    catchUp,
    onStart: (e) => seen.starts.push(e),
    onEnd: (e) => seen.ends.push(e),
    onMissed: (e) => seen.missed.push(e),
    onReplan: (e) => seen.replans.push(e),
    onError: (e) => seen.errors.push(e),
  });
  running.push(scheduler);
  await scheduler.start();
  return { scheduler, seen, store };
}

const LISTED = `windows:
  - id: cal
    messages: true
    timezone: UTC
`;

const occ = (id: string, start: string, minutes: number, title = id): PlannedOccurrence => ({
  id,
  start: T(start),
  end: T(start) + minutes * 60_000,
  programme: { title, start: T(start), end: T(start) + minutes * 60_000 },
});

describe('window plans', () => {
  it('a cron plan names each occurrence by its start, as slot keys always did', () => {
    const plan = new CronPlan('0 18 * * *', 'Europe/London', 3600_000);
    const next = plan.next(T('2026-07-01T12:00:00Z'));
    expect(next).toEqual({
      id: '2026-07-01T17:00:00Z',
      start: T('2026-07-01T17:00:00Z'),
      end: T('2026-07-01T18:00:00Z'),
    });
    expect(plan.find('2026-07-01T17:00:00Z')?.start).toBe(T('2026-07-01T17:00:00Z'));
    expect(plan.overlapping(T('2026-07-01T17:30:00Z'), T('2026-07-03T00:00:00Z'), 10).map((o) => o.id)).toEqual([
      '2026-07-01T17:00:00Z',
      '2026-07-02T17:00:00Z',
    ]);
  });

  it('a listed plan orders by start and answers next, between and overlapping by binary search', () => {
    const plan = new ListedPlan([
      occ('b', '2026-07-01T19:00:00Z', 30),
      occ('a', '2026-07-01T18:00:00Z', 90),
      occ('c', '2026-07-02T18:00:00Z', 30),
    ]);
    expect(plan.next(T('2026-07-01T18:00:00Z'))?.id).toBe('b');
    expect(plan.between(T('2026-07-01T00:00:00Z'), T('2026-07-02T18:00:00Z'), 2).map((o) => o.id)).toEqual(['b', 'c']);
    expect(plan.overlapping(T('2026-07-01T19:10:00Z'), T('2026-07-01T20:00:00Z'), 5).map((o) => o.id)).toEqual([
      'a',
      'b',
    ]);
  });
});

describe('the scheduler times a listed plan', () => {
  it('starts each occurrence under its own id, ends it at its (padded) end, re-times a move before the start', async () => {
    const clock = new ManualClock(T('2026-07-01T17:00:00Z'));
    const { scheduler, seen } = await run(LISTED, clock);
    scheduler.setOccurrences('cal', [occ('news', '2026-07-01T18:00:00Z', 30)], Number.POSITIVE_INFINITY);
    expect(scheduler.nextStart()?.start).toBe(T('2026-07-01T18:00:00Z'));
    // moved later before it starts: timed anew, no start at the old time
    scheduler.setOccurrences('cal', [occ('news', '2026-07-01T18:10:00Z', 30)], Number.POSITIVE_INFINITY);
    await clock.advance(110 * 60_000);
    expect(seen.starts.map((s) => [s.slot.key, new Date(s.slot.start).toISOString()])).toEqual([
      ['sched:cal:news', '2026-07-01T18:10:00.000Z'],
    ]);
    expect(seen.starts[0].slot).toMatchObject({ occurrence: 'news', programme: { title: 'news' } });
    expect(seen.ends.map((e) => new Date(e.slot.end).toISOString())).toEqual(['2026-07-01T18:40:00.000Z']);
  });

  it('moves the end of a recording whose occurrence moves, and reports an occurrence cancelled before its start', async () => {
    const clock = new ManualClock(T('2026-07-01T17:59:00Z'));
    const { scheduler, seen } = await run(LISTED, clock);
    scheduler.setOccurrences(
      'cal',
      [occ('news', '2026-07-01T18:00:00Z', 30), occ('late', '2026-07-01T20:00:00Z', 30)],
      Number.POSITIVE_INFINITY,
    );
    await clock.advance(2 * 60_000);
    expect(seen.starts).toHaveLength(1);
    // the programme overruns: the guide says it ends at 18:45; "late" is dropped
    const change = scheduler.setOccurrences('cal', [occ('news', '2026-07-01T18:00:00Z', 45)], Number.POSITIVE_INFINITY);
    expect(change?.endsMoved).toEqual([
      { key: 'sched:cal:news', from: T('2026-07-01T18:30:00Z'), to: T('2026-07-01T18:45:00Z') },
    ]);
    expect(seen.missed.map((m) => [m.slot.key, m.why])).toEqual([['sched:cal:late', 'cancelled']]);
    await clock.advance(30 * 60_000);
    expect(seen.ends).toHaveLength(0);
    await clock.advance(15 * 60_000);
    expect(seen.ends.map((e) => new Date(e.slot.end).toISOString())).toEqual(['2026-07-01T18:45:00.000Z']);
    await clock.advance(3 * 3600_000);
    expect(seen.starts).toHaveLength(1);
  });

  it('a cancelled recording runs to its end unless the window stops it; an occurrence added late is caught up', async () => {
    const clock = new ManualClock(T('2026-07-01T18:00:00Z'));
    const { scheduler, seen } = await run(LISTED, clock);
    scheduler.setOccurrences('cal', [occ('a', '2026-07-01T18:00:00Z', 60), occ('b', '2026-07-01T18:00:00Z', 60)], 0);
    expect(seen.starts.map((s) => s.slot.key)).toEqual(['sched:cal:a', 'sched:cal:b']);
    await clock.advance(60_000);
    // a kept (on_cancel: keep), b stopped (on_cancel: stop); c appears in the listing while already on air
    scheduler.setOccurrences('cal', [occ('c', '2026-07-01T17:50:00Z', 60)], Number.POSITIVE_INFINITY, {
      stopCancelled: true,
    });
    await clock.advance(1);
    expect(seen.ends.map((e) => e.slot.key).sort()).toEqual(['sched:cal:a', 'sched:cal:b']);
    expect(seen.starts.map((s) => [s.slot.key, s.slot.reason])).toContainEqual(['sched:cal:c', 'catch-up']);
  });

  it('keeps the occurrences a message gave across a restart', async () => {
    const clock = new ManualClock(T('2026-07-01T17:00:00Z'));
    const store = new MemoryStore();
    const first = await run(LISTED, clock, store);
    first.scheduler.setOccurrences('cal', [occ('n', '2026-07-01T18:00:00Z', 30)], Number.POSITIVE_INFINITY, {
      keep: true,
    });
    first.scheduler.stop();
    const second = await run(LISTED, clock, store);
    expect(second.scheduler.nextStart()?.start).toBe(T('2026-07-01T18:00:00Z'));
    await clock.advance(3600_000);
    expect(second.seen.starts.map((s) => s.slot.key)).toEqual(['sched:cal:n']);
  });
});

describe('upgrade: state saved before the plan', () => {
  const CRON = `windows:
  - id: news
    cron: "0 18 * * *"
    timezone: UTC
    duration: 30m
`;

  it('a cron slot in progress and one ended within the replay time keep their keys and act once', async () => {
    // the state as the version before saved it: slots without occurrence ids
    const saved: SchedulerState = {
      version: 1,
      paused: false,
      routesChannels: true,
      active: [
        {
          key: 'sched:news:2026-07-01T18:00:00Z',
          windowId: 'news',
          start: T('2026-07-01T18:00:00Z'),
          end: T('2026-07-01T18:30:00Z'),
          reason: 'scheduled',
          window: loadScheduleYaml(CRON).windows[0],
          channel: { id: 'c1', state: 'RECORDING' },
        },
      ],
      emitted: {
        'sched:news:2026-07-01T18:00:00Z': { phase: 'start', end: T('2026-07-01T18:30:00Z') },
        'sched:news:2026-06-30T18:00:00Z': { phase: 'end', end: T('2026-06-30T18:30:00Z') },
      },
      ended: [],
    };
    const store = new MemoryStore();
    store.state = saved;
    const clock = new ManualClock(T('2026-07-01T18:10:00Z'));
    const { seen } = await run(CRON, clock, store);
    await clock.advance(24.5 * 3600_000);
    // the slot in progress ends once under its old key; today's start is not made again; tomorrow's starts once
    expect(seen.ends.map((e) => e.slot.key)).toEqual([
      'sched:news:2026-07-01T18:00:00Z',
      'sched:news:2026-07-02T18:00:00Z',
    ]);
    expect(seen.starts.map((s) => s.slot.key)).toEqual(['sched:news:2026-07-02T18:00:00Z']);
    expect(seen.errors).toEqual([]);
  });

  it('coordination keys of cron slots are the ones Redis already holds; a listed occurrence is named by its id', () => {
    const cron = slotKeys('media-spaces:', { schedule: 'sched:news', slot: T('2026-07-01T18:00:00Z'), phase: 'start' });
    expect(cron.claim).toBe('media-spaces:slot:sched%3Anews:2026-07-01T18:00:00.000Z:start:claim');
    const listed = slotKeys('media-spaces:', {
      schedule: 'sched:cal',
      slot: T('2026-07-01T18:05:00Z'),
      phase: 'end',
      occurrence: 'uid-1@example.com',
    });
    expect(listed.claim).toBe('media-spaces:slot:sched%3Acal:o:uid-1%40example.com:end:claim');
    // the high-water mark still compares times
    expect(listed.slot).toBe('2026-07-01T18:05:00.000Z');
  });
});

describe('a redeploy cut off an end mid-stop', () => {
  it('replays the end whose message was never sent, and not the one that was', async () => {
    const CRON = `windows:\n  - id: news\n    cron: "0 18 * * *"\n    timezone: UTC\n    duration: 30m\n`;
    const window = loadScheduleYaml(CRON).windows[0];
    const ended = (day: string, message?: unknown) => ({
      key: `sched:news:2026-07-0${day}T18:00:00Z`,
      windowId: 'news',
      start: T(`2026-07-0${day}T18:00:00Z`),
      end: T(`2026-07-0${day}T18:30:00Z`),
      reason: 'scheduled' as const,
      window,
      channel: { id: `c${day}` },
      endedAt: T('2026-07-02T18:30:00Z'),
      ...(message ? { message } : {}),
    });
    const store = new MemoryStore();
    store.state = {
      version: 1,
      paused: false,
      active: [],
      emitted: {},
      ended: [ended('1', { idempotency_key: 'sent' }), ended('2')],
    };
    const clock = new ManualClock(T('2026-07-02T18:30:30Z'));
    const ends: EndEvent[] = [];
    const scheduler = new Scheduler({
      scheduleId: 'sched',
      config: loadScheduleYaml(CRON),
      clock,
      store,
      onStart: () => {},
      onEnd: (e) => ends.push(e),
    });
    running.push(scheduler);
    await scheduler.start({ replayEnds: false });
    expect(ends.map((e) => [e.slot.key, e.replay])).toEqual([['sched:news:2026-07-02T18:00:00Z', true]]);
  });
});

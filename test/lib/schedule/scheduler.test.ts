import { afterEach, describe, expect, it } from 'vitest';
import { loadScheduleYaml, type ScheduleConfig } from '../../../lib/schedule/config';
import {
  type EndEvent,
  type MissedEvent,
  Scheduler,
  type SchedulerState,
  type SchedulerStore,
  type StartEvent,
} from '../../../lib/schedule/scheduler';
import { ManualClock } from '../../support/manual-clock';

class MemoryStore implements SchedulerStore {
  state: SchedulerState | undefined;
  saves = 0;
  load() {
    return this.state === undefined ? undefined : structuredClone(this.state);
  }
  save(state: SchedulerState) {
    this.saves++;
    this.state = structuredClone(state);
  }
}

const YAML = `windows:
  - id: news
    name: Evening news
    cron: "0 18 * * *"
    timezone: Europe/London
    duration: 90m
  - id: weekly
    cron: "0 9 * * mon"
    timezone: America/New_York
    duration: 1h
`;

const T = (iso: string) => Date.parse(iso);

/** The shared test clock, refusing delays setTimeout would not honour (the scheduler re-arms in steps). */
const manualClock = (start: number) => new ManualClock(start, { strictDelays: true });

interface Harness {
  scheduler: Scheduler;
  starts: StartEvent[];
  ends: EndEvent[];
  missed: MissedEvent[];
  errors: unknown[];
  log: string[];
}

const running: Scheduler[] = [];
afterEach(() => {
  for (const s of running.splice(0)) s.stop();
});

async function harness(
  clock: ManualClock,
  store: MemoryStore,
  config: ScheduleConfig = loadScheduleYaml(YAML),
  extra: { catchUp?: boolean } = {},
): Promise<Harness> {
  const h: Harness = { starts: [], ends: [], missed: [], errors: [], log: [] } as unknown as Harness;
  h.scheduler = new Scheduler({
    scheduleId: 'sched',
    config,
    clock,
    store,
    catchUp: extra.catchUp,
    onStart: (e) => {
      h.starts.push(e);
      h.log.push(`start ${e.slot.key} ${e.slot.reason} @${new Date(clock.now()).toISOString()}`);
    },
    onEnd: (e) => {
      h.ends.push(e);
      h.log.push(`end ${e.slot.key} @${new Date(clock.now()).toISOString()}`);
    },
    onMissed: (e) => {
      h.missed.push(e);
      h.log.push(`missed ${e.slot.key} ${e.why} @${new Date(clock.now()).toISOString()}`);
    },
    onError: (err) => h.errors.push(err),
  });
  running.push(h.scheduler);
  await h.scheduler.start();
  return h;
}

describe('Scheduler with a controlled clock', () => {
  it('a saved state is not changed by what the scheduler does after it (a store may keep it as given)', async () => {
    const clock = manualClock(T('2024-11-22T17:59:00Z'));
    const saved: SchedulerState[] = [];
    const keeping: SchedulerStore = { load: () => undefined, save: (state) => void saved.push(state) };
    const h = await harness(clock, keeping as MemoryStore);
    await clock.advance(60_000);
    const key = 'sched:news:2024-11-22T18:00:00Z';
    const atStart = saved.at(-1) as SchedulerState;
    const asSaved = structuredClone(atStart);
    h.scheduler.rememberChannel(key, { id: 'ch-1', name: 'news' });
    await clock.advance(90 * 60_000);
    h.scheduler.rememberEnd(key, { payload: { workflow_id: 'w' } });
    expect(saved.length).toBeGreaterThan(2);
    expect(atStart).toEqual(asSaved);
    expect(atStart.active.map((s) => [s.key, s.channel])).toEqual([[key, undefined]]);
    expect(atStart.emitted[key]).toEqual({ phase: 'start', end: T('2024-11-22T19:30:00Z') });
  });

  it('emits start and end at the right instants', async () => {
    const clock = manualClock(T('2024-11-22T12:00:00Z'));
    const store = new MemoryStore();
    const h = await harness(clock, store);
    expect(h.scheduler.nextStart()).toMatchObject({ start: T('2024-11-22T18:00:00Z') });

    await clock.advance(6 * 3600_000 - 1);
    expect(h.starts).toHaveLength(0);
    await clock.advance(1);
    expect(h.log).toEqual(['start sched:news:2024-11-22T18:00:00Z scheduled @2024-11-22T18:00:00.000Z']);
    expect(h.scheduler.activeSlots().map((s) => s.key)).toEqual(['sched:news:2024-11-22T18:00:00Z']);

    await clock.advance(90 * 60_000);
    expect(h.log.slice(1)).toEqual(['end sched:news:2024-11-22T18:00:00Z @2024-11-22T19:30:00.000Z']);
    expect(h.ends[0].slot).toMatchObject({ start: T('2024-11-22T18:00:00Z'), end: T('2024-11-22T19:30:00Z') });
    expect(h.scheduler.activeSlots()).toHaveLength(0);
    expect(store.state?.emitted['sched:news:2024-11-22T18:00:00Z']).toEqual({
      phase: 'end',
      end: T('2024-11-22T19:30:00Z'),
    });
    expect(h.errors).toEqual([]);
  });

  it('runs for weeks with bounded timers and the right starts (incl. the clocks-change Monday)', async () => {
    const clock = manualClock(T('2024-10-25T00:00:00Z'));
    const h = await harness(clock, new MemoryStore());
    await clock.advance(14 * 24 * 3600_000);
    const weekly = h.starts.filter((s) => s.window.id === 'weekly').map((s) => s.slot.key);
    // New York moves from EDT to EST on 3 Nov: 09:00 local is 13:00Z, then 14:00Z
    expect(weekly).toEqual(['sched:weekly:2024-10-28T13:00:00Z', 'sched:weekly:2024-11-04T14:00:00Z']);
    const news = h.starts.filter((s) => s.window.id === 'news').map((s) => s.slot.key);
    expect(news).toHaveLength(14);
    // London goes back on 27 Oct: 18:00 local is 17:00Z before, 18:00Z after
    expect(news.slice(0, 3)).toEqual([
      'sched:news:2024-10-25T17:00:00Z',
      'sched:news:2024-10-26T17:00:00Z',
      'sched:news:2024-10-27T18:00:00Z',
    ]);
    expect(h.ends).toHaveLength(16);
    expect(clock.maxPending).toBe(1);
  });

  it('fires once on the clocks-change nights (London spring gap, New York repeated hour)', async () => {
    const config = loadScheduleYaml(`windows:
  - id: london
    cron: "30 1 * * *"
    timezone: Europe/London
    duration: 30m
  - id: ny
    cron: "30 1 * * *"
    timezone: America/New_York
    duration: 30m
`);
    const spring = manualClock(T('2024-03-30T12:00:00Z'));
    const a = await harness(spring, new MemoryStore(), config);
    await spring.advance(2 * 24 * 3600_000);
    expect(a.starts.filter((s) => s.window.id === 'london').map((s) => s.slot.key)).toEqual([
      'sched:london:2024-03-31T01:00:00Z', // 01:30 does not exist: 02:00 BST
      'sched:london:2024-04-01T00:30:00Z',
    ]);
    a.scheduler.stop();

    const fall = manualClock(T('2024-11-02T12:00:00Z'));
    const b = await harness(fall, new MemoryStore(), config);
    await fall.advance(2 * 24 * 3600_000);
    expect(b.starts.filter((s) => s.window.id === 'ny').map((s) => s.slot.key)).toEqual([
      'sched:ny:2024-11-03T05:30:00Z', // 01:30 EDT; not again at 01:30 EST
      'sched:ny:2024-11-04T06:30:00Z',
    ]);
    expect(b.ends.filter((e) => e.window.id === 'ny')).toHaveLength(2);
  });

  it('catches up a start missed while stopped, once, and still ends it on time', async () => {
    const clock = manualClock(T('2024-11-22T17:00:00Z'));
    const store = new MemoryStore();
    const first = await harness(clock, store);
    first.scheduler.stop();

    clock.jump(75 * 60_000); // down from 17:00 to 18:15: the 18:00 start was missed
    const second = await harness(clock, store);
    expect(second.log).toEqual(['start sched:news:2024-11-22T18:00:00Z catch-up @2024-11-22T18:15:00.000Z']);

    // restart again inside the same window: no second start
    second.scheduler.stop();
    clock.jump(10 * 60_000);
    const third = await harness(clock, store);
    expect(third.starts).toHaveLength(0);
    expect(third.scheduler.activeSlots().map((s) => s.key)).toEqual(['sched:news:2024-11-22T18:00:00Z']);

    await clock.advance(65 * 60_000);
    expect(third.log).toEqual(['end sched:news:2024-11-22T18:00:00Z @2024-11-22T19:30:00.000Z']);
  });

  it('keeps a window in progress across a restart and emits its end at the right time', async () => {
    const clock = manualClock(T('2024-11-22T17:59:00Z'));
    const store = new MemoryStore();
    const first = await harness(clock, store);
    await clock.advance(60_000);
    expect(first.starts).toHaveLength(1);
    first.scheduler.rememberChannel('sched:news:2024-11-22T18:00:00Z', { id: 'ch-1' });
    first.scheduler.stop();

    clock.jump(30 * 60_000);
    const second = await harness(clock, store);
    expect(second.starts).toHaveLength(0);
    await clock.advance(60 * 60_000 - 1);
    expect(second.ends).toHaveLength(0);
    await clock.advance(1);
    expect(second.log).toEqual(['end sched:news:2024-11-22T18:00:00Z @2024-11-22T19:30:00.000Z']);
    expect(second.ends[0].channel).toEqual({ id: 'ch-1' });
  });

  it('emits an end that passed while stopped as soon as it restarts', async () => {
    const clock = manualClock(T('2024-11-22T17:59:00Z'));
    const store = new MemoryStore();
    const first = await harness(clock, store);
    await clock.advance(60_000);
    first.scheduler.stop();
    clock.jump(3 * 3600_000);
    const second = await harness(clock, store);
    expect(second.starts).toHaveLength(0);
    expect(second.log).toEqual(['end sched:news:2024-11-22T18:00:00Z @2024-11-22T21:00:00.000Z']);
  });

  it('does not catch up a window that closed while stopped', async () => {
    const clock = manualClock(T('2024-11-22T17:00:00Z'));
    const store = new MemoryStore();
    (await harness(clock, store)).scheduler.stop();
    clock.jump(3 * 3600_000); // 20:00, window 18:00-19:30 is over
    const h = await harness(clock, store);
    expect(h.starts).toHaveLength(0);
    expect(h.scheduler.nextStart()).toMatchObject({ start: T('2024-11-23T18:00:00Z') });
  });

  it('starts a window in progress at once on a first deploy, and not when catch-up is off', async () => {
    const clock = manualClock(T('2024-11-22T18:30:00Z'));
    const on = await harness(clock, new MemoryStore());
    expect(on.starts.map((s) => [s.slot.key, s.slot.reason])).toEqual([
      ['sched:news:2024-11-22T18:00:00Z', 'catch-up'],
    ]);
    const off = await harness(clock, new MemoryStore(), undefined, { catchUp: false });
    expect(off.starts).toHaveLength(0);
  });

  it('replays a lost start with the same slot key (so the channel request is idempotent)', async () => {
    const clock = manualClock(T('2024-11-22T17:59:59Z'));
    const store = new MemoryStore();
    const first = await harness(clock, store);
    await clock.advance(1000);
    const key = first.starts[0].slot.key;
    first.scheduler.stop();
    store.state = undefined; // the record was lost (e.g. memory context after a crash)
    clock.jump(5 * 60_000);
    const second = await harness(clock, store);
    expect(second.starts.map((s) => s.slot.key)).toEqual([key]);
  });

  it('pauses starts (skipped, not caught up), still ends, and resumes', async () => {
    const clock = manualClock(T('2024-11-22T17:00:00Z'));
    const h = await harness(clock, new MemoryStore());
    await clock.advance(3600_000); // 18:00 start
    h.scheduler.pause();
    expect(h.scheduler.nextStart()).toBeUndefined();
    await clock.advance(24 * 3600_000); // past the 19:30 end and the next 18:00 start
    expect(h.log.map((l) => l.split(' ')[0])).toEqual(['start', 'end', 'missed']);
    // reported at the start instant it fell on, once
    expect(h.log[2]).toBe('missed sched:news:2024-11-23T18:00:00Z paused @2024-11-23T18:00:00.000Z');
    h.scheduler.resume();
    expect(h.starts).toHaveLength(1);
    await clock.advance(24 * 3600_000);
    expect(h.starts.map((s) => s.slot.key)).toEqual([
      'sched:news:2024-11-22T18:00:00Z',
      'sched:news:2024-11-24T18:00:00Z',
    ]);
  });

  it('reports a skipped start as missed at its instant, and never starts it', async () => {
    const clock = manualClock(T('2024-11-22T17:00:00Z'));
    const h = await harness(clock, new MemoryStore());
    h.scheduler.skipNext('news');
    await clock.advance(3 * 3600_000);
    expect(h.starts).toHaveLength(0);
    expect(h.ends).toHaveLength(0);
    expect(h.log).toEqual(['missed sched:news:2024-11-22T18:00:00Z skipped @2024-11-22T18:00:00.000Z']);
    await clock.advance(24 * 3600_000);
    expect(h.starts.map((s) => s.slot.key)).toEqual(['sched:news:2024-11-23T18:00:00Z']);
    expect(h.missed).toHaveLength(1);
  });

  it("gives each window's next start as the timer reads it, past skipped starts, without a new search each time", async () => {
    const clock = manualClock(T('2024-11-22T17:00:00Z'));
    const h = await harness(clock, new MemoryStore());
    const nextOf = (windowId: string) => {
      const next = h.scheduler.nextStartsOfWindows().find((n) => n.windowId === windowId);
      return next && { start: next.start, end: next.end, slotKey: next.slotKey };
    };
    expect(h.scheduler.nextStartsOfWindows().map((n) => n.windowId)).toEqual(['news', 'weekly']);
    expect(nextOf('news')).toEqual({
      start: T('2024-11-22T18:00:00Z'),
      end: T('2024-11-22T19:30:00Z'),
      slotKey: 'sched:news:2024-11-22T18:00:00Z',
    });
    expect(nextOf('weekly')?.start).toBe(T('2024-11-25T14:00:00Z'));
    expect(nextOf('nope')).toBeUndefined();
    h.scheduler.skipNext('news');
    expect(nextOf('news')?.slotKey).toBe('sched:news:2024-11-23T18:00:00Z');
    await clock.advance(25 * 3600_000);
    expect(nextOf('news')?.slotKey).toBe('sched:news:2024-11-24T18:00:00Z');
    // the same answer as the timeline's, from the occurrence the timer is armed for: a refreshed badge asks
    // again on every slot move, and the plan is not searched again while nothing moved
    const plan = h.scheduler.planOf(loadScheduleYaml(YAML).windows[0]);
    const search = plan.next.bind(plan);
    let searches = 0;
    plan.next = (after: number) => {
      searches++;
      return search(after);
    };
    for (let i = 0; i < 10; i++) h.scheduler.nextStartsOfWindows();
    expect(searches).toBe(0);
    expect(h.scheduler.upcoming(1, clock.now(), 'news', false)[0]?.slotKey).toBe('sched:news:2024-11-24T18:00:00Z');
    expect(searches).toBeGreaterThan(0);
  });

  it('ends a slot whose start was given up at its end, without waiting for a channel, and says why', async () => {
    const clock = manualClock(T('2024-11-22T17:59:00Z'));
    const h = await harness(clock, new MemoryStore());
    await clock.advance(60_000);
    const key = 'sched:news:2024-11-22T18:00:00Z';
    // the flow routes channels back (an earlier slot's came back), so ends wait for theirs
    h.scheduler.rememberChannel(key, { id: 'c1' });
    await clock.advance(90 * 60_000);
    await clock.advance(23 * 3600_000 - 60_000);
    await clock.advance(60_000); // next day's 18:00 start
    const next = 'sched:news:2024-11-23T18:00:00Z';
    expect(h.scheduler.rememberStartFailure(next, { message: '503 Service Unavailable', attempts: 7 })).toBe(true);
    await clock.advance(90 * 60_000);
    const end = h.ends.find((e) => e.slot.key === next);
    expect(end?.startFailure).toEqual({ message: '503 Service Unavailable', attempts: 7 });
    expect(h.log.at(-1)).toBe(`end ${next} @2024-11-23T19:30:00.000Z`);
    expect(h.scheduler.rememberStartFailure(next, { message: 'late', attempts: 1 })).toBe(false);
  });

  it('waits for a channel requested before its end, in a flow that never routed one back, until it comes', async () => {
    const clock = manualClock(T('2024-11-22T17:59:00Z'));
    const h = await harness(clock, new MemoryStore());
    await clock.advance(60_000);
    const key = 'sched:news:2024-11-22T18:00:00Z';
    // create channel's first request is out at the end (a slow service): the end waits for its answer
    h.scheduler.awaitChannel(key);
    await clock.advance(90 * 60_000);
    expect(h.ends).toHaveLength(0);
    await clock.advance(5_000);
    expect(h.scheduler.rememberChannel(key, { id: 'late' })).toBe(true);
    await clock.advance(1);
    expect(h.ends.map((e) => [e.slot.key, (e.channel as { id: string }).id])).toEqual([[key, 'late']]);
  });

  it('a requested channel whose request failed: the end waits no longer than any other', async () => {
    const clock = manualClock(T('2024-11-22T17:59:00Z'));
    const h = await harness(clock, new MemoryStore());
    await clock.advance(60_000);
    const key = 'sched:news:2024-11-22T18:00:00Z';
    h.scheduler.awaitChannel(key);
    h.scheduler.channelRequestFailed(key);
    await clock.advance(90 * 60_000);
    expect(h.ends.map((e) => e.slot.key)).toEqual([key]);
  });

  it('triggers a window now, with its own slot, and ends it after the duration', async () => {
    const clock = manualClock(T('2024-11-22T10:00:00.250Z'));
    const h = await harness(clock, new MemoryStore());
    const event = h.scheduler.trigger('news');
    expect(event.slot).toMatchObject({
      key: 'sched:news:2024-11-22T10:00:00Z',
      reason: 'manual',
      end: T('2024-11-22T11:30:00Z'),
    });
    // one start path: the manual start reaches onStart as a timed start does
    expect(h.starts.map((e) => e.slot.key)).toEqual(['sched:news:2024-11-22T10:00:00Z']);
    expect(() => h.scheduler.trigger('news')).toThrow(/already started/);
    expect(() => h.scheduler.trigger('nope')).toThrow(/no window with id "nope"/);
    await clock.advance(90 * 60_000);
    expect(h.ends.map((e) => e.slot.key)).toEqual(['sched:news:2024-11-22T10:00:00Z']);
  });

  it('reloads windows without losing slots in progress', async () => {
    const clock = manualClock(T('2024-11-22T17:59:00Z'));
    const h = await harness(clock, new MemoryStore());
    await clock.advance(60_000);
    h.scheduler.setConfig(
      loadScheduleYaml(`windows:
  - id: morning
    cron: "0 6 * * *"
    timezone: Europe/London
    duration: 30m
`),
    );
    expect(h.scheduler.nextStart()).toMatchObject({ window: { id: 'morning' }, start: T('2024-11-23T06:00:00Z') });
    await clock.advance(24 * 3600_000);
    expect(h.log.map((l) => l.split(' ').slice(0, 2).join(' '))).toEqual([
      'start sched:news:2024-11-22T18:00:00Z',
      'end sched:news:2024-11-22T18:00:00Z',
      'start sched:morning:2024-11-23T06:00:00Z',
      'end sched:morning:2024-11-23T06:00:00Z',
    ]);
    // the removed window's end used its snapshot
    expect(h.ends[0].window.name).toBe('Evening news');
  });

  it('prunes old records and lists upcoming starts', async () => {
    const clock = manualClock(T('2024-11-22T12:00:00Z'));
    const store = new MemoryStore();
    const h = await harness(clock, store);
    await clock.advance(4 * 24 * 3600_000);
    const keys = Object.keys(store.state?.emitted ?? {});
    expect(keys.length).toBeLessThanOrEqual(3);
    expect(h.starts.length).toBeGreaterThanOrEqual(4);
    const upcoming = h.scheduler.upcoming(3);
    expect(upcoming.map((u) => u.slotKey)).toEqual([
      'sched:news:2024-11-26T18:00:00Z',
      'sched:news:2024-11-27T18:00:00Z',
      'sched:news:2024-11-28T18:00:00Z',
    ]);
  });

  it('stops every timer on stop', async () => {
    const clock = manualClock(T('2024-11-22T12:00:00Z'));
    const h = await harness(clock, new MemoryStore());
    expect(clock.pending()).toBe(1);
    h.scheduler.stop();
    expect(clock.pending()).toBe(0);
    await clock.advance(7 * 24 * 3600_000);
    expect(h.starts).toHaveLength(0);
  });

  it('reports callback failures without stopping', async () => {
    const clock = manualClock(T('2024-11-22T17:59:00Z'));
    const errors: unknown[] = [];
    let ends = 0;
    const s = new Scheduler({
      scheduleId: 'x',
      config: loadScheduleYaml(YAML),
      clock,
      onStart: () => {
        throw new Error('boom');
      },
      onEnd: () => {
        ends++;
      },
      onError: (e) => errors.push(e),
    });
    running.push(s);
    await s.start();
    await clock.advance(2 * 3600_000);
    expect((errors[0] as Error).message).toBe('boom');
    expect(ends).toBe(1);
  });
});

describe('Scheduler with vitest fake timers and the system clock', () => {
  it('fires at the wall-clock instant', async () => {
    const { vi } = await import('vitest');
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'] });
    try {
      vi.setSystemTime(T('2024-11-22T17:00:00Z'));
      const starts: string[] = [];
      const s = new Scheduler({
        scheduleId: 'sys',
        config: loadScheduleYaml(YAML),
        onStart: (e) => starts.push(`${e.slot.key}@${new Date().toISOString()}`),
        onEnd: () => {},
      });
      running.push(s);
      await s.start();
      vi.advanceTimersByTime(3600_000);
      expect(starts).toEqual(['sys:news:2024-11-22T18:00:00Z@2024-11-22T18:00:00.000Z']);
      s.stop();
      expect(vi.getTimerCount()).toBe(0);
    } finally {
      vi.useRealTimers();
    }
  });
});

describe('Scheduler with channels routed back (the flow of the demo)', () => {
  it('ends every window on time, not only the first, when each channel comes back during its window', async () => {
    // Before the fix only the first end was on time: once a channel had come back, every later slot's end
    // waited for its channel (end + channelWaitMs), and the channel coming back did not re-arm the timer.
    const clock = manualClock(T('2024-11-22T12:00:00Z'));
    const config = loadScheduleYaml(`windows:
  - id: short
    cron: "*/10 * * * * *"
    timezone: UTC
    duration: 5s
`);
    const ends: { key: string; at: number; expected: number; channel: unknown }[] = [];
    const scheduler: Scheduler = new Scheduler({
      scheduleId: 'sched',
      config,
      clock,
      catchUp: false,
      onStart: ({ slot }) => {
        // create-channel answers 300 ms later, well within the 5-second window
        clock.setTimeout(() => scheduler.rememberChannel(slot.key, { id: `ch-${slot.start}` }), 300);
      },
      onEnd: ({ slot, channel }) => ends.push({ key: slot.key, at: clock.now(), expected: slot.end, channel }),
    });
    running.push(scheduler);
    await scheduler.start();
    await clock.advance(12 * 10_000);
    expect(ends.length).toBeGreaterThanOrEqual(11);
    for (const end of ends) {
      expect(end.at, end.key).toBe(end.expected);
      expect(end.channel, end.key).toMatchObject({ id: expect.stringMatching(/^ch-/) });
    }
  });

  it('still waits for a channel that has not come back by the end, and goes at once when it does', async () => {
    const clock = manualClock(T('2024-11-22T12:00:00Z'));
    const config = loadScheduleYaml(`windows:
  - id: short
    cron: "*/10 * * * * *"
    timezone: UTC
    duration: 5s
`);
    const ends: { key: string; at: number }[] = [];
    let replyAfter = 100;
    const scheduler: Scheduler = new Scheduler({
      scheduleId: 'sched',
      config,
      clock,
      catchUp: false,
      channelWaitMs: 15_000,
      onStart: ({ slot }) => {
        clock.setTimeout(() => scheduler.rememberChannel(slot.key, { id: `ch-${slot.start}` }), replyAfter);
      },
      onEnd: ({ slot }) => ends.push({ key: slot.key, at: clock.now() - slot.end }),
    });
    running.push(scheduler);
    await scheduler.start();
    await clock.advance(10_000); // the first slot starts at 12:00:10; its channel comes back 100 ms later
    replyAfter = 7_000; // the second slot's (12:00:20) comes back 2 s after its end
    await clock.advance(10_000);
    await clock.advance(6_000);
    expect(ends.map((e) => e.at)).toEqual([0]);
    await clock.advance(1_000);
    expect(ends.map((e) => e.at)).toEqual([0, 2_000]);
  });
});

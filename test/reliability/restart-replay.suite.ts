import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { loadScheduleYaml } from '../../lib/schedule/config';
import {
  type EndEvent,
  Scheduler,
  type SchedulerState,
  type SchedulerStore,
  type StartEvent,
} from '../../lib/schedule/scheduler';
import { JobFollower } from '../../lib/watch/job-follower';
import { newerState, StateJournal, stateJournal } from '../../nodes/schedule/state-journal';
import { ManualClock } from '../support/manual-clock';

/**
 * The pieces behind the restart suite's guarantees, one by one and on a
 * controlled clock: the schedule's replay of recent ends and of starts whose
 * channel never came back, the follower's de-duplication of a replayed
 * waiter, and the schedule's journal (when it is used, which copy wins).
 */

const YAML = `windows:
  - id: news
    name: News
    cron: "0 18 * * *"
    timezone: UTC
    duration: 30m
`;
const T = (iso: string) => Date.parse(iso);
const KEY = 'sched:news:2024-11-22T18:00:00Z';

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

async function scheduler(clock: ManualClock, store: MemoryStore, replayMs?: number) {
  const starts: StartEvent[] = [];
  const ends: EndEvent[] = [];
  const s = new Scheduler({
    scheduleId: 'sched',
    config: loadScheduleYaml(YAML),
    clock,
    store,
    replayMs,
    onStart: (e) => starts.push(e),
    onEnd: (e) => ends.push(e),
  });
  running.push(s);
  await s.start();
  return { s, starts, ends };
}

describe('schedule replay after a restart', () => {
  it('emits a recent end again (with the message first sent), and not once the replay period is over', async () => {
    const clock = new ManualClock(T('2024-11-22T17:59:00Z'));
    const store = new MemoryStore();
    const first = await scheduler(clock, store);
    await clock.advance(31 * 60_000); // 18:00 start, 18:30 end
    expect(first.ends.map((e) => [e.slot.key, e.replay])).toEqual([[KEY, undefined]]);
    expect(first.s.rememberEnd(KEY, { idempotency_key: `${KEY}:end`, payload: { a: 1 } })).toBe(true);
    first.s.stop();

    // a crash 30 s after the end, back a minute later: the end again, as it was sent
    const second = await scheduler(clock, store);
    expect(second.starts).toEqual([]);
    expect(second.ends).toHaveLength(1);
    expect(second.ends[0]).toMatchObject({
      replay: true,
      slot: { key: KEY },
      message: { idempotency_key: `${KEY}:end`, payload: { a: 1 } },
    });
    second.s.stop();

    // three minutes after the end: nothing is replayed, and the record is gone
    await clock.advance(3 * 60_000);
    const third = await scheduler(clock, store);
    expect(third.ends).toEqual([]);
    await clock.advance(1000);
    expect(store.state?.ended ?? []).toEqual([]);
  });

  it('does not replay the end of a slot that recorded nothing: its missed report went once', async () => {
    const clock = new ManualClock(T('2024-11-22T17:59:00Z'));
    const store = new MemoryStore();
    const first = await scheduler(clock, store);
    await clock.advance(60_000);
    first.s.rememberStartFailure(KEY, { message: 'HTTP 503', attempts: 9 });
    await clock.advance(30 * 60_000);
    expect(first.ends.map((e) => [e.slot.key, e.startFailure?.attempts])).toEqual([[KEY, 9]]);
    first.s.stop();
    const afterFailure = await scheduler(clock, store);
    expect(afterFailure.ends).toEqual([]);
    afterFailure.s.stop();

    // the next day, in a flow that routes channels back, no channel came back: missed, and not replayed either
    const nextKey = 'sched:news:2024-11-23T18:00:00Z';
    store.state = { ...(store.state as SchedulerState), routesChannels: true };
    const second = await scheduler(clock, store);
    await clock.advance(24 * 3600_000 + 20_000); // the end waited 15 s for a channel, then went without
    expect(second.ends.map((e) => [e.slot.key, e.channel])).toEqual([[nextKey, undefined]]);
    second.s.stop();
    const afterNoChannel = await scheduler(clock, store);
    expect(afterNoChannel.ends).toEqual([]);
    expect(afterNoChannel.starts).toEqual([]);
  });

  it('replays no sent end on a redeploy (replayEnds false), only after a restart', async () => {
    const clock = new ManualClock(T('2024-11-22T17:59:00Z'));
    const store = new MemoryStore();
    const first = await scheduler(clock, store);
    await clock.advance(31 * 60_000);
    // the end's message went out (an end cut off before it was sent is replayed on a redeploy too)
    expect(first.s.rememberEnd(first.ends[0].slot.key, { idempotency_key: `${first.ends[0].slot.key}:end` })).toBe(
      true,
    );
    first.s.stop();
    const ends: EndEvent[] = [];
    const redeployed = new Scheduler({
      scheduleId: 'sched',
      config: loadScheduleYaml(YAML),
      clock,
      store,
      onStart: () => undefined,
      onEnd: (e) => ends.push(e),
    });
    running.push(redeployed);
    await redeployed.start({ replayEnds: false });
    expect(ends).toEqual([]);
    redeployed.stop();
    const restarted = await scheduler(clock, store);
    expect(restarted.ends.map((e) => e.replay)).toEqual([true]);
  });

  it('replays nothing with replayMs 0', async () => {
    const clock = new ManualClock(T('2024-11-22T17:59:00Z'));
    const store = new MemoryStore();
    const first = await scheduler(clock, store, 0);
    await clock.advance(31 * 60_000);
    first.s.stop();
    const second = await scheduler(clock, store, 0);
    expect(second.ends).toEqual([]);
  });

  it('emits a start again when the flow routes channels back and this slot never got its channel', async () => {
    const clock = new ManualClock(T('2024-11-22T17:59:00Z'));
    const store = new MemoryStore();
    const first = await scheduler(clock, store);
    await clock.advance(60_000);
    expect(first.starts).toHaveLength(1);
    first.s.stop();

    // no channel was ever routed back: a flow without create-channel wired back; no second start
    const quiet = await scheduler(clock, store);
    expect(quiet.starts).toEqual([]);
    quiet.s.stop();

    // a channel came back for an earlier slot: the flow routes channels, so the lost one is asked for again
    store.state = { ...(store.state as SchedulerState), routesChannels: true };
    const second = await scheduler(clock, store);
    expect(second.starts.map((e) => [e.slot.key, e.replay])).toEqual([[KEY, true]]);
    expect(second.s.rememberChannel(KEY, { id: 'ch-1' })).toBe(true);
    second.s.stop();

    // with the channel remembered, the next restart asks for nothing; the end carries it
    const third = await scheduler(clock, store);
    expect(third.starts).toEqual([]);
    await clock.advance(30 * 60_000);
    expect(third.ends.map((e) => e.channel)).toEqual([{ id: 'ch-1' }]);
  });

  it('asks again for the channel of a window that closed while down, within the replay period; the end waits for it', async () => {
    const clock = new ManualClock(T('2024-11-22T17:59:00Z'));
    const store = new MemoryStore();
    const first = await scheduler(clock, store);
    await clock.advance(60_000);
    first.s.stop();
    store.state = { ...(store.state as SchedulerState), routesChannels: true };
    await clock.advance(30 * 60_000); // back at 18:31, a minute after the window closed
    const second = await scheduler(clock, store);
    expect(second.starts.map((e) => [e.slot.key, e.replay])).toEqual([[KEY, true]]);
    expect(second.ends).toEqual([]);
    await clock.advance(2000); // the channel comes back: the end goes at once, carrying it
    expect(second.s.rememberChannel(KEY, { id: 'ch-late' })).toBe(true);
    expect(second.ends.map((e) => [e.slot.key, e.channel])).toEqual([[KEY, { id: 'ch-late' }]]);
  });

  it('waits for the channel of a start caught up just before the end, and not forever', async () => {
    const clock = new ManualClock(T('2024-11-22T17:59:00Z'));
    const store = new MemoryStore();
    const first = await scheduler(clock, store);
    await clock.advance(60_000);
    first.s.rememberChannel(KEY, { id: 'ch-0' }); // this flow routes channels back
    await clock.advance(24 * 3600_000 - 5 * 60_000); // next day 17:55
    first.s.stop();
    await clock.advance(34 * 60_000 + 59_800); // down until 18:29:59.800: 200 ms of the window left
    const second = await scheduler(clock, store);
    const nextKey = 'sched:news:2024-11-23T18:00:00Z';
    expect(second.starts.map((e) => [e.slot.key, e.slot.reason])).toEqual([[nextKey, 'catch-up']]);
    await clock.advance(1000); // the end is due, the channel not back yet: it waits
    expect(second.ends).toEqual([]);
    second.s.rememberChannel(nextKey, { id: 'ch-1' });
    expect(second.ends.map((e) => e.channel)).toEqual([{ id: 'ch-1' }]);
  });

  it('sends the end without the channel once the wait is over', async () => {
    const clock = new ManualClock(T('2024-11-22T17:59:00Z'));
    const store = new MemoryStore();
    const first = await scheduler(clock, store);
    await clock.advance(60_000);
    first.s.stop();
    store.state = { ...(store.state as SchedulerState), routesChannels: true };
    await clock.advance(10 * 60_000);
    const second = await scheduler(clock, store); // 18:10: the start again; no channel ever comes back
    expect(second.starts).toHaveLength(1);
    await clock.advance(20 * 60_000 + 14_900); // 18:30:14.9
    expect(second.ends).toEqual([]);
    await clock.advance(100);
    expect(second.ends.map((e) => [e.slot.key, e.channel])).toEqual([[KEY, undefined]]);
  });

  it('does not emit a start again once its window has closed', async () => {
    const clock = new ManualClock(T('2024-11-22T17:59:00Z'));
    const store = new MemoryStore();
    const first = await scheduler(clock, store);
    await clock.advance(60_000);
    first.s.stop();
    store.state = { ...(store.state as SchedulerState), routesChannels: true };
    await clock.advance(45 * 60_000); // down until 18:46: the window closed more than the replay period ago
    const second = await scheduler(clock, store);
    expect(second.starts).toEqual([]);
    expect(second.ends.map((e) => [e.slot.key, e.replay, e.channel])).toEqual([[KEY, undefined, undefined]]);
  });
});

describe('job follower: a replayed waiter is one party', () => {
  const job = { id: 'j1', workflow_id: 'w1', state: 'in-process' };
  const follower = () =>
    new JobFollower<{ id: string }>({
      clock: new ManualClock(0),
      intervalMs: 1000,
      getJob: () => new Promise(() => undefined),
    });

  it('lets a live waiter take the place of the resumed one with its key', () => {
    const f = follower();
    f.resume([{ jobId: 'j1', workflowId: 'w1', waiters: [{ data: { resumed: true }, key: 'slot:end' }] }]);
    const entry = f.follow({
      jobId: 'j1',
      workflowId: 'w1',
      job,
      data: { live: true },
      handle: { id: 'h' },
      key: 'slot:end',
    });
    expect(entry.waiters.map((w) => [w.data, w.handle])).toEqual([[{ live: true }, { id: 'h' }]]);
    expect(f.snapshot()[0].waiters).toEqual([{ data: { live: true }, key: 'slot:end' }]);
    f.close({ persist: false });
  });

  it('does not add a resumed waiter next to one with its key, and keeps two live ones', () => {
    const f = follower();
    f.follow({ jobId: 'j1', workflowId: 'w1', job, data: 1, handle: { id: 'a' }, key: 'k' });
    f.resume([{ jobId: 'j1', workflowId: 'w1', waiters: [{ data: 0, key: 'k' }] }]);
    expect(f.get('w1', 'j1')?.waiters).toHaveLength(1);
    f.follow({ jobId: 'j1', workflowId: 'w1', job, data: 2, handle: { id: 'b' }, key: 'k' });
    f.follow({ jobId: 'j1', workflowId: 'w1', job, data: 3, handle: { id: 'c' } });
    expect(f.get('w1', 'j1')?.waiters.map((w) => w.data)).toEqual([1, 2, 3]);
    f.close({ persist: false });
  });
});

describe('schedule journal', () => {
  const dirs: string[] = [];
  afterEach(() => {
    for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
  });

  it('is kept in the context directory with localfilesystem, in the user directory with any other store', () => {
    const userDir = '/u';
    const file = (storage: unknown, more: Record<string, unknown> = {}) =>
      stateJournal({ userDir, contextStorage: storage, ...more }, 'schedule', 'a1.b2')?.file;
    const own = '/u/.media-spaces/schedule-a1.b2.json';
    expect(file(undefined)).toBe(own);
    expect(file({ default: { module: 'memory' } })).toBe(own);
    expect(file({ default: { module: 'localfilesystem' } })).toBe('/u/context/.media-spaces/schedule-a1.b2.json');
    expect(file({ default: 'disk', disk: { module: 'localfilesystem', config: { dir: '/d', base: 'ctx' } } })).toBe(
      '/d/ctx/.media-spaces/schedule-a1.b2.json',
    );
    expect(file({ disk: { module: 'localfilesystem' }, mem: { module: 'memory' } })).toBe(
      '/u/context/.media-spaces/schedule-a1.b2.json',
    );
    expect(file({ mem: { module: 'memory' }, disk: { module: 'localfilesystem' } })).toBe(own);
    // turned off for read-only installations, and nowhere to keep it without a user directory
    expect(file(undefined, { mediaSpaces: { journal: false } })).toBeUndefined();
    expect(file({ default: { module: 'localfilesystem' } }, { mediaSpaces: { journal: false } })).toBeUndefined();
    expect(stateJournal({ contextStorage: { default: { module: 'memory' } } }, 'schedule', 'x')).toBeUndefined();
  });

  it('writes its two copies in turn, reads back the newer, and the newer copy wins over the context', () => {
    const dir = mkdtempSync(join(tmpdir(), 'journal-'));
    dirs.push(dir);
    const journal = new StateJournal(join(dir, 'deep', 'j.json'));
    expect(journal.copies).toEqual([join(dir, 'deep', 'j.1.json'), join(dir, 'deep', 'j.2.json')]);
    expect(journal.read()).toBeUndefined();
    journal.write({ savedAt: 2, active: [] });
    expect(journal.read()).toEqual({ savedAt: 2, active: [], journalWrite: 1 });
    journal.write({ savedAt: 3, active: [{ key: 'k' }] });
    // each copy holds one state, numbered: the newer is read
    expect(JSON.parse(readFileSync(journal.copies[0], 'utf8'))).toEqual({ savedAt: 2, active: [], journalWrite: 1 });
    expect(JSON.parse(readFileSync(journal.copies[1], 'utf8'))).toMatchObject({ savedAt: 3, journalWrite: 2 });
    expect(journal.read()).toMatchObject({ savedAt: 3, active: [{ key: 'k' }] });
    // a shorter state overwrites the older copy in place, with nothing of the longer one left after it
    journal.write({ savedAt: 4 });
    expect(readFileSync(journal.copies[0], 'utf8')).toBe('{"savedAt":4,"journalWrite":3}');
    expect(new StateJournal(join(dir, 'deep', 'j.json')).read()).toEqual({ savedAt: 4, journalWrite: 3 });
    expect(newerState({ savedAt: 1 }, journal.read())).toMatchObject({ savedAt: 4 });
    expect(newerState({ savedAt: 5 }, journal.read())).toEqual({ savedAt: 5 });
    expect(newerState(undefined, { savedAt: 1 })).toEqual({ savedAt: 1 });
    expect(newerState({ active: [] }, undefined)).toEqual({ active: [] });
    journal.remove();
    expect(journal.read()).toBeUndefined();
    expect(readdirSync(join(dir, 'deep'))).toEqual([]);
  });

  it('the last write is read back even when the clock was set back between two writes', () => {
    const dir = mkdtempSync(join(tmpdir(), 'journal-'));
    dirs.push(dir);
    const journal = new StateJournal(join(dir, 'j.json'));
    journal.write({ savedAt: 10_000, active: [{ key: 'earlier' }] });
    journal.write({ savedAt: 9_000, active: [{ key: 'last' }] });
    const restarted = new StateJournal(join(dir, 'j.json'));
    expect(restarted.read()).toMatchObject({ active: [{ key: 'last' }] });
    // and its writes go on from the numbers it read
    restarted.write({ savedAt: 8_000, active: [{ key: 'after the restart' }] });
    expect(new StateJournal(join(dir, 'j.json')).read()).toMatchObject({ active: [{ key: 'after the restart' }] });
  });

  it('a write cut short leaves the state before it: the copy that does not parse is passed over', () => {
    const dir = mkdtempSync(join(tmpdir(), 'journal-'));
    dirs.push(dir);
    const journal = new StateJournal(join(dir, 'j.json'));
    journal.write({ savedAt: 1, active: [{ key: 'before' }] });
    journal.write({ savedAt: 2, active: [{ key: 'newest' }] });
    // killed between the write and the truncate: the newer copy ends in the longer state's tail
    writeFileSync(journal.copies[1], '{"savedAt":3,"journalWrite":3}y":"newest"}]}');
    const restarted = new StateJournal(join(dir, 'j.json'));
    expect(restarted.read()).toEqual({ savedAt: 1, active: [{ key: 'before' }], journalWrite: 1 });
    // and the next write goes to the broken copy, not over the whole one
    restarted.write({ savedAt: 4 });
    expect(JSON.parse(readFileSync(journal.copies[0], 'utf8'))).toMatchObject({ active: [{ key: 'before' }] });
    expect(restarted.read()).toMatchObject({ savedAt: 4 });
  });

  it('the single file of earlier releases is read, wins when newer, and is removed at the first write', () => {
    const dir = mkdtempSync(join(tmpdir(), 'journal-'));
    dirs.push(dir);
    const legacy = join(dir, 'schedule-n1.json');
    writeFileSync(legacy, JSON.stringify({ savedAt: 7, active: [{ key: 'old release' }] }));
    const journal = new StateJournal(legacy);
    expect(journal.read()).toEqual({ savedAt: 7, active: [{ key: 'old release' }] });
    journal.write({ savedAt: 8, active: [] });
    expect(existsSync(legacy)).toBe(false);
    expect(journal.read()).toMatchObject({ savedAt: 8, active: [] });
  });

  it("the earlier releases' file is removed at the first write when it does not parse, or was not read first", () => {
    const dir = mkdtempSync(join(tmpdir(), 'journal-'));
    dirs.push(dir);
    const broken = join(dir, 'schedule-n2.json');
    writeFileSync(broken, '{"savedAt":7,"act');
    const journal = new StateJournal(broken);
    expect(journal.read()).toBeUndefined();
    journal.write({ savedAt: 8, active: [] });
    expect(existsSync(broken)).toBe(false);
    const unread = join(dir, 'schedule-n3.json');
    writeFileSync(unread, JSON.stringify({ savedAt: 7, active: [{ key: 'old release' }] }));
    new StateJournal(unread).write({ savedAt: 9, active: [] });
    expect(existsSync(unread)).toBe(false);
    expect(new StateJournal(unread).read()).toMatchObject({ savedAt: 9, active: [] });
  });
});

import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  type AsRunEntry,
  AsRunRecorder,
  foldRecords,
  JsonlAsRunStore,
  RedisAsRunStore,
  type RedisCommands,
} from '../../../lib/asrun';
import { RedisConnection } from '../../../lib/coordination';
import { slotJobs } from '../../../lib/schedule/slot-events';
import { pinClock, unpinClock } from '../../support/pinned-clock';
import { RedisServer } from '../../support/redis-server';
import { SlotStory } from '../../support/slot-transitions';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'ms-asrun-'));
});
afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

const DAY = 86_400_000;

describe('JSON Lines store', () => {
  it('appends one line per entry to the file of the UTC day of writing, and reads them back in order', async () => {
    let now = Date.parse('2026-11-26T23:59:00Z');
    const store = new JsonlAsRunStore(dir, 90, () => now);
    const s = new SlotStory({ start: '2026-11-26T23:50:00Z' });
    const [a, b] = [s.to('starting', 0), s.to('recording', 1, { channel: { id: 'c' } })];
    await store.append({ kind: 'slot', event: a });
    now += 120_000;
    await store.append({ kind: 'slot', event: b });
    expect(readdirSync(dir).sort()).toEqual(['as-run-2026-11-26.jsonl', 'as-run-2026-11-27.jsonl']);
    expect(readFileSync(path.join(dir, 'as-run-2026-11-26.jsonl'), 'utf8')).toBe(
      `${JSON.stringify({ kind: 'slot', event: a })}\n`,
    );
    const read = await store.read(Date.parse('2026-11-26T00:00:00Z'), Date.parse('2026-11-27T12:00:00Z'));
    expect(read.map((e) => (e.kind === 'slot' ? e.event.to : ''))).toEqual(['starting', 'recording']);
  });

  it('writes entries that come at once in their order, to their days, and tells each of a failed write', async () => {
    let now = Date.parse('2026-11-26T23:59:59Z');
    const store = new JsonlAsRunStore(dir, 90, () => now);
    const s = new SlotStory({ start: '2026-11-26T23:50:00Z' });
    const events = Array.from({ length: 50 }, (_, i) => s.to('starting', i));
    const pending = events.map((event, i) => {
      if (i === 30) now += 2000; // past midnight: the rest go to the next day's file
      return store.append({ kind: 'slot', event });
    });
    await Promise.all(pending);
    const lines = (date: string) =>
      readFileSync(path.join(dir, `as-run-${date}.jsonl`), 'utf8')
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l).event);
    expect(lines('2026-11-26')).toEqual(events.slice(0, 30));
    expect(lines('2026-11-27')).toEqual(events.slice(30));

    const blocked = path.join(dir, 'not-a-directory');
    writeFileSync(blocked, '');
    const failing = new JsonlAsRunStore(path.join(blocked, 'as-run'), 90, () => now);
    const told: number[] = [];
    await Promise.all(
      events.slice(0, 3).map((event, i) => failing.append({ kind: 'slot', event }, () => told.push(i))),
    );
    expect(told).toEqual([0, 1, 2]);
    // and the next append is tried again
    await failing.append({ kind: 'slot', event: events[3] }, () => told.push(3));
    expect(told).toEqual([0, 1, 2, 3]);
  });

  it('skips a line torn by a crash mid-write and goes on appending after it', async () => {
    const now = Date.parse('2026-11-26T12:00:00Z');
    const store = new JsonlAsRunStore(dir, 90, () => now);
    const s = new SlotStory({ start: '2026-11-26T11:00:00Z' });
    await store.append({ kind: 'slot', event: s.to('starting', 0) });
    const file = path.join(dir, 'as-run-2026-11-26.jsonl');
    writeFileSync(file, `${readFileSync(file, 'utf8')}{"kind":"slot","event":{"slot":"x`, { flag: 'w' });
    writeFileSync(file, '\n', { flag: 'a' });
    await store.append({ kind: 'slot', event: s.to('missed', 60, { why: 'no channel' }) });
    const [r] = foldRecords(await store.read(now - DAY, now));
    expect(r).toMatchObject({ outcome: 'missed', reason: 'no channel' });
  });

  it('deletes the day files older than the retention when a new day begins', async () => {
    let now = Date.parse('2026-11-26T12:00:00Z');
    const store = new JsonlAsRunStore(dir, 3, () => now);
    writeFileSync(path.join(dir, 'as-run-2026-11-22.jsonl'), '');
    writeFileSync(path.join(dir, 'as-run-2026-11-23.jsonl'), '');
    writeFileSync(path.join(dir, 'notes.txt'), 'kept');
    const s = new SlotStory({ start: '2026-11-26T11:00:00Z' });
    await store.append({ kind: 'slot', event: s.to('starting', 0) });
    expect(readdirSync(dir).sort()).toEqual(['as-run-2026-11-23.jsonl', 'as-run-2026-11-26.jsonl', 'notes.txt']);
    now += DAY;
    await store.append({ kind: 'slot', event: s.to('missed', 1) });
    expect(readdirSync(dir).sort()).toEqual(['as-run-2026-11-26.jsonl', 'as-run-2026-11-27.jsonl', 'notes.txt']);
  });
});

describe('the recorder', () => {
  // its slots are on 2026-11-26, and the recorder writes to the file of the day it writes on
  beforeEach(() => pinClock('2026-11-26T18:00:00Z'));
  afterEach(() => unpinClock());

  it('logs what is published, keeps nothing of a slot, and a restart mid-slot completes the same single record', async () => {
    const first = new AsRunRecorder({ dir });
    first.start();
    const s = new SlotStory({ start: '2026-11-26T17:00:00Z', title: 'Evening' });
    s.go('planned', -86_400);
    s.go('starting', 0);
    s.go('recording', 2, { lateBy: 2, channel: { id: 'c1' } });
    await first.flushed();
    first.stop();
    // the process dies; the next one starts its recorder on the same directory
    const second = new AsRunRecorder({ dir });
    second.start();
    try {
      s.go('stopping', 1800);
      s.go('finishing', 1801);
      s.go('finished', 1805, { channel: { id: 'c1', outputs: [{ uri: 'file:///x' }] } });
      s.job('succeeded', 'job-9', 12);
      await second.flushed();
      const records = await second.read({ day: '2026-11-26', zone: 'Europe/Paris' });
      expect(records).toHaveLength(1);
      expect(records[0]).toMatchObject({
        outcome: 'recorded',
        actual: { start: '2026-11-26T17:00:02Z', end: '2026-11-26T17:30:01Z' },
        channels: [{ id: 'c1', outputs: [{ uri: 'file:///x' }] }],
        job: { id: 'job-9', state: 'succeeded', elapsed: 12 },
      });
      // planned transitions are not logged
      const lines = readdirSync(dir).flatMap((f) => readFileSync(path.join(dir, f), 'utf8').trim().split('\n'));
      expect(lines).toHaveLength(6);
    } finally {
      second.stop();
    }
  });

  it('reads a day of a zone, filtered by outcome and by schedule id or name', async () => {
    const recorder = new AsRunRecorder({ dir });
    recorder.start();
    try {
      // 23:30 UTC on the 25th is 00:30 on the 26th in Paris; 23:30 UTC on the 26th is the 27th there
      const early = new SlotStory({ start: '2026-11-25T23:30:00Z' }).recorded();
      new SlotStory({ start: '2026-11-26T23:30:00Z' }).recorded();
      const other = new SlotStory({ start: '2026-11-26T12:00:00Z', schedule: { id: 's2', name: 'Sport' } });
      other.go('missed', 30, { why: 'offline' });
      await recorder.flushed();
      const day = await recorder.read({ day: '2026-11-26', zone: 'Europe/Paris' });
      expect(day.map((r) => r.slot)).toEqual([early.slot, other.slot]);
      expect((await recorder.read({ day: '2026-11-26', zone: 'UTC' })).map((r) => r.scheduled.start)).toEqual([
        '2026-11-26T12:00:00Z',
        '2026-11-26T23:30:00Z',
      ]);
      const missed = await recorder.read({ day: '2026-11-26', zone: 'Europe/Paris', outcome: 'missed' });
      expect(missed.map((r) => r.slot)).toEqual([other.slot]);
      expect((await recorder.read({ day: '2026-11-26', zone: 'Europe/Paris', schedule: 'Sport' })).length).toBe(1);
      expect((await recorder.read({ day: '2026-11-26', zone: 'Europe/Paris', schedule: 's2' })).length).toBe(1);
      await expect(recorder.read({ day: '2026-13-01', zone: 'UTC' })).rejects.toThrow(/YYYY-MM-DD/);
      await expect(recorder.read({ day: '2026-11-26', zone: 'Mars/Olympus' })).rejects.toThrow(/IANA/);
    } finally {
      recorder.stop();
    }
  });
});

describe('the recorder and a coordinated schedule with its own schedule_id', () => {
  // its slots are on 2026-11-26, and the recorder writes to the file of the day it writes on
  beforeEach(() => pinClock('2026-11-26T18:00:00Z'));
  afterEach(() => unpinClock());

  it("writes the follow-up job's outcome to the stream of the slot's schedule node, not of the key's head", async () => {
    const sent: string[][] = [];
    const redis: RedisCommands = {
      send: async (args) => {
        sent.push(args);
        return 'ok';
      },
    };
    const store = new RedisAsRunStore(redis, 'media-spaces:');
    const recorder = new AsRunRecorder({ dir, redisFor: (id) => (id === 'node0001' ? store : undefined) });
    recorder.start();
    try {
      const s = new SlotStory({
        start: '2026-11-26T18:00:00Z',
        schedule: { id: 'node0001', name: 'Studio A' },
        coordinated: true,
      });
      // the schedule's schedule_id heads its slot keys
      const slot = s.slot.replace(/^node0001:/, 'studio-a:');
      s.go('missed', 60, { slot });
      slotJobs.publish({ slot, job: { id: 'job-1', state: 'succeeded' } });
      await recorder.flushed();
      await new Promise((r) => setImmediate(r));
      expect(sent.map((a) => JSON.parse(a.at(-1) ?? '{}').kind)).toEqual(['slot', 'job']);
    } finally {
      recorder.stop();
    }
  });
});

describe('Redis Stream store (real redis-server)', () => {
  let redis: RedisServer;
  const connections: RedisConnection[] = [];
  const connect = () => {
    const c = new RedisConnection({ url: redis.url });
    connections.push(c);
    return c;
  };
  beforeAll(async () => {
    redis = await RedisServer.start();
  });
  afterAll(async () => {
    await Promise.all(connections.map((c) => c.close()));
    await redis.dispose();
  });

  it('two instances each write what they acted on; both read one complete record per slot', async () => {
    const a = new RedisAsRunStore(connect(), 'media-spaces:');
    const b = new RedisAsRunStore(connect(), 'media-spaces:');
    const s = new SlotStory({ start: '2026-11-26T17:00:00Z', coordinated: true });
    // instance A starts the slot and dies; instance B takes over and ends it
    await a.append({ kind: 'slot', event: s.to('starting', 0) });
    await a.append({ kind: 'slot', event: s.to('recording', 5, { lateBy: 5, channel: { id: 'c' } }) });
    await b.append({ kind: 'slot', event: s.to('stopping', 1800) });
    await b.append({ kind: 'slot', event: s.to('finished', 1805, { channel: { id: 'c', outputs: ['o'] } }) });
    await b.append({
      kind: 'job',
      at: '2026-11-26T17:40:00Z',
      event: { slot: s.slot, job: { id: 'j', state: 'succeeded' } },
    });
    const now = Date.now();
    for (const store of [a, b]) {
      const records = foldRecords(await store.read(now - 60_000, now + 60_000));
      expect(records).toHaveLength(1);
      expect(records[0]).toMatchObject({
        outcome: 'recorded',
        lateBy: 5,
        channels: [{ id: 'c', outputs: ['o'] }],
        job: { id: 'j', state: 'succeeded' },
        coordinated: true,
      });
    }
    expect(await redis.cli('XLEN', 'media-spaces:as-run')).toBe('5');
  });

  it('pages through long ranges and trims entries older than the retention', async () => {
    const store = new RedisAsRunStore(connect(), 'page:', 5);
    const s = new SlotStory({ start: '2026-11-26T00:00:00Z' });
    // an entry Redis took six days ago (its id is its time)
    const sixDaysAgo = Date.now() - 6 * DAY;
    const old: AsRunEntry = { kind: 'slot', event: s.to('starting', 0) };
    await redis.cli('XADD', 'page:as-run', `${sixDaysAgo}-0`, 'e', JSON.stringify(old));
    expect(await redis.cli('XLEN', 'page:as-run')).toBe('1');
    const many = Array.from({ length: 2100 }, (_, i) => s.to('recording', i, { channel: { id: `c${i}` } }));
    for (const event of many) await store.append({ kind: 'slot', event });
    expect(await redis.cli('XLEN', 'page:as-run')).toBe('2100');
    const read = await store.read(0, Date.now() + 1000);
    expect(read.map((e) => (e.kind === 'slot' ? e.event.channel?.id : ''))).toEqual(many.map((t) => t.channel?.id));
    expect(foldRecords(read)[0].channels).toHaveLength(2100);
  });
});

describe('reading while Redis is down', () => {
  it('answers from this instance file and names the shared log it could not read', async () => {
    const down: RedisCommands = {
      send: () => Promise.reject(new Error('Redis at 127.0.0.1:1 is unreachable')),
    };
    const recorder = new AsRunRecorder({ dir, redisStores: () => [new RedisAsRunStore(down, 'media-spaces:')] });
    recorder.start();
    try {
      new SlotStory({ start: '2026-11-26T12:00:00Z' }).go('missed', 10, { why: 'offline' });
      await recorder.flushed();
      const warnings: string[] = [];
      const records = await recorder.read({ day: '2026-11-26', zone: 'UTC' }, warnings);
      expect(records.map((r) => r.outcome)).toEqual(['missed']);
      expect(warnings).toEqual([
        "the shared log media-spaces:as-run could not be read (Redis at 127.0.0.1:1 is unreachable): only this instance's slots are shown",
      ]);
    } finally {
      recorder.stop();
    }
  });
});

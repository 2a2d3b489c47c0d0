import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { Coordinator, DoneRecord, SlotRef } from '../../../lib/coordination';
import { slotKeys } from '../../../lib/coordination/keys';
import type { EndEvent, ScheduleWindow, Slot, StartEvent } from '../../../lib/schedule';
import { recordedVerdict } from '../../../nodes/schedule/recorded';
import { type CoordinationOut, SlotCoordination } from '../../../nodes/schedule/slot-coordination';
import { coordinatedStatus } from '../../../nodes/schedule/status';
import type { CoordinationProvider } from '../../../nodes/shared/coordination-provider';
import { connected, Instances, waitFor } from '../../lib/coordination/support';
import { freePort, RedisServer } from '../../support/redis-server';

/**
 * The schedule node's coordination (nodes/schedule/slot-coordination.ts) as
 * two instances would run it: each with its own Coordinator and connection
 * to a real redis-server, given the same slot events; what each emits is
 * recorded.
 */

const LEASE_MS = 300;
const window: ScheduleWindow = {
  id: 'w',
  name: 'W',
  cron: '0 * * * * *',
  duration: 60,
  timezone: 'UTC',
  enabled: true,
  at_end: 'stop',
  channel: {},
};

let redis: RedisServer;
const instances = new Instances();
let prefixCount = 0;

interface Recorded {
  coordination: SlotCoordination;
  coordinator: Coordinator;
  starts: StartEvent[];
  ends: EndEvent[];
  missed: { event: EndEvent; why: string; reason: string }[];
  warnings: string[];
}

function provider(coordinator: Coordinator, whenUnreachable: 'skip' | 'alone' = 'skip'): CoordinationProvider {
  return {
    getCoordinator: () => coordinator,
    coordinationSettings: { whenUnreachable },
    coordinationStatus: () => coordinator.connection.status,
    onCoordinationStatus: (listener) => coordinator.connection.onStatus(listener),
  };
}

function instance(
  name: string,
  prefix: string,
  options: { url?: string; policy?: 'skip' | 'alone'; reportWaitMs?: number; leaseMs?: number } = {},
): Recorded {
  const coordinator = instances.coordinator(options.url ?? redis.url, name, {
    keyPrefix: prefix,
    leaseMs: options.leaseMs ?? LEASE_MS,
  });
  const starts: StartEvent[] = [];
  const ends: EndEvent[] = [];
  const missed: Recorded['missed'] = [];
  const warnings: string[] = [];
  // the slots' lives hold what was started alone; here, as a set
  const alone = new Set<string>();
  const reads = { scheduler: () => undefined, startedAlone: (key: string) => alone.has(key) };
  const out = (effect: CoordinationOut) => {
    if (effect.kind === 'start') starts.push(effect.event);
    else if (effect.kind === 'started-alone') alone.add(effect.key);
    else if (effect.kind === 'missed') missed.push({ event: effect.event, why: effect.why, reason: effect.reason });
    else if (effect.kind === 'warn') warnings.push(effect.text);
    else if (effect.kind === 'end') {
      // as the schedule's emitter does: the one decision of whether the slot recorded (recorded.ts)
      const { event, after, coordinated } = effect;
      const verdict = recordedVerdict({ ...event, heard: false, routesChannels: false, coordinated });
      if (verdict.kind === 'missed') {
        missed.push({ event, why: verdict.why, reason: verdict.reason });
        after(true, verdict.reason);
        return;
      }
      ends.push(event);
      after(true);
    }
  };
  const coordination = new SlotCoordination(provider(coordinator, options.policy), undefined, reads, out, {
    reportWaitMs: options.reportWaitMs,
  });
  return { coordination, coordinator, starts, ends, missed, warnings };
}

function slot(startOffsetMs: number, lengthMs = 5000): Slot {
  const start = Math.floor((Date.now() + startOffsetMs) / 1000) * 1000;
  return {
    key: `sched:w:${new Date(start).toISOString().replace('.000Z', 'Z')}`,
    windowId: 'w',
    start,
    end: start + lengthMs,
    reason: 'scheduled',
  };
}

const open: Recorded[] = [];
function pair(options: { policy?: 'skip' | 'alone' } = {}): [Recorded, Recorded] {
  const prefix = `slots-${++prefixCount}:`;
  const both: [Recorded, Recorded] = [instance('a:1:x', prefix, options), instance('b:2:y', prefix, options)];
  open.push(...both);
  return both;
}

beforeAll(async () => {
  redis = await RedisServer.start();
});
afterEach(() => {
  for (const r of open.splice(0)) r.coordination.close();
});
afterAll(async () => {
  await instances.closeAll();
  await redis.dispose();
});

describe('schedule slots shared by two instances', () => {
  it('emits each start once; the other instance stands by, then learns the channel from Redis', async () => {
    const [a, b] = pair();
    const s = slot(0);
    a.coordination.start({ slot: s, window });
    b.coordination.start({ slot: s, window });
    await waitFor(() => a.starts.length + b.starts.length === 1);
    const [leader, standby] = a.starts.length === 1 ? [a, b] : [b, a];
    await waitFor(() => standby.coordination.role?.kind === 'standby');
    expect(standby.coordination.role?.text).toMatch(/^standby: start of w \d\d:\d\d:\d\d held by (a:1:x|b:2:y)$/);
    expect(leader.coordination.role?.text).toMatch(/^leading: w /);
    leader.coordination.channelReturned(s.key, { id: 'ch-1' });
    // the standby claims again when the lease would have run out and finds the start done
    await waitFor(() => standby.coordination.role?.text.includes('started by') === true, 3000);
    expect(a.starts.length + b.starts.length).toBe(1);
  });

  it('a leader that dies after claiming is replaced within a lease, with the same slot', async () => {
    const [a, b] = pair();
    const s = slot(0);
    a.coordination.start({ slot: s, window });
    await waitFor(() => a.starts.length === 1);
    a.coordination.close(); // "crash": no completion, no renewal
    b.coordination.start({ slot: s, window });
    await waitFor(() => b.starts.length === 1, 3000);
    expect(b.starts[0].slot.key).toBe(s.key);
  });

  it('the end is sent once, by either instance, with the channel the other one started', async () => {
    const [a, b] = pair();
    const s = slot(0);
    a.coordination.start({ slot: s, window });
    await waitFor(() => a.starts.length === 1);
    a.coordination.channelReturned(s.key, { id: 'ch-from-a' });
    await new Promise((r) => setTimeout(r, 100));
    a.coordination.close(); // a is gone before the end
    b.coordination.end({ slot: s, window });
    await waitFor(() => b.ends.length === 1);
    expect(b.ends[0].channel).toEqual({ id: 'ch-from-a' });
  });

  it('Redis lost the start: the instance whose journal holds the channel ends the window, nobody reports it missed', async () => {
    const [a, b] = pair();
    const s = slot(-3000, 2000);
    // b knows of no start and claims the end first; a holds the channel in its journal
    b.coordination.end({ slot: s, window });
    await new Promise((r) => setTimeout(r, 50));
    a.coordination.end({ slot: s, window, channel: { id: 'ch-a' } });
    await waitFor(() => a.ends.length + b.ends.length === 1, 10_000);
    await new Promise((r) => setTimeout(r, LEASE_MS * 3));
    expect([...a.ends, ...b.ends].map((e) => e.channel)).toEqual([{ id: 'ch-a' }]);
    expect(a.missed.length + b.missed.length).toBe(0);
  });

  it('sends no end for a slot nobody started: one instance reports it missed', async () => {
    const [a, b] = pair();
    // ended longer ago than an instance leaves an unstarted end to the others
    const s = slot(-20_000);
    a.coordination.end({ slot: s, window });
    b.coordination.end({ slot: s, window });
    await waitFor(() => a.missed.length + b.missed.length === 1);
    await new Promise((r) => setTimeout(r, LEASE_MS * 2));
    expect(a.ends.length + b.ends.length).toBe(0);
    const [missed] = [...a.missed, ...b.missed];
    expect(missed.why).toBe('not_started');
    expect(missed.reason).toMatch(/no instance started this window/);
    expect(a.missed.length + b.missed.length).toBe(1);
  });

  it('a start given up by its leader is done without a channel: the end reports it missed, with the reason', async () => {
    const [a, b] = pair();
    const s = slot(-1000, 3000);
    a.coordination.start({ slot: s, window });
    b.coordination.start({ slot: s, window });
    await waitFor(() => a.starts.length + b.starts.length === 1);
    const leader = a.starts.length === 1 ? a : b;
    leader.coordination.startFailed(s.key, 'Create channel failed: HTTP 503');
    await new Promise((r) => setTimeout(r, 100));
    const other = leader === a ? b : a;
    other.coordination.end({ slot: s, window });
    await waitFor(() => other.missed.length === 1);
    expect(other.missed[0].why).toBe('start_failed');
    expect(other.missed[0].reason).toBe('Create channel failed: HTTP 503');
    expect(a.ends.length + b.ends.length).toBe(0);
  });

  it('a replayed end this instance sent before is done even after Redis lost its data', async () => {
    const [a] = pair();
    const s = slot(-2000);
    await redis.cli('FLUSHALL');
    a.coordination.end({ slot: s, window, replay: true, message: { idempotency_key: `${s.key}:end` } });
    await new Promise((r) => setTimeout(r, 200));
    expect(a.ends).toEqual([]);
  });

  it('Redis unreachable: skip emits nothing and says so; alone emits', async () => {
    const url = `redis://127.0.0.1:${await freePort()}`;
    const skip = instance('c:3:z', 'gone:', { url, policy: 'skip' });
    const alone = instance('d:4:w', 'gone:', { url, policy: 'alone' });
    open.push(skip, alone);
    const s = slot(0, 2000);
    skip.coordination.start({ slot: s, window });
    alone.coordination.start({ slot: s, window });
    // skip: tried again until the window's end, then skipped; alone: at once
    await waitFor(() => alone.starts.length === 1, 5000);
    expect(alone.warnings[0]).toMatch(/refused the connection.*: start sent by this instance alone$/);
    await waitFor(() => skip.warnings.length === 2, 8000);
    expect(skip.starts).toEqual([]);
    expect(skip.warnings[0]).toMatch(/refused the connection.*: the start is tried again until /);
    expect(skip.warnings[1]).toMatch(/refused the connection.*: start skipped by this instance/);
    expect(skip.coordination.role?.text).toBe('Redis unreachable: skipping slots');
    expect(alone.coordination.role?.text).toBe('Redis unreachable: acting alone');
  });
});

describe("a report every instance makes alike (a conflict's loser), told once", () => {
  const ref = (phase = 'conflict'): SlotRef => ({
    schedule: 'sched:w#conflicts',
    slot: Date.parse('2030-01-01T18:00:00Z'),
    occurrence: '2030-01-01T18:00:00Z',
    phase,
  });
  const until = () => Date.now() + 60_000;
  const trio = (prefix: string) => [1, 2, 3].map((n) => instance(`h${n}:${n}:r`, prefix));

  it('three instances: sent by one; an instance started again sends it no more; a second loss is sent once', async () => {
    const prefix = `reports-${++prefixCount}:`;
    const three = trio(prefix);
    open.push(...three);
    const sent: string[] = [];
    for (const [i, r] of three.entries())
      r.coordination.reportOnce('sched:w:1', ref(), until(), () => sent.push(`i${i}`));
    await waitFor(() => sent.length === 1);
    // a claim taken over would come after a lease
    await new Promise((r) => setTimeout(r, LEASE_MS * 3));
    expect(sent).toHaveLength(1);
    // a restart: an instance that remembers nothing of it
    const again = instance('h1:9:s', prefix);
    open.push(again);
    again.coordination.reportOnce('sched:w:1', ref(), until(), () => sent.push('restarted'));
    await new Promise((r) => setTimeout(r, LEASE_MS * 3));
    expect(sent).toHaveLength(1);
    // lost again after winning: a claim of its own
    for (const r of [...three, again])
      r.coordination.reportOnce('sched:w:1', ref('conflict:2'), until(), () => sent.push('2'));
    await waitFor(() => sent.length === 2);
    await new Promise((r) => setTimeout(r, LEASE_MS * 3));
    expect(sent.slice(1)).toEqual(['2']);
    expect(three.flatMap((r) => r.warnings)).toEqual([]);
  });

  it('the instance that claimed it died before sending: another sends it once its lease ran out', async () => {
    const prefix = `reports-${++prefixCount}:`;
    const dead = instances.coordinator(redis.url, 'dead:1:x', { keyPrefix: prefix, leaseMs: LEASE_MS });
    expect((await dead.claim(ref())).status).toBe('won');
    const [a, b] = trio(prefix);
    open.push(a, b);
    const sent: string[] = [];
    const claimedAt = Date.now();
    a.coordination.reportOnce('sched:w:1', ref(), until(), () => sent.push('a'));
    b.coordination.reportOnce('sched:w:1', ref(), until(), () => sent.push('b'));
    await waitFor(() => sent.length === 1, 5000);
    expect(Date.now() - claimedAt).toBeGreaterThanOrEqual(LEASE_MS - 50);
    await new Promise((r) => setTimeout(r, LEASE_MS * 3));
    expect(sent).toHaveLength(1);
  });

  it('Redis not up yet: the reports wait for it and go through it, sent once', async () => {
    const port = await freePort();
    const url = `redis://127.0.0.1:${port}`;
    const two = [instance('e:5:a', 'late:', { url }), instance('f:6:b', 'late:', { url })];
    open.push(...two);
    const sent: string[] = [];
    for (const r of two) r.coordination.reportOnce('sched:w:1', ref(), until(), () => sent.push(r.warnings.join()));
    await new Promise((r) => setTimeout(r, 1000));
    expect(sent).toEqual([]);
    const late = await RedisServer.startOnPort(port);
    try {
      await waitFor(() => sent.length === 1, 9000);
      await new Promise((r) => setTimeout(r, LEASE_MS * 3));
      expect(sent).toEqual(['']);
      expect(two.flatMap((r) => r.warnings)).toEqual([]);
    } finally {
      await late.dispose();
    }
  });

  it('sent alone while Redis was down: written to Redis once it is back, so that another instance does not send it again', async () => {
    const own = await RedisServer.start();
    try {
      const prefix = `reports-${++prefixCount}:`;
      const a = instance('a:1:x', prefix, { url: own.url, reportWaitMs: 200 });
      open.push(a);
      await connected([a.coordinator]);
      const sent: string[] = [];
      const keepUntil = until();
      await own.stop();
      a.coordination.reportOnce('sched:w:1', ref(), keepUntil, () => sent.push('a'));
      await waitFor(() => sent.length === 1, 5000);
      expect(a.warnings[0]).toMatch(/sends its reports of conflicts and cancellations itself until Redis is back$/);
      await own.start();
      const reader = instances.coordinator(own.url, 'reader:0:r', { keyPrefix: prefix });
      await connected([reader]);
      const record = await doneWithin(reader, ref(), 10_000);
      // another instance (or one started again) that decides the same report, once Redis is back
      const b = instance('b:2:y', prefix, { url: own.url });
      open.push(b);
      b.coordination.reportOnce('sched:w:1', ref(), until(), () => sent.push('b'));
      await new Promise((r) => setTimeout(r, LEASE_MS * 3));
      expect(sent).toEqual(['a']);
      expect(record).toMatchObject({ instance: 'a:1:x', result: { sentAt: expect.any(Number) } });
      // kept as a report sent through Redis is: the coordination node's doneTtl past the loser's end
      const ttl = Number(await reader.connection.send(['PTTL', slotKeys(prefix, ref()).done]));
      expect(ttl).toBeGreaterThan(reader.doneTtlMs + (keepUntil - Date.now()) - 5000);
      expect(b.warnings).toEqual([]);
    } finally {
      await own.dispose();
    }
  });

  it('sent alone while Redis stalled: the claim its timed-out command won is completed, not waited out', async () => {
    const own = await RedisServer.start();
    try {
      const prefix = `reports-${++prefixCount}:`;
      // a lease far longer than the wait below: only this instance's own claim, completed, can be done in time
      const a = instance('a:1:x', prefix, { url: own.url, reportWaitMs: 200, leaseMs: 60_000 });
      open.push(a);
      await connected([a.coordinator]);
      // as on an instance that claimed before: a claim queued in the hung server runs once it goes on
      await a.coordinator.claim(ref('warm-up'));
      const sent: string[] = [];
      own.pause();
      a.coordination.reportOnce('sched:w:1', ref(), until(), () => sent.push('a'));
      // the claim's answer times out: the report goes alone, its claim waiting in the hung server
      await waitFor(() => sent.length === 1, 10_000);
      own.resume();
      const reader = instances.coordinator(own.url, 'reader:0:r', { keyPrefix: prefix });
      await connected([reader]);
      const record = await doneWithin(reader, ref(), 10_000);
      const b = instance('b:2:y', prefix, { url: own.url, leaseMs: 60_000 });
      open.push(b);
      b.coordination.reportOnce('sched:w:1', ref(), until(), () => sent.push('b'));
      await new Promise((r) => setTimeout(r, LEASE_MS * 3));
      expect(record).toMatchObject({ instance: 'a:1:x', result: { sentAt: expect.any(Number) } });
      expect(sent).toEqual(['a']);
    } finally {
      own.resume();
      await own.dispose();
    }
  });

  it('no Redis to use (the coordination node refused its settings): each sends its own, and says so once', async () => {
    const warnings: string[] = [];
    const sent: string[] = [];
    const alone = new SlotCoordination(
      undefined,
      'Redis URL must be redis://host:port',
      { scheduler: () => undefined, startedAlone: () => false },
      (effect) => {
        if (effect.kind === 'warn') warnings.push(effect.text);
      },
    );
    try {
      alone.reportOnce('sched:w:1', ref(), until(), () => sent.push('1'));
      alone.reportOnce('sched:w:2', ref('conflict:2'), until(), () => sent.push('2'));
      await waitFor(() => sent.length === 2);
      expect(sent).toEqual(['1', '2']);
      expect(warnings).toEqual([
        'sched:w:1: Redis coordination unusable (Redis URL must be redis://host:port): this instance sends its reports of conflicts and cancellations itself until Redis is back',
      ]);
    } finally {
      alone.close();
    }
  });
});

/** The done record of `ref` once it is in Redis, or undefined if it is not there within `ms`. */
async function doneWithin(reader: Coordinator, ref: SlotRef, ms: number): Promise<DoneRecord | undefined> {
  const until = Date.now() + ms;
  for (;;) {
    const record = await reader.getDone(ref);
    if (record || Date.now() > until) return record;
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe('the schedule badge with coordination', () => {
  const base = { fill: 'blue', shape: 'ring', text: 'next: Mon 18:00 UTC' } as const;

  it('says Redis is out of reach and what the slots do meanwhile, before anything else', () => {
    const role = { kind: 'leading' as const, text: 'leading: w 18:00:00', until: Date.now() + 60_000 };
    const error = { state: 'error', error: 'Redis rejected the username or password' };
    expect(coordinatedStatus(base, { connection: error, policy: 'skip', role }).text).toBe(
      'Redis unreachable: skipping slots (Redis rejected the username or password)',
    );
    expect(coordinatedStatus(base, { connection: error, policy: 'alone', role: undefined }).text).toMatch(
      /^Redis unreachable: acting alone/,
    );
  });

  it('shows the role while it lasts, then the schedule again', () => {
    const connection = { state: 'connected' };
    const role = { kind: 'standby' as const, text: 'standby: start of w 18:00:00 held by b:2:y', until: 2000 };
    expect(coordinatedStatus(base, { connection, policy: 'skip', role }, 1000)).toEqual({
      fill: 'grey',
      shape: 'dot',
      text: 'standby: start of w 18:00:00 held by b:2:y',
    });
    expect(coordinatedStatus(base, { connection, policy: 'skip', role }, 3000)).toEqual(base);
  });
});

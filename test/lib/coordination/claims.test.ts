import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { ClaimResult, Coordinator } from '../../../lib/coordination';
import { RedisServer } from '../../support/redis-server';
import { connected, Instances, sleep } from './support';

let redis: RedisServer;
const instances = new Instances();

beforeAll(async () => {
  redis = await RedisServer.start();
});
afterEach(async () => {
  await instances.closeAll();
  await redis.cli('FLUSHALL');
});
afterAll(async () => {
  await redis.dispose();
});

function three(options: Parameters<Instances['coordinator']>[2] = {}): Coordinator[] {
  return ['node-a', 'node-b', 'node-c'].map((id) => instances.coordinator(redis.url, id, options));
}

describe('claim and complete across instances', () => {
  it('gives every slot exactly one winner when three instances race on it', async () => {
    const coordinators = three();
    await connected(coordinators);
    const slots = Array.from({ length: 60 }, (_, i) => new Date(Date.UTC(2030, 0, 1, 0, i)).toISOString());
    const winners = new Map<string, string[]>();
    await Promise.all(
      slots.flatMap((slot) =>
        coordinators.map(async (c) => {
          const result = await c.claim({ schedule: 'news', slot, phase: 'start' });
          if (result.status === 'won') {
            winners.set(slot, [...(winners.get(slot) ?? []), c.instanceId]);
            expect((await c.complete({ schedule: 'news', slot, phase: 'start' }, result.token, { slot })).status).toBe(
              'completed',
            );
          } else {
            expect(['held', 'done']).toContain(result.status);
          }
        }),
      ),
    );
    expect(winners.size).toBe(slots.length);
    for (const slot of slots) expect(winners.get(slot)).toHaveLength(1);
    // every instance now sees every slot as done
    for (const slot of slots) {
      for (const c of coordinators)
        expect((await c.claim({ schedule: 'news', slot, phase: 'start' })).status).toBe('done');
    }
  });

  it('lets another instance read the stored result after done (end reads the channel of start)', async () => {
    const [a, b] = three();
    const ref = { schedule: 'news', slot: '2030-01-01T06:00:00Z', phase: 'start' };
    const won = await a.claim(ref);
    if (won.status !== 'won') throw new Error(`expected won, got ${won.status}`);
    const channel = { id: 'ch-1', ingest: 'srt://example/1' };
    expect(await a.complete(ref, won.token, channel)).toEqual({ status: 'completed' });

    const seen = await b.claim(ref);
    expect(seen.status).toBe('done');
    if (seen.status === 'done')
      expect(seen.record).toMatchObject({ instance: 'node-a', token: won.token, result: channel });
    // same slot written differently (Date, other offset) meets on the same key
    const done = await b.getDone({ schedule: 'news', slot: new Date('2030-01-01T07:00:00+01:00'), phase: 'start' });
    expect(done?.result).toEqual(channel);
    expect(await b.getDone({ ...ref, phase: 'end' })).toBeUndefined();
    expect(await b.highWaterMark('news')).toBe('2030-01-01T06:00:00.000Z');
  });

  it('advances the high-water mark only forward', async () => {
    const [a] = three();
    for (const slot of ['2030-01-01T10:00:00Z', '2030-01-01T08:00:00Z']) {
      const r = await a.claim({ schedule: 's', slot, phase: 'start' });
      if (r.status !== 'won') throw new Error('expected won');
      await a.complete({ schedule: 's', slot, phase: 'start' }, r.token);
    }
    expect(await a.highWaterMark('s')).toBe('2030-01-01T10:00:00.000Z');
  });

  it('keeps a done record doneTtlMs past keepUntil: a report made ahead of its slot is still done at the slot', async () => {
    const [a, b] = three({ doneTtlMs: 400 });
    await connected([a, b]);
    const ahead = { schedule: 'news', slot: '2030-01-01T07:00:00Z', phase: 'conflict' };
    const plain = { schedule: 'news', slot: '2030-01-01T08:00:00Z', phase: 'conflict' };
    for (const [ref, keepUntil] of [
      [ahead, Date.now() + 1500],
      [plain, undefined],
    ] as const) {
      const won = await a.claim(ref);
      if (won.status !== 'won') throw new Error(`expected won, got ${won.status}`);
      expect(await a.complete(ref, won.token, { sentAt: 1 }, keepUntil)).toEqual({ status: 'completed' });
    }
    await sleep(1000);
    // past doneTtlMs from now, before it from keepUntil
    expect((await b.claim(ahead)).status).toBe('done');
    expect((await b.claim(plain)).status).toBe('won');
  });

  it('hands an expired lease to another instance with a higher token, and refuses the stale owner', async () => {
    // leases of a few hundred ms: a stall of the test process or of Redis must not end them early
    const [a, b] = three({ leaseMs: 600 });
    const ref = { schedule: 'news', slot: '2030-01-01T06:00:00Z', phase: 'start' };
    const first = await a.claim(ref);
    if (first.status !== 'won') throw new Error('expected won');
    const held = await b.claim(ref);
    expect(held.status).toBe('held');
    if (held.status === 'held') {
      expect(held.holder).toEqual({ instance: 'node-a', token: first.token });
      expect(held.retryInMs).toBeGreaterThan(0);
      expect(held.retryInMs).toBeLessThanOrEqual(600);
    }
    await sleep(700);
    const second = await b.claim(ref);
    if (second.status !== 'won') throw new Error(`expected b to take over, got ${second.status}`);
    expect(second.token).toBeGreaterThan(first.token);

    expect(await a.renew(ref, first.token)).toBe(false);
    const stale = await a.complete(ref, first.token, { id: 'stale' });
    expect(stale).toMatchObject({
      status: 'lost',
      reason: 'claimed',
      holder: { instance: 'node-b', token: second.token },
    });
    expect(await b.complete(ref, second.token, { id: 'fresh' })).toEqual({ status: 'completed' });
    expect((await a.getDone(ref))?.result).toEqual({ id: 'fresh' });
    // and once done, the stale owner is refused for that reason
    expect(await a.complete(ref, first.token)).toMatchObject({ status: 'lost', reason: 'done' });
  });

  it('lets a slow owner complete after its lease ran out if nobody claimed since', async () => {
    const [a] = three({ leaseMs: 100 });
    const ref = { schedule: 'news', slot: '2030-01-01T06:00:00Z', phase: 'end' };
    const won = await a.claim(ref);
    if (won.status !== 'won') throw new Error('expected won');
    await sleep(150);
    expect(await a.complete(ref, won.token)).toEqual({ status: 'completed' });
  });

  it('keeps the lease while renewed, so the other instance stays out', async () => {
    const [a, b] = three({ leaseMs: 600 });
    const ref = { schedule: 'news', slot: '2030-01-01T06:00:00Z', phase: 'start' };
    const won = await a.claim(ref);
    if (won.status !== 'won') throw new Error('expected won');
    const keeper = a.keepLease(ref, won.token);
    try {
      // 1.5 s: two and a half leases, held only by renewals
      for (let i = 0; i < 6; i++) {
        await sleep(250);
        expect((await b.claim(ref)).status).toBe('held');
      }
      expect(keeper.lost).toBe(false);
    } finally {
      keeper.stop();
    }
    expect(await a.complete(ref, won.token)).toEqual({ status: 'completed' });
  });

  it('tells the keeper when its claim was taken over', async () => {
    const [a, b] = three({ leaseMs: 400 });
    const ref = { schedule: 'news', slot: '2030-01-01T06:00:00Z', phase: 'start' };
    const won = await a.claim(ref);
    if (won.status !== 'won') throw new Error('expected won');
    await sleep(500); // a "paused" past its lease
    const taken = await b.claim(ref);
    expect(taken.status).toBe('won');
    let lost = 0;
    const keeper = a.keepLease(ref, won.token, { onLost: () => lost++ });
    await sleep(500); // renewals every 133 ms: the first one learns it
    keeper.stop();
    expect(lost).toBe(1);
    expect(keeper.lost).toBe(true);
  });

  it('replaces a winner that crashed after claiming, within the window (claimUntil)', async () => {
    const [a] = three({ leaseMs: 150 });
    const ref = { schedule: 'news', slot: '2030-01-01T06:00:00Z', phase: 'start' };
    expect((await a.claim(ref)).status).toBe('won');
    await instances.closeAll(); // a "crashes": nothing renews or completes
    const [, b2] = three({ leaseMs: 150 });
    const started = Date.now();
    const result = await b2.claimUntil(ref, { deadline: Date.now() + 2000 });
    expect(result.status).toBe('won');
    expect(Date.now() - started).toBeLessThan(1000);
  });

  it('gives up at the end of the window, or when aborted', async () => {
    const [a, b] = three({ leaseMs: 5000 });
    const ref = { schedule: 'news', slot: '2030-01-01T06:00:00Z', phase: 'start' };
    expect((await a.claim(ref)).status).toBe('won');
    expect(await b.claimUntil(ref, { deadline: Date.now() + 200 })).toEqual({ status: 'expired' });
    const controller = new AbortController();
    const pending = b.claimUntil(ref, { deadline: Date.now() + 60_000, signal: controller.signal });
    setTimeout(() => controller.abort(), 50);
    expect(await pending).toEqual({ status: 'aborted' });
  });

  it('frees a released claim for the next instance at once', async () => {
    const [a, b] = three();
    const ref = { schedule: 'news', slot: '2030-01-01T06:00:00Z', phase: 'start' };
    const won = await a.claim(ref);
    if (won.status !== 'won') throw new Error('expected won');
    expect(await b.release(ref, won.token)).toBe(false); // not b's
    expect(await a.release(ref, won.token)).toBe(true);
    expect((await b.claim(ref)).status).toBe('won');
  });

  it('keeps schedules, slots, phases and key prefixes apart', async () => {
    const a = instances.coordinator(redis.url, 'node-a', { keyPrefix: 'site-1' });
    const b = instances.coordinator(redis.url, 'node-b', { keyPrefix: 'site-2:' });
    const ref = { schedule: 'news', slot: '2030-01-01T06:00:00Z', phase: 'start' };
    const results: ClaimResult[] = [await a.claim(ref), await b.claim(ref)];
    expect(results.map((r) => r.status)).toEqual(['won', 'won']);
    expect((await a.claim({ ...ref, phase: 'end' })).status).toBe('won');
    expect((await a.claim({ ...ref, schedule: 'news:2030-01-01T06:00:00.000Z' })).status).toBe('won');
    const keys = (await redis.cli('--raw', 'KEYS', '*')).split('\n').sort();
    expect(keys.every((k) => k.startsWith('site-1:') || k.startsWith('site-2:'))).toBe(true);
    expect(keys.some((k) => k.startsWith('site-1:slot:news:2030-01-01T06:00:00.000Z:start'))).toBe(true);
  });

  it('refuses bad slot, schedule and token with a clear error before touching Redis', async () => {
    const [a] = three();
    await expect(a.claim({ schedule: 'news', slot: 'tomorrow-ish', phase: 'start' })).rejects.toThrow(
      /slot must be an ISO 8601 time, a Date or epoch ms, got "tomorrow-ish"/,
    );
    await expect(a.claim({ schedule: '', slot: 0, phase: 'start' })).rejects.toThrow(
      /schedule must be a non-empty string/,
    );
    await expect(a.complete({ schedule: 'x', slot: 0, phase: 'start' }, -1)).rejects.toThrow(/token must be/);
  });
});

describe('catch-up mutex', () => {
  it('admits one instance at a time and releases only for the owner', async () => {
    const [a, b, c] = three({ leaseMs: 200 });
    const results = await Promise.all([a, b, c].map((x) => x.acquireCatchUp('news')));
    const acquired = results.filter((r) => r.status === 'acquired');
    expect(acquired).toHaveLength(1);
    const ownerIndex = results.findIndex((r) => r.status === 'acquired');
    const owner = [a, b, c][ownerIndex];
    const other = [a, b, c][(ownerIndex + 1) % 3];
    const token = acquired[0].status === 'acquired' ? acquired[0].token : -1;
    expect(await other.releaseCatchUp('news', token)).toBe(false);
    expect(await owner.renewCatchUp('news', token)).toBe(true);
    expect((await other.acquireCatchUp('news')).status).toBe('held');
    expect((await other.acquireCatchUp('sports')).status).toBe('acquired'); // per schedule
    expect(await owner.releaseCatchUp('news', token)).toBe(true);
    const next = await other.acquireCatchUp('news');
    expect(next.status).toBe('acquired');
    if (next.status === 'acquired') expect(next.token).toBeGreaterThan(token);
  });

  it('expires with its lease, after which the old owner can neither renew nor release', async () => {
    const [a, b] = three();
    const first = await a.acquireCatchUp('news', 100);
    if (first.status !== 'acquired') throw new Error('expected acquired');
    await sleep(150);
    const second = await b.acquireCatchUp('news');
    expect(second.status).toBe('acquired');
    expect(await a.renewCatchUp('news', first.token)).toBe(false);
    expect(await a.releaseCatchUp('news', first.token)).toBe(false);
    expect((await a.acquireCatchUp('news')).status).toBe('held');
  });
});

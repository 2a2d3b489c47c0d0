import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  adopted,
  keptPending,
  type LocalList,
  laterList,
  mayWrite,
  nextVersion,
  readLocalList,
  syncAction,
  written,
} from '../../../lib/coordination';
import { RedisServer } from '../../support/redis-server';
import { connected, Instances } from './support';

describe('shared list versions: which list wins (pure rules)', () => {
  it('adopts a later version from Redis and does nothing when both hold the same', () => {
    expect(syncAction({ version: 0 }, 0)).toEqual({ action: 'none' });
    expect(syncAction({ version: 0 }, 3)).toEqual({ action: 'adopt', version: 3 });
    expect(syncAction({ version: 3, entries: [] }, 3)).toEqual({ action: 'none' });
    expect(syncAction({ version: 3, entries: [] }, 7)).toEqual({ action: 'adopt', version: 7 });
  });

  it('writes its list back when Redis lost it or holds an older one, only if it holds the entries', () => {
    expect(syncAction({ version: 5, entries: [{ id: 'a' }] }, 0)).toEqual({ action: 'restore', version: 5 });
    expect(syncAction({ version: 5, entries: [{ id: 'a' }] }, 2)).toEqual({ action: 'restore', version: 5 });
    expect(syncAction({ version: 5 }, 0)).toEqual({ action: 'none' });
  });

  it('a list kept while Redis was away goes out unless a later one was written meanwhile', () => {
    const local = keptPending({ version: 4, entries: [] }, [{ id: 'mine' }], 1000);
    expect(local.pending?.basedOn).toBe(4);
    // nothing written since: the pending list goes out, conditional on version 4
    expect(syncAction(local, 4)).toEqual({ action: 'write', basedOn: 4, floor: 4 });
    // Redis lost its data meanwhile: still written, above the version this instance knew
    expect(syncAction(local, 0)).toEqual({ action: 'write', basedOn: 4, floor: 4 });
    // another instance wrote version 5 while this one was cut off: that one wins
    expect(syncAction(local, 5)).toEqual({ action: 'superseded', version: 5 });
  });

  it('a second list sent while still cut off replaces the first on the same base', () => {
    const first = keptPending({ version: 2 }, [{ id: 'a' }], 1);
    const second = keptPending(first, [{ id: 'b' }], 2);
    expect(second.pending).toEqual({ entries: [{ id: 'b' }], basedOn: 2, sentAt: 2 });
  });

  it('versions rise above both Redis and the writer: data loss in Redis never makes a list older', () => {
    expect(nextVersion(0, 0)).toBe(1);
    expect(nextVersion(7, 3)).toBe(8);
    expect(nextVersion(0, 9)).toBe(10);
    expect(mayWrite(4, 4)).toBe(true);
    expect(mayWrite(5, 4)).toBe(false);
    expect(mayWrite(9, undefined)).toBe(true);
  });

  it('the later of two lists is the higher version; equal ones are ordered by instance, the same everywhere', () => {
    const a = { version: 3, instance: 'a' };
    const b = { version: 4, instance: 'b' };
    expect(laterList(a, b)).toBe(b);
    expect(laterList(b, a)).toBe(b);
    const a4 = { version: 4, instance: 'a' };
    expect(laterList(a4, b)).toBe(b);
    expect(laterList(b, a4)).toBe(b);
    expect(laterList(undefined, a)).toBe(a);
  });

  it('state after writes and adoptions; saved state read back tolerantly', () => {
    const pending = keptPending({ version: 1, entries: [] }, [{ id: 'x' }], 5);
    expect(written(pending, 3, [{ id: 'x' }])).toEqual({ version: 3, entries: [{ id: 'x' }] });
    expect(adopted(6, [])).toEqual({ version: 6, entries: [] });
    const saved: LocalList = JSON.parse(JSON.stringify(pending));
    expect(readLocalList(saved)).toEqual(pending);
    expect(readLocalList('garbage')).toEqual({ version: 0 });
    expect(readLocalList({ version: -2, pending: { entries: 'no' } })).toEqual({ version: 0 });
  });
});

describe('shared lists in Redis', () => {
  let redis: RedisServer;
  const instances = new Instances();
  const ref = { schedule: 'news:room', window: 'live/1' };

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

  it('one key per schedule and window under the prefix; each write a new version read back whole', async () => {
    const a = instances.coordinator(redis.url, 'node-a', { keyPrefix: 'studio' });
    await connected([a]);
    expect(a.lists.key(ref)).toBe('studio:list:news%3Aroom:live%2F1');
    expect(await a.lists.read(ref)).toBeUndefined();
    expect(await a.lists.versions([ref])).toEqual([0]);
    const first = await a.lists.publish(ref, [{ id: 'one', start: 1, end: 2 }]);
    const second = await a.lists.publish(ref, [{ id: 'two', start: 3, end: 4 }]);
    expect([first, second]).toEqual([
      { status: 'written', version: 1 },
      { status: 'written', version: 2 },
    ]);
    const read = await a.lists.read(ref);
    expect(read).toMatchObject({ version: 2, instance: 'node-a', entries: [{ id: 'two', start: 3, end: 4 }] });
    expect(read?.at).toBeGreaterThan(0);
    expect(Number(await redis.cli('PTTL', a.lists.key(ref)))).toBeGreaterThan(0);
  });

  it('two instances writing at once get distinct versions; the one Redis took last holds the key', async () => {
    const [a, b] = ['node-a', 'node-b'].map((id) => instances.coordinator(redis.url, id));
    await connected([a, b]);
    const results = await Promise.all(
      Array.from({ length: 20 }, (_, i) => (i % 2 ? a : b).lists.publish(ref, [{ id: `list-${i}` }])),
    );
    const versions = results.map((r) => r.version).sort((x, y) => x - y);
    expect(versions).toEqual(Array.from({ length: 20 }, (_, i) => i + 1));
    const last = results.findIndex((r) => r.version === 20);
    const read = await a.lists.read(ref);
    expect(read?.entries).toEqual([{ id: `list-${last}` }]);
    expect(read?.instance).toBe(last % 2 ? 'node-a' : 'node-b');
  });

  it('a conditional write is refused over a later version; a floor keeps versions rising after FLUSHALL', async () => {
    const [a, b] = ['node-a', 'node-b'].map((id) => instances.coordinator(redis.url, id));
    await connected([a, b]);
    await a.lists.publish(ref, [{ id: 'a1' }]);
    await b.lists.publish(ref, [{ id: 'b2' }]);
    // a took its list while cut off, based on version 1: b's version 2 is later
    expect(await a.lists.publish(ref, [{ id: 'a-offline' }], { basedOn: 1, floor: 1 })).toEqual({
      status: 'superseded',
      version: 2,
      instance: 'node-b',
    });
    expect(await a.lists.publish(ref, [{ id: 'a-offline' }], { basedOn: 2, floor: 2 })).toEqual({
      status: 'written',
      version: 3,
    });
    await redis.cli('FLUSHALL');
    expect(await b.lists.publish(ref, [{ id: 'b-after' }], { floor: 3 })).toEqual({ status: 'written', version: 4 });
  });

  it('restore writes a list back only where Redis holds an older one or none', async () => {
    const a = instances.coordinator(redis.url, 'node-a');
    await connected([a]);
    const list = { version: 5, entries: [{ id: 'kept' }], instance: 'node-a', at: 1 };
    expect(await a.lists.restore(ref, list)).toBe(true);
    expect(await a.lists.read(ref)).toMatchObject({ version: 5, entries: [{ id: 'kept' }] });
    expect(await a.lists.restore(ref, { ...list, version: 4, entries: [] })).toBe(false);
    expect((await a.lists.read(ref))?.entries).toEqual([{ id: 'kept' }]);
  });

  it('a damaged list is refused with a clear error; Redis down fails fast with unavailable', async () => {
    const a = instances.coordinator(redis.url, 'node-a');
    await connected([a]);
    await redis.cli('HSET', a.lists.key(ref), 'v', '3', 'list', '{not json');
    await expect(a.lists.read(ref)).rejects.toMatchObject({ code: 'invalid_input' });
    const down = instances.coordinator('redis://127.0.0.1:1', 'node-x');
    await expect(down.lists.publish(ref, [])).rejects.toMatchObject({ unreachable: true });
  });
});

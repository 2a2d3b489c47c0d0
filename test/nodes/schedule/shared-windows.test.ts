import type { HelperNode } from 'node-red-node-test-helper';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { Coordinator, RedisConnection } from '../../../lib/coordination';
import { entriesOf, occurrencesFromMessage } from '../../../nodes/schedule/message-windows';
import { nodeModule } from '../../support/node-modules';
import { helper, initRuntime, waitFor } from '../../support/node-red-runtime';
import { RedisServer } from '../../support/redis-server';

/**
 * Two schedule nodes with the same schedule id on one coordination node stand for two instances (one
 * runtime, one real redis-server): a windows list sent to either is shared through Redis, taken up by the
 * other, two lists sent at once end as one, and a list sent while Redis stalls is kept and written later.
 * The acceptance test with two Node-RED processes is test/reliability/coordination/shared-windows.suite.ts.
 */

const scheduleNode = nodeModule('media-spaces-schedule');
const coordinationNode = nodeModule('media-spaces-coordination');
const at = { z: 'tab', x: 100, y: 100 };
type Msg = { topic?: string; payload?: unknown; error?: { message?: string } };

const YAML = `timezone: UTC
windows:
  - id: fed
    messages: true
    padding: { before: 2s }
    timezone: UTC
`;

let redis: RedisServer;
let prefix = '';
/** node ids differ from test to test: a schedule's journal (its list) is kept by node id */
let run = 0;
let A = 'a';
let B = 'b';
beforeAll(async () => {
  initRuntime();
  redis = await RedisServer.start();
});
afterEach(async () => {
  await helper.unload();
});
afterAll(async () => {
  await redis?.dispose();
});

function schedule(id: string, scheduleId: string) {
  return {
    id,
    ...at,
    type: 'media-spaces-schedule',
    source: 'yaml',
    yaml: YAML,
    scheduleId,
    coordination: 'coord',
    wires: [[`${id}-start`], [], [`${id}-ctl`]],
  };
}

async function load(coordination = true) {
  prefix = `shared-${process.pid}-${Date.now()}:`;
  run++;
  A = `a${run}`;
  B = `b${run}`;
  const scheduleId = `lists-${Date.now()}`;
  const flow: Record<string, unknown>[] = [
    { id: 'tab', type: 'tab', label: 'test' },
    {
      id: 'coord',
      type: 'media-spaces-coordination',
      name: 'shared',
      url: redis.url,
      keyPrefix: prefix,
      leaseMs: '1000',
      whenUnreachable: 'skip',
    },
    schedule(A, scheduleId),
    schedule(B, scheduleId),
    { id: `${A}-start`, ...at, type: 'helper' },
    { id: `${B}-start`, ...at, type: 'helper' },
    { id: `${A}-ctl`, ...at, type: 'helper' },
    { id: `${B}-ctl`, ...at, type: 'helper' },
    { id: 'catch', ...at, type: 'catch', scope: null, uncaught: false, wires: [['caught']] },
    { id: 'caught', ...at, type: 'helper' },
  ];
  if (!coordination) for (const n of flow) if ('coordination' in n) n.coordination = '';
  await helper.load([coordinationNode, scheduleNode], flow);
  const seen = { a: [] as Msg[], b: [] as Msg[], starts: [] as Msg[], caught: [] as Msg[] };
  (helper.getNode(`${A}-ctl`) as HelperNode).on('input', (m) => seen.a.push(m as Msg));
  (helper.getNode(`${B}-ctl`) as HelperNode).on('input', (m) => seen.b.push(m as Msg));
  for (const id of [`${A}-start`, `${B}-start`])
    (helper.getNode(id) as HelperNode).on('input', (m) => seen.starts.push(m as Msg));
  (helper.getNode('caught') as HelperNode).on('input', (m) => seen.caught.push(m as Msg));
  return { seen, scheduleId };
}

const entry = (id: string, start: number, title = id) => ({
  id,
  start: new Date(start).toISOString(),
  end: new Date(start + 60_000).toISOString(),
  title,
});

/** The slots a node plans (its `list` reply): slot key and title. */
async function planned(seen: Msg[], node: string): Promise<{ slotKey: string; title?: string; start: string }[]> {
  const before = seen.length;
  helper.getNode(node).receive({ topic: 'list', payload: { count: 20 } });
  await waitFor(() => seen.slice(before).some((m) => m.topic === 'list'), 2000);
  const reply = seen.slice(before).find((m) => m.topic === 'list');
  const upcoming = (reply?.payload ?? []) as { slotKey: string; title?: string; start: string }[];
  return upcoming.map((u) => ({
    slotKey: u.slotKey,
    title: u.title,
    start: u.start,
  }));
}

const replies = (seen: Msg[]) => seen.filter((m) => m.topic === 'windows');

describe('windows lists shared by instances through Redis', () => {
  it('a list sent to one instance is taken up by the other with the same slot keys', async () => {
    const { seen } = await load();
    const t = Math.ceil(Date.now() / 1000) * 1000 + 3600_000;
    helper.getNode(A).receive({ topic: 'windows', payload: [entry('news', t), entry('sport', t + 600_000)] });
    await waitFor(() => replies(seen.a).length === 1, 5000);
    expect(replies(seen.a)[0].payload).toMatchObject({ window_id: 'fed', occurrences: 2, shared: true, version: 1 });
    let onB: Awaited<ReturnType<typeof planned>> = [];
    const deadline = Date.now() + 5000;
    while (Date.now() < deadline) {
      onB = await planned(seen.b, B);
      if (onB.length === 2) break;
      await new Promise((r) => setTimeout(r, 200));
    }
    const onA = await planned(seen.a, A);
    expect(onB).toEqual(onA);
    expect(onB.map((u) => u.title)).toEqual(['news', 'sport']);
    // the padding of the window applies once, on each instance
    expect(Date.parse(onB[0].start)).toBe(t - 2000);
    expect(seen.caught).toEqual([]);
  });

  it('two lists sent at once end as one, the later version, the slot both hold under one key', async () => {
    const { seen } = await load();
    const soon = Math.ceil((Date.now() + 600_000) / 1000) * 1000;
    const later = soon + 3600_000;
    helper
      .getNode(A)
      .receive({ topic: 'windows', payload: [entry('shared', soon + 2000, 'A'), entry('only-a', later)] });
    helper
      .getNode(B)
      .receive({ topic: 'windows', payload: [entry('shared', soon + 2000, 'B'), entry('only-b', later)] });
    await waitFor(() => replies(seen.a).length === 1 && replies(seen.b).length === 1, 5000);
    const va = (replies(seen.a)[0].payload as { version: number }).version;
    const vb = (replies(seen.b)[0].payload as { version: number }).version;
    expect([va, vb].sort()).toEqual([1, 2]);
    const winner = va > vb ? 'only-a' : 'only-b';
    await new Promise((r) => setTimeout(r, 2500));
    const onA = await planned(seen.a, A);
    const onB = await planned(seen.b, B);
    expect(onA).toEqual(onB);
    expect(onA.map((u) => u.slotKey.split(':').at(-1))).toEqual(['shared', winner]);
    expect(onA.some((u) => u.slotKey.endsWith(`:${winner}`))).toBe(true);
    expect(onA.some((u) => u.slotKey.endsWith(`:${winner === 'only-a' ? 'only-b' : 'only-a'}`))).toBe(false);
    // the occurrence both lists hold is one slot on both, with one key: one claim in Redis (the nodes of one
    // runtime share an instance id, so that it starts once is shown with two processes, shared-windows.suite.ts)
    expect(onA[0].slotKey).toMatch(/:fed:shared$/);
    expect(seen.caught).toEqual([]);
  }, 20_000);

  it('Redis stalled while a list is sent: kept here, said so, written when Redis is back and taken up', async () => {
    const { seen, scheduleId } = await load();
    const t = Math.ceil(Date.now() / 1000) * 1000 + 3600_000;
    helper.getNode(A).receive({ topic: 'windows', payload: [entry('first', t)] });
    await waitFor(() => replies(seen.a).length === 1, 5000);
    redis.pause();
    try {
      helper.getNode(A).receive({ topic: 'windows', payload: [entry('offline', t + 60_000)] });
      await waitFor(() => replies(seen.a).length === 2, 8000);
    } finally {
      redis.resume();
    }
    expect(replies(seen.a)[1].payload).toMatchObject({ occurrences: 1, shared: false, pending: true });
    const warned = helper
      .log()
      .args.map((x: unknown[]) => x[0] as { id?: string; msg?: unknown })
      .filter((e: { id?: string }) => e.id === A)
      .map((e: { msg?: unknown }) => String(e.msg));
    expect(warned.some((m) => /kept on this instance only, Redis cannot be used/.test(m))).toBe(true);
    // the list taken here at once
    expect((await planned(seen.a, A)).map((u) => u.title)).toEqual(['offline']);
    const reader = new Coordinator({
      connection: new RedisConnection({ url: redis.url }),
      instanceId: 'reader',
      keyPrefix: prefix,
    });
    try {
      await reader.connection.whenReady(5000);
      const deadline = Date.now() + 8000;
      let onB: Awaited<ReturnType<typeof planned>> = [];
      while (Date.now() < deadline) {
        onB = await planned(seen.b, B);
        if (onB[0]?.title === 'offline') break;
        await new Promise((r) => setTimeout(r, 250));
      }
      expect(onB.map((u) => u.title)).toEqual(['offline']);
      // written once Redis was back, as the version after the first list
      const shared = await reader.lists.read({ schedule: scheduleId, window: 'fed' });
      expect(shared).toMatchObject({ version: 2, entries: [{ id: 'offline' }] });
    } finally {
      await reader.connection.close();
    }
    expect(seen.caught).toEqual([]);
  }, 30_000);

  it('bad input keeps its clear error, reaches a Catch node once, and nothing is written', async () => {
    const { seen } = await load();
    helper.getNode(A).receive({ topic: 'windows', payload: [{ start: 'tomorrow' }] });
    await waitFor(() => seen.caught.length === 1, 5000);
    expect(seen.caught[0].error?.message).toMatch(/payload\[0\]\.start must be an ISO 8601 time/);
    expect(replies(seen.a)).toEqual([]);
    expect(await redis.cli('KEYS', `${prefix}list:*`)).toBe('');
  });

  it('without coordination the reply is as before and Redis is not touched', async () => {
    const { seen } = await load(false);
    const t = Date.now() + 3600_000;
    helper.getNode(A).receive({ topic: 'windows', payload: [entry('solo', t)] });
    await waitFor(() => replies(seen.a).length === 1, 5000);
    expect(replies(seen.a)[0].payload).toEqual({ window_id: 'fed', occurrences: 1, moved: 0, added: 1 });
    expect(await planned(seen.b, B)).toEqual([]);
  });
});

describe('shared list entries', () => {
  it('read back on another instance give the same ids, times and padding: the same slot keys', () => {
    const window = {
      id: 'fed',
      source: { kind: 'messages', padding: { before: 60_000, after: 30_000 } },
    } as unknown as Parameters<typeof occurrencesFromMessage>[0];
    const sent = occurrencesFromMessage(window, [
      { start: '2030-01-01T10:00:00+01:00', duration: 1800, title: 'News', episode: 'S1E2' },
      { id: 'film', start: Date.UTC(2030, 0, 1, 20), end: '2030-01-01T22:00:00Z', description: 'A film' },
    ]);
    const entries = JSON.parse(JSON.stringify(entriesOf(sent)));
    expect(entries[0]).toEqual({
      id: '2030-01-01T09:00:00Z',
      start: Date.UTC(2030, 0, 1, 9),
      end: Date.UTC(2030, 0, 1, 9, 30),
      title: 'News',
      episode: 'S1E2',
    });
    expect(occurrencesFromMessage(window, entries)).toEqual(sent);
  });
});

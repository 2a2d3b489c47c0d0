import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Simulator, startSimulator } from '../../../lib/simulator';
import { RedisServer } from '../../support/redis-server';
import { type FlowNode, httpJson, sleep, waitFor } from '../support-restart/node-red';
import { SCHEDULE_NODE } from '../support-restart/recording-flow';
import { Cluster, SCHEDULE_ID } from './cluster';

/**
 * A window fed by `windows` messages on two real Node-RED processes sharing one redis-server and one
 * simulator. An `http in` route on each instance hands a POSTed `{topic, payload}` to the schedule node and
 * answers with its reply on output 3 (the same message, so the route's response goes with it).
 * - Two lists sent at once, one to each instance: both end with the list Redis took later, and the
 *   occurrence both lists hold is recorded once (one channel, one stop, one follow-up); the losing list's own
 *   occurrence is never started.
 * - A list sent to instance A, then A SIGKILLed at once: B takes the list from Redis and records it.
 */

const WINDOW = 'fed';
const ROUTE = 'rel0winroute0001';
const TAB = 'rel0tab000000001';

/** POST /rel-windows → the schedule; its reply (output 3) → the http response. */
function addRoute(flows: FlowNode[]): void {
  const schedule = flows.find((n) => n.id === SCHEDULE_NODE);
  if (!schedule) throw new Error('no schedule node');
  schedule.wires = [...(schedule.wires as string[][]).slice(0, 2), ['rel0winreply0001']];
  const at = (x: number, y: number) => ({ z: TAB, x, y });
  flows.push(
    {
      id: ROUTE,
      type: 'http in',
      ...at(120, 420),
      name: '',
      url: '/rel-windows',
      method: 'post',
      upload: false,
      wires: [['rel0winask000001']],
    },
    {
      id: 'rel0winask000001',
      type: 'function',
      ...at(300, 420),
      name: 'to schedule',
      func: 'msg.topic = msg.payload.topic; msg.payload = msg.payload.payload; return msg;',
      outputs: 1,
      noerr: 0,
      initialize: '',
      finalize: '',
      libs: [],
      wires: [[SCHEDULE_NODE]],
    },
    {
      id: 'rel0winreply0001',
      type: 'function',
      ...at(300, 480),
      name: 'reply',
      func: "if (msg.topic === 'windows') node.log('REL-WINDOWS ' + JSON.stringify(msg.payload));\nreturn msg.res ? msg : null;",
      outputs: 1,
      noerr: 0,
      initialize: '',
      finalize: '',
      libs: [],
      wires: [['rel0winres000001']],
    },
    {
      id: 'rel0winres000001',
      type: 'http response',
      ...at(480, 480),
      name: '',
      statusCode: '',
      headers: {},
      wires: [],
    },
  );
}

interface Upcoming {
  slotKey: string;
  start: string;
  end: string;
  title?: string;
}

describe('a window fed by messages, shared by two instances', () => {
  let sim: Simulator;
  let redis: RedisServer;
  let c: Cluster;

  const ask = async (i: number, topic: string, payload: unknown) => {
    const red = c.current[i];
    if (!red) throw new Error(`instance ${i} is not running`);
    const got = await httpJson(`${red.url}/rel-windows`, { method: 'POST', body: { topic, payload } });
    expect(got.status).toBe(200);
    return got.json;
  };
  const upcoming = async (i: number) => (await ask(i, 'list', { count: 20 })) as Upcoming[];
  const entry = (id: string, start: number, seconds: number, title = id) => ({
    id,
    start: new Date(start).toISOString(),
    end: new Date(start + seconds * 1000).toISOString(),
    title,
  });
  /** successful POSTs of a route with an idempotency key, the service's replays left out */
  const created = (route: string, key: string) =>
    sim
      .requests()
      .filter(
        (r) =>
          r.method === 'POST' &&
          r.route === route &&
          r.idempotency_key === key &&
          r.status !== null &&
          r.status < 300 &&
          r.replayed !== true,
      ).length;
  const posts = (route: string, key: string) =>
    sim.requests().filter((r) => r.method === 'POST' && r.route === route && r.idempotency_key === key).length;
  const slotKey = (id: string) => `${SCHEDULE_ID}:${WINDOW}:${id}`;

  beforeAll(async () => {
    sim = await startSimulator({ port: 0, host: '127.0.0.1' });
    redis = await RedisServer.start({ persistence: 'aof' });
    c = new Cluster(
      'shared-windows',
      sim,
      [{ id: WINDOW, offsetS: 0, source: ['    messages: true'] }],
      { url: redis.url, keyPrefix: 'shared-windows:', whenUnreachable: 'skip' },
      2,
      undefined,
      addRoute,
    );
    await c.startAll();
  }, 120_000);

  afterAll(async () => {
    c?.saveLog();
    await c?.killAll();
    await sim?.close();
    await redis?.dispose();
  });

  it('two lists sent at once to A and B end as one list, the later version; no slot is doubled', async () => {
    const t = Math.ceil((Date.now() + 6000) / 1000) * 1000;
    const listA = [entry('both', t, 5, 'from A'), entry('only-a', t + 7000, 3)];
    const listB = [entry('both', t, 5, 'from B'), entry('only-b', t + 7000, 3)];
    const [ra, rb] = (await Promise.all([ask(0, 'windows', listA), ask(1, 'windows', listB)])) as {
      shared: boolean;
      version: number;
      occurrences: number;
    }[];
    expect([ra.shared, rb.shared]).toEqual([true, true]);
    expect([ra.version, rb.version].sort()).toEqual([1, 2]);
    const [winner, loser] = ra.version > rb.version ? ['only-a', 'only-b'] : ['only-b', 'only-a'];
    // both instances take the later version within their next read of Redis (once a second)
    const same = await waitFor(
      async () => {
        const [a, b] = await Promise.all([upcoming(0), upcoming(1)]);
        return JSON.stringify(a) === JSON.stringify(b) && a.some((u) => u.slotKey === slotKey(winner)) ? a : undefined;
      },
      'both instances to plan the same list',
      { timeoutMs: 5000, intervalMs: 200 },
    );
    expect(same.map((u) => u.slotKey)).toEqual([slotKey('both'), slotKey(winner)]);
    expect(same[0].title).toBe(winner === 'only-a' ? 'from A' : 'from B');
    // every slot of the list recorded and followed up once; the losing list's own occurrence never started
    await waitFor(() => created('submit', `${slotKey(winner)}:end`) > 0, 'the follow-up of the last slot', {
      timeoutMs: 40_000,
      intervalMs: 250,
    });
    await sleep(1500);
    for (const id of ['both', winner]) {
      expect([id, created('create_channel', slotKey(id)), created('submit', `${slotKey(id)}:end`)]).toEqual([id, 1, 1]);
      expect([id, created('stop_channel', `${slotKey(id)}:stop`)]).toEqual([id, 1]);
    }
    expect(posts('create_channel', slotKey(loser))).toBe(0);
    const versions = c.lines().filter((l) => /took the shared list version 2/.test(l.text));
    expect(versions.length).toBe(1);
    expect(c.lines().filter((l) => /\[error\]|REL-ERROR|Unhandled|TypeError/.test(l.text))).toEqual([]);
  }, 90_000);

  it('a list sent to instance A is recorded by instance B after A is SIGKILLed', async () => {
    const t = Math.ceil((Date.now() + 5000) / 1000) * 1000;
    const reply = (await ask(0, 'windows', [entry('after-kill', t, 4, 'Late news')])) as {
      shared: boolean;
      version: number;
    };
    expect(reply).toMatchObject({ shared: true, version: 3 });
    const victim = c.current[0];
    await victim?.kill();
    expect(victim?.child.signalCode).toBe('SIGKILL');
    const key = slotKey('after-kill');
    await waitFor(() => created('submit', `${key}:end`) > 0, 'the follow-up of the list sent to A', {
      timeoutMs: 40_000,
      intervalMs: 250,
    });
    expect([
      created('create_channel', key),
      created('stop_channel', `${key}:stop`),
      created('submit', `${key}:end`),
    ]).toEqual([1, 1, 1]);
    const survivor = c.current[1];
    expect(survivor?.lines().some((l) => /took the shared list version 3/.test(l.text))).toBe(true);
    // B made the channel: A was dead before the start
    const channel = sim
      .requests()
      .find((r) => r.route === 'create_channel' && r.idempotency_key === key && r.status !== null && r.status < 300);
    expect(channel && Date.parse(channel.time)).toBeGreaterThanOrEqual(t - 50);
    expect(survivor?.lines().filter((l) => /\[error\]|REL-ERROR|Unhandled|TypeError/.test(l.text))).toEqual([]);
  }, 90_000);
});

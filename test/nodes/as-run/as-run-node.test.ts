import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AsRunRecord } from '../../../lib/asrun';
import type { SlotTransition } from '../../../lib/schedule/slot-events';
import {
  type FlowNode,
  httpJson,
  type NodeRedProcess,
  prepareUserDir,
  ROOT,
  startNodeRed,
  waitFor,
} from '../../reliability/support-restart/node-red';
import { RedisServer } from '../../support/redis-server';
import { SlotStory } from '../../support/slot-transitions';
import { installFixtureNodes } from '../sidebar/support';

/**
 * The media-spaces-as-run node in real Node-RED processes: slot transitions
 * are published inside the runtime by the test-only module
 * (test/e2e/fixtures/slot-events) as the schedule publishes them; its node
 * stands in for the schedule (same id; with a `coordination` setting naming
 * the deployed media-spaces-coordination node). Each as-run node is wired to
 * a function node that prints one line per message it gets, tagged.
 */
const SCHEDULE = { id: 'arnodesched00001', name: 'Evening news' };
const OTHER = { id: 'arnodesched00002', name: 'Late show' };
const today = new Date().toISOString().slice(0, 10);
const at = (h: number) => `${today}T${String(h).padStart(2, '0')}:00:00Z`;
const TAB = 'arnodetab0000001';

function printer(id: string, tag: string): FlowNode {
  return {
    id,
    type: 'function',
    z: TAB,
    name: tag,
    func: `node.log('${tag} ' + JSON.stringify({ topic: msg.topic, payload: msg.payload }));\nreturn null;`,
    outputs: 1,
    noerr: 0,
    initialize: '',
    finalize: '',
    libs: [],
    x: 400,
    y: 100,
    wires: [[]],
  };
}

function flow(redisUrl?: string): FlowNode[] {
  const coordination = redisUrl ? { coordination: 'arnodecoord00001' } : {};
  return [
    { id: TAB, type: 'tab', label: 'as-run node' },
    ...(redisUrl
      ? [{ id: 'arnodecoord00001', type: 'media-spaces-coordination', name: 'redis', url: redisUrl, keyPrefix: 'ar:' }]
      : []),
    { id: SCHEDULE.id, type: 'media-spaces-test-slot-events', z: TAB, ...coordination, x: 100, y: 60, wires: [] },
    { id: OTHER.id, type: 'media-spaces-test-slot-events', z: TAB, x: 100, y: 100, wires: [] },
    // every finished slot
    {
      id: 'arnodeall0000001',
      type: 'media-spaces-as-run',
      z: TAB,
      name: '',
      x: 200,
      y: 100,
      wires: [['arnodeprall00001']],
    },
    printer('arnodeprall00001', 'AS-RUN-ALL'),
    // one schedule by name, missed slots only
    {
      id: 'arnodemissed0001',
      type: 'media-spaces-as-run',
      z: TAB,
      name: '',
      schedule: SCHEDULE.name,
      recorded: false,
      partial: false,
      missed: true,
      skipped: false,
      cancelled: false,
      x: 200,
      y: 140,
      wires: [['arnodeprmiss0001']],
    },
    printer('arnodeprmiss0001', 'AS-RUN-MISSED'),
  ];
}

function userDirOf(name: string): string {
  return join(ROOT, 'test', '.tmp', 'as-run-node', `${name}-${process.pid}`);
}

async function start(name: string, redisUrl?: string): Promise<NodeRedProcess> {
  prepareUserDir({ dir: userDirOf(name), flows: flow(redisUrl) });
  installFixtureNodes(userDirOf(name));
  return startNodeRed({ userDir: userDirOf(name) });
}

async function publish(red: NodeRedProcess, transitions: SlotTransition[]): Promise<void> {
  const r = await httpJson(`${red.url}/media-spaces-test/slot-events`, { method: 'POST', body: { transitions } });
  expect(r.status).toBe(200);
}

/** The messages a tagged printer got so far. */
function sent(red: NodeRedProcess, tag: string): { topic: string; payload: AsRunRecord }[] {
  return red.lines().flatMap((l) => {
    const i = l.text.indexOf(`${tag} {`);
    return i < 0 ? [] : [JSON.parse(l.text.slice(i + tag.length + 1))];
  });
}

const untilSent = (red: NodeRedProcess, tag: string, n: number) =>
  waitFor(() => sent(red, tag).length >= n, `${n} message(s) on ${tag}`, { timeoutMs: 15_000 });

describe('media-spaces-as-run in a real Node-RED', () => {
  const stops: (() => Promise<unknown>)[] = [];
  afterAll(async () => {
    for (const stop of stops.reverse()) await stop();
  });

  it('sends each finished slot once, whole, filtered by schedule and outcome; not again after a restart', async () => {
    let red = await start('alone');
    const recorded = new SlotStory({ start: at(1), schedule: SCHEDULE, title: 'Morning' });
    const missed = new SlotStory({ start: at(2), schedule: SCHEDULE, title: 'Noon' });
    const otherMissed = new SlotStory({ start: at(2), schedule: OTHER, title: 'Elsewhere' });
    await publish(red, [
      recorded.to('starting', 0, { attempts: 1 }),
      recorded.to('recording', 3, { lateBy: 3, channel: { id: 'c1' } }),
      recorded.to('stopping', 1800),
      recorded.to('finishing', 1801, { channel: { id: 'c1' } }),
    ]);
    await publish(red, [recorded.to('finished', 1805, { channel: { id: 'c1', outputs: ['s3://b/c1.mxf'] } })]);
    await publish(red, [
      missed.to('starting', 0),
      missed.to('missed', 90, { why: 'create channel failed: 503' }),
      otherMissed.to('starting', 0),
      otherMissed.to('missed', 60, { why: 'paused' }),
    ]);
    // the same final transition heard again in this run
    await publish(red, [recorded.published[4]]);
    await untilSent(red, 'AS-RUN-ALL', 3);
    await untilSent(red, 'AS-RUN-MISSED', 1);
    const all = sent(red, 'AS-RUN-ALL');
    expect(all.map((m) => [m.topic, m.payload.schedule.name, m.payload.occurrence.title, m.payload.reason])).toEqual([
      ['recorded', 'Evening news', 'Morning', undefined],
      ['missed', 'Evening news', 'Noon', 'create channel failed: 503'],
      ['missed', 'Late show', 'Elsewhere', 'paused'],
    ]);
    // what earlier transitions told of the slot is in the record sent at its end
    expect(all[0].payload).toMatchObject({
      slot: recorded.slot,
      outcome: 'recorded',
      lateBy: 3,
      attempts: 1,
      actual: { start: recorded.published[1].at, end: recorded.published[3].at },
      channels: [{ id: 'c1', outputs: ['s3://b/c1.mxf'] }],
      discrepancy: 'started 3 s late',
    });
    expect(sent(red, 'AS-RUN-MISSED').map((m) => m.payload.occurrence.title)).toEqual(['Noon']);

    // a restart: the schedule publishing the slot's end again (a different instant) is not a second record
    await red.stop();
    red = await startNodeRed({ userDir: userDirOf('alone'), port: red.port });
    stops.push(() => red.stop());
    const again = { ...recorded.published[4], from: 'finishing' as const, at: `${today}T01:31:00Z` };
    const skipped = new SlotStory({ start: at(9), schedule: SCHEDULE, title: 'Evening' });
    await publish(red, [again, skipped.to('skipped', -600, { why: 'skipped by the operator' })]);
    await untilSent(red, 'AS-RUN-ALL', 1);
    expect(sent(red, 'AS-RUN-ALL').map((m) => [m.topic, m.payload.occurrence.title, m.payload.reason])).toEqual([
      ['skipped', 'Evening', 'skipped by the operator'],
    ]);
    expect(sent(red, 'AS-RUN-MISSED')).toEqual([]);
    expect(red.output()).not.toMatch(/\[error\]/);
  }, 120_000);

  describe('two instances coordinated through a real Redis', () => {
    let redis: RedisServer;
    let a: NodeRedProcess;
    let b: NodeRedProcess;
    beforeAll(async () => {
      redis = await RedisServer.start();
      stops.push(() => redis.dispose());
      [a, b] = await Promise.all([start('instance-a', redis.url), start('instance-b', redis.url)]);
      stops.push(
        () => a.stop(),
        () => b.stop(),
      );
    }, 120_000);

    it('the instance that ends the slot sends it, with what the other saw; the other sends nothing', async () => {
      const handedOver = new SlotStory({ start: at(6), schedule: SCHEDULE, coordinated: true, title: 'Handed over' });
      const marker = new SlotStory({ start: at(7), schedule: SCHEDULE, coordinated: true, title: 'Marker' });
      // A starts the slot; B, taking over, ends it
      await publish(a, [
        handedOver.to('starting', 0, { attempts: 2 }),
        handedOver.to('recording', 8, { lateBy: 8, channel: { id: 'x' } }),
      ]);
      await publish(b, [
        handedOver.to('stopping', 1800),
        handedOver.to('finished', 1806, { channel: { id: 'x', outputs: ['s3://x'] } }),
      ]);
      await untilSent(b, 'AS-RUN-ALL', 1);
      // A ends another slot: once its record is out, anything A would have sent of the first is out too
      await publish(a, [marker.to('starting', 0), marker.to('missed', 60, { why: 'Redis unreachable' })]);
      await untilSent(a, 'AS-RUN-ALL', 1);
      expect(sent(b, 'AS-RUN-ALL').map((m) => m.payload)).toEqual([
        expect.objectContaining({
          slot: handedOver.slot,
          outcome: 'recorded',
          lateBy: 8,
          attempts: 2,
          coordinated: true,
          actual: { start: handedOver.published[1].at, end: handedOver.published[3].at },
          channels: [{ id: 'x', outputs: ['s3://x'] }],
        }),
      ]);
      expect(sent(a, 'AS-RUN-ALL').map((m) => m.payload.occurrence.title)).toEqual(['Marker']);
      expect(sent(a, 'AS-RUN-MISSED').map((m) => m.payload.occurrence.title)).toEqual(['Marker']);
      expect(sent(b, 'AS-RUN-MISSED')).toEqual([]);
    }, 60_000);
  });
});

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
} from '../../reliability/support-restart/node-red';
import { RedisServer } from '../../support/redis-server';
import { SlotStory } from '../../support/slot-transitions';
import { installFixtureNodes } from './support';

/**
 * The as-run log across a SIGKILL and across two coordinated instances, in
 * real Node-RED processes. The test-only module (test/e2e/fixtures/slot-events)
 * publishes the transitions in the runtime as the schedule would; its node
 * stands in for the schedule (same id, with a `coordination` setting naming
 * the deployed media-spaces-coordination node), which is how the recorder
 * finds the Redis of a coordinated slot.
 */
const SCHEDULE = { id: 'asrunsched000001', name: 'Coordinated news' };
const today = new Date().toISOString().slice(0, 10);
const at = (h: number) => `${today}T${String(h).padStart(2, '0')}:00:00Z`;

function flow(redisUrl?: string): FlowNode[] {
  return [
    { id: 'asruntab00000001', type: 'tab', label: 'as-run' },
    ...(redisUrl
      ? [
          {
            id: 'asruncoord000001',
            type: 'media-spaces-coordination',
            name: 'redis',
            url: redisUrl,
            keyPrefix: 'ms-test:',
          },
        ]
      : []),
    {
      id: SCHEDULE.id,
      type: 'media-spaces-test-slot-events',
      z: 'asruntab00000001',
      ...(redisUrl ? { coordination: 'asruncoord000001' } : {}),
      x: 100,
      y: 100,
      wires: [],
    },
  ];
}

async function start(name: string, redisUrl?: string): Promise<NodeRedProcess> {
  const userDir = join(ROOT, 'test', '.tmp', 'as-run-restarts', `${name}-${process.pid}`);
  prepareUserDir({ dir: userDir, flows: flow(redisUrl) });
  installFixtureNodes(userDir);
  return startNodeRed({ userDir });
}

async function publish(red: NodeRedProcess, transitions: SlotTransition[]): Promise<void> {
  const r = await httpJson(`${red.url}/media-spaces-test/slot-events`, { method: 'POST', body: { transitions } });
  expect(r.status).toBe(200);
}

async function day(red: NodeRedProcess): Promise<AsRunRecord[]> {
  const r = await httpJson(`${red.url}/media-spaces/as-run?day=${today}&zone=UTC`);
  expect(r.status).toBe(200);
  return (r.json as { records: AsRunRecord[] }).records;
}

describe('as-run log in real Node-RED processes', () => {
  const stops: (() => Promise<unknown>)[] = [];
  afterAll(async () => {
    for (const stop of stops.reverse()) await stop();
  });

  it('a SIGKILL mid-slot: after the restart the slot has one complete record', async () => {
    const first = await start('killed');
    const s = new SlotStory({ start: at(5), schedule: SCHEDULE, title: 'Killed mid-window' });
    await publish(first, [s.to('starting', 0), s.to('recording', 3, { lateBy: 3, channel: { id: 'c1' } })]);
    expect((await day(first)).map((r) => r.outcome)).toEqual(['open']);
    await first.kill();
    const second = await startNodeRed({
      userDir: join(ROOT, 'test', '.tmp', 'as-run-restarts', `killed-${process.pid}`),
      port: first.port,
    });
    stops.push(() => second.stop());
    await publish(second, [s.to('stopping', 1800), s.to('finished', 1805, { channel: { id: 'c1', outputs: ['o'] } })]);
    const records = await day(second);
    expect(records).toHaveLength(1);
    expect(records[0]).toMatchObject({
      outcome: 'recorded',
      lateBy: 3,
      actual: { start: s.published[1].at, end: s.published[3].at },
      channels: [{ id: 'c1', outputs: ['o'] }],
    });
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

    it('each writes what it acted on; both read each slot once, whole', async () => {
      const handedOver = new SlotStory({ start: at(6), schedule: SCHEDULE, coordinated: true, title: 'Handed over' });
      const missed = new SlotStory({ start: at(7), schedule: SCHEDULE, coordinated: true, title: 'Missed' });
      // A starts the slot; B, taking over, ends it and misses the next
      await publish(a, [
        handedOver.to('starting', 0),
        handedOver.to('recording', 8, { lateBy: 8, channel: { id: 'x' } }),
      ]);
      await publish(b, [
        handedOver.to('stopping', 1800),
        handedOver.to('finished', 1806, { channel: { id: 'x', outputs: ['s3://x'] } }),
        missed.to('starting', 0),
        missed.to('missed', 60, { why: 'Redis unreachable: skipped' }),
      ]);
      for (const red of [a, b]) {
        const records = await day(red);
        expect(records.map((r) => [r.occurrence.title, r.outcome, r.lateBy, r.reason])).toEqual([
          ['Handed over', 'recorded', 8, undefined],
          ['Missed', 'missed', undefined, 'Redis unreachable: skipped'],
        ]);
        expect(records[0]).toMatchObject({ coordinated: true, channels: [{ id: 'x', outputs: ['s3://x'] }] });
      }
      expect(await redis.cli('XLEN', 'ms-test:as-run')).toBe('6');
    }, 60_000);
  });
});

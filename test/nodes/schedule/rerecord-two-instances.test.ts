import diagnostics_channel from 'node:diagnostics_channel';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { Coordinator, RedisConnection } from '../../../lib/coordination';
import type { SlotTransition } from '../../../lib/schedule/slot-events';
import { type Simulator, startSimulator } from '../../../lib/simulator';
import { runtimeFeed } from '../../support/activity-feed';
import { nodeModule } from '../../support/node-modules';
import { CONFIG_ID, configNode, credentials, helper, NODES, waitFor } from '../../support/node-red-runtime';
import { RedisServer } from '../../support/redis-server';
import type { ChainMsg } from '../../support/schedule-chain';
import { airingKey, channelRequests, serialGuide } from '../../support/serial-guide';

/**
 * Record at the next airing with two instances on one Redis (two schedule nodes of one schedule id on one
 * coordination node, one runtime, a real redis-server), against the simulator over HTTP: the first airing's
 * channel refused for its whole window, the booking of the second airing is told once, both instances plan
 * it, and it is recorded once (one channel, one stop carried out). One instance: rerecord.test.ts.
 */

const require = createRequire(import.meta.url);
let sim: Simulator;
let dir: string;
let redis: RedisServer | undefined;
const transitions: SlotTransition[] = [];
const listen = (t: unknown) => transitions.push(t as SlotTransition);

beforeAll(async () => {
  helper.init(require.resolve('node-red'));
  sim = await startSimulator();
  dir = mkdtempSync(path.join(os.tmpdir(), 'rerecord-'));
  diagnostics_channel.subscribe('media-spaces:slot', listen);
});
afterAll(async () => {
  diagnostics_channel.unsubscribe('media-spaces:slot', listen);
  await redis?.dispose();
  await sim.close();
  rmSync(dir, { recursive: true, force: true });
});
afterEach(async () => {
  sim.clearFaults();
  await helper.unload();
});

/** the next whole second at least `ahead` ms from now */
const second = (ahead: number) => Math.ceil((Date.now() + ahead) / 1000) * 1000;

describe('a guide window with rerecord, two instances', () => {
  it('with two instances on one Redis: one booking told once, the airing recorded once', {
    timeout: 90_000,
  }, async () => {
    redis ??= await RedisServer.start();
    const file = path.join(dir, 'guide-two.xml');
    const a = second(7000);
    // 14 s from the first airing's end to the second's start: on a loaded machine the loser of the booking's
    // claim waits out the winner's lease (2 s here) before it reads the booking as done
    const b = a + 20_000;
    writeFileSync(file, serialGuide([a, b]));
    const scheduleId = `rerecord-two-${process.pid}-${Date.now()}`;
    const at = { z: 'tab', x: 100, y: 100 };
    const prefix = `rerecord-${process.pid}-${Date.now()}:`;
    const yaml = `windows:
  - id: serial
    xmltv: ${JSON.stringify(file)}
    match: { title: "^Serial$", duplicates: once }
    timezone: UTC
    rerecord: { within: 1h }
`;
    const instance = (id: string) => [
      {
        id,
        ...at,
        type: 'media-spaces-schedule',
        source: 'yaml',
        yaml,
        scheduleId,
        catchUp: false,
        server: CONFIG_ID,
        coordination: 'coord',
        wires: [[`${id}-cc`], [], [`${id}-ctl`]],
      },
      { id: `${id}-cc`, ...at, type: 'media-spaces-create-channel', name: '', server: CONFIG_ID, wires: [[id]] },
      { id: `${id}-ctl`, ...at, type: 'helper' },
    ];
    await helper.load(
      [NODES.config, NODES.channel, nodeModule('media-spaces-coordination'), nodeModule('media-spaces-schedule')],
      [
        { id: 'tab', type: 'tab', label: 'two instances' },
        configNode(sim, { timeout: 5000 }),
        {
          id: 'coord',
          type: 'media-spaces-coordination',
          name: 'shared',
          url: redis.url,
          keyPrefix: prefix,
          leaseMs: '2000',
          whenUnreachable: 'skip',
        },
        ...instance('one'),
        ...instance('two'),
      ],
      credentials(),
    );
    const ctl: ChainMsg[] = [];
    for (const id of ['one-ctl', 'two-ctl']) helper.getNode(id).on('input', (m: unknown) => ctl.push(m as ChainMsg));
    const key = (t: number) => airingKey(scheduleId, a, t);
    const creates = (t: number) => channelRequests(sim, key(t));

    sim.addFault({ route: 'create_channel', kind: 'status', status: 503 });
    await waitFor(() => transitions.some((t) => t.slot === key(a) && t.to === 'missed'), a + 20_000 - Date.now());
    sim.clearFaults();
    // what matters is that both hear of it before the airing starts
    await waitFor(() => ctl.some((m) => m.topic === 'rerecord'), b - Date.now());
    // both instances plan the airing (one booked it, the other took the booking from Redis): either records it
    const marked = (nodeId: string) =>
      runtimeFeed()
        .snapshot()
        .schedules.find((x) => x.nodeId === nodeId)
        ?.slots.some((v) => v.start === b && v.rerecord === true) === true;
    await waitFor(() => marked('one') && marked('two'), b - Date.now());
    expect(Date.now()).toBeLessThan(b);
    // the booking moves no mark the window's catch-up reads: its high-water mark is still the first airing's
    const reader = new Coordinator({
      connection: new RedisConnection({ url: redis.url }),
      instanceId: 'reader',
      keyPrefix: prefix,
    });
    try {
      await reader.connection.whenReady(5000);
      expect(await reader.highWaterMark(`${scheduleId}:serial`)).toBe(new Date(a).toISOString());
    } finally {
      await reader.connection.close();
    }
    await waitFor(() => transitions.some((t) => t.slot === key(b) && t.to === 'finished'), b + 25_000 - Date.now());
    await new Promise((r) => setTimeout(r, 1000));
    expect(ctl.filter((m) => m.topic === 'rerecord').map((m) => m.payload?.slot)).toEqual([key(b)]);
    expect(new Set(creates(b).map((r) => r.idempotency_key))).toEqual(new Set([key(b)]));
    // one channel, stopped once (each instance tells the slot's end)
    const finished = transitions.filter((t) => t.slot === key(b) && t.to === 'finished');
    expect(finished.every((t) => t.rerecordOf === key(a))).toBe(true);
    const channels = new Set(finished.map((t) => t.channel?.id));
    expect(channels.size).toBe(1);
    const channelId = [...channels][0] as string;
    const stops = sim
      .requests()
      .filter((r) => r.route === 'stop_channel' && r.path.includes(`/channels/${channelId}/`));
    // two instances may both ask; the service carries the stop out once (the other is its idempotent replay)
    expect(stops.filter((r) => r.status !== null && r.status < 300 && r.replayed !== true)).toHaveLength(1);
  });
});

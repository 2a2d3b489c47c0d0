import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type Simulator, startSimulator } from '../../../lib/simulator';
import { vcalendar, vevent } from '../../support/ical-text';
import { nodeModule } from '../../support/node-modules';
import { CONFIG_ID, configNode, credentials, helper, NODES, sleep, waitFor } from '../../support/node-red-runtime';
import { RedisServer } from '../../support/redis-server';
import type { ChainMsg } from '../../support/schedule-chain';

/**
 * A calendar event taken out before it starts, with two instances on one Redis (two schedule nodes of one
 * schedule id on one coordination node, one runtime, a real redis-server): both read the calendar and find
 * the cancellation; one `cancelled` report goes out, not one per instance. Without coordination each
 * schedule tells its own.
 */

const require = createRequire(import.meta.url);
let sim: Simulator;
let dir: string;
let redis: RedisServer;

beforeAll(async () => {
  helper.init(require.resolve('node-red'));
  sim = await startSimulator();
  redis = await RedisServer.start();
  dir = mkdtempSync(path.join(os.tmpdir(), 'cancelled-two-'));
});
afterAll(async () => {
  await redis?.dispose();
  await sim.close();
  rmSync(dir, { recursive: true, force: true });
});
afterEach(async () => {
  await helper.unload();
});

async function load(coordinated: boolean, file: string, scheduleId: string) {
  const at = { z: 'tab', x: 100, y: 100 };
  const yaml = `windows:
  - id: desk
    ical: ${JSON.stringify(file)}
    timezone: UTC
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
      coordination: coordinated ? 'coord' : '',
      wires: [[], [], [`${id}-ctl`]],
    },
    { id: `${id}-ctl`, ...at, type: 'helper' },
  ];
  await helper.load(
    [NODES.config, nodeModule('media-spaces-coordination'), nodeModule('media-spaces-schedule')],
    [
      { id: 'tab', type: 'tab', label: 'two instances' },
      configNode(sim, { timeout: 5000 }),
      {
        id: 'coord',
        type: 'media-spaces-coordination',
        name: 'shared',
        url: redis.url,
        keyPrefix: `cancelled-${process.pid}-${Date.now()}:`,
        leaseMs: '2000',
        whenUnreachable: 'skip',
      },
      ...instance('one'),
      ...instance('two'),
    ],
    credentials(),
  );
  const ctl: Record<string, ChainMsg[]> = { one: [], two: [] };
  for (const id of ['one', 'two'] as const)
    helper.getNode(`${id}-ctl`).on('input', (m: unknown) => ctl[id].push(m as ChainMsg));
  return ctl;
}

describe('a calendar event cancelled before it starts, two instances', () => {
  for (const coordinated of [true, false]) {
    it(coordinated ? 'with coordination: told once' : 'without coordination: told by each schedule', {
      timeout: 90_000,
    }, async () => {
      const file = path.join(dir, `desk-${coordinated}.ics`);
      const start = Date.now() + 3600_000;
      const event = (uid: string, from = start) =>
        vevent({ uid, start: from, end: from + 600_000, title: uid, stamp: Date.now() });
      writeFileSync(file, vcalendar(...event('kept@test'), ...event('gone@test', start + 1200_000)));
      const scheduleId = `cancelled-${coordinated}-${process.pid}-${Date.now()}`;
      const ctl = await load(coordinated, file, scheduleId);
      // both have read the calendar: two occurrences planned on each
      const planned = async (id: 'one' | 'two') => {
        const before = ctl[id].length;
        helper.getNode(id).receive({ topic: 'list', payload: { count: 10 } });
        await waitFor(() => ctl[id].slice(before).some((m) => m.topic === 'list'), 5000);
        const reply = ctl[id].slice(before).find((m) => m.topic === 'list');
        return Array.isArray(reply?.payload) ? reply.payload.length : 0;
      };
      for (const id of ['one', 'two'] as const) {
        const deadline = Date.now() + 30_000;
        while ((await planned(id)) !== 2) {
          expect(Date.now(), `${id} plans both events`).toBeLessThan(deadline);
          await sleep(200);
        }
      }
      writeFileSync(file, vcalendar(...event('kept@test')));
      for (const id of ['one', 'two']) helper.getNode(id).receive({ topic: 'reload' });
      const cancelled = () => [...ctl.one, ...ctl.two].filter((m) => m.topic === 'cancelled');
      const expected = coordinated ? 1 : 2;
      // each reload reads the calendar in a worker of its own: slow to start on a loaded machine
      await waitFor(() => cancelled().length >= expected, 45_000);
      // a duplicate would come from the other instance within a lease or two
      await sleep(2500);
      const told = cancelled();
      expect(told.map((m) => m.payload?.slot)).toEqual(Array(expected).fill(`${scheduleId}:desk:gone@test`));
    });
  }
});

import type { HelperNode } from 'node-red-node-test-helper';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { conflictRef } from '../../../nodes/schedule/conflict-report';
import { nodeModule } from '../../support/node-modules';
import { helper, initRuntime, sleep, waitFor } from '../../support/node-red-runtime';
import { RedisServer } from '../../support/redis-server';

/**
 * Three schedule nodes with the same schedule id on one coordination node stand for three instances (one
 * runtime, one real redis-server), with max_channels 2 and four overlapping windows of priorities 3, 2, 1, 0:
 * each node decides the same two losers, and each loser's `conflict` report reaches the flow once over the
 * three, not once per node; loaded again (a restart, which forgets what was told), none is told again.
 * Without a coordination node each node tells its own. The acceptance test with three Node-RED processes is
 * test/reliability/coordination/three-instances.suite.ts.
 */

const scheduleNode = nodeModule('media-spaces-schedule');
const coordinationNode = nodeModule('media-spaces-coordination');
const at = { z: 'tab', x: 100, y: 100 };
type Msg = { topic?: string; payload?: Record<string, unknown> };
const NODES = ['s1', 's2', 's3'];
const LEASE_MS = 1000;

let redis: RedisServer;
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

/** A 6-field cron that fires once a year, at this instant (UTC, whole seconds). */
function yearly(ms: number): string {
  const d = new Date(ms);
  return `${d.getUTCSeconds()} ${d.getUTCMinutes()} ${d.getUTCHours()} ${d.getUTCDate()} ${d.getUTCMonth() + 1} *`;
}

/** An hour from now, whole seconds: inside the plan the conflicts are decided over, far from any start. */
const START = Math.ceil((Date.now() + 3_600_000) / 1000) * 1000;
const YAML = `max_channels: 2
windows:
${[0, 1, 2, 3]
  .map(
    (p) => `  - id: p${p}
    cron: "${yearly(START)}"
    duration: 30m
    timezone: UTC
    priority: ${p}`,
  )
  .join('\n')}
`;

function flow(scheduleId: string, prefix: string, coordination = true): Record<string, unknown>[] {
  return [
    { id: 'tab', type: 'tab', label: 'test' },
    {
      id: 'coord',
      type: 'media-spaces-coordination',
      name: 'shared',
      url: redis.url,
      keyPrefix: prefix,
      leaseMs: String(LEASE_MS),
      whenUnreachable: 'skip',
    },
    ...NODES.flatMap((id) => [
      {
        id,
        ...at,
        type: 'media-spaces-schedule',
        source: 'yaml',
        yaml: YAML,
        scheduleId,
        coordination: coordination ? 'coord' : '',
        wires: [[], [], [`${id}-ctl`]],
      },
      { id: `${id}-ctl`, ...at, type: 'helper' },
    ]),
  ];
}

/** Loads the flow; the conflict reports each node sends on output 3, as [node, slot]. */
async function load(nodes: Record<string, unknown>[]): Promise<[string, string][]> {
  await helper.load([coordinationNode, scheduleNode], nodes);
  const told: [string, string][] = [];
  for (const id of NODES) {
    (helper.getNode(`${id}-ctl`) as HelperNode).on('input', (m) => {
      const msg = m as Msg;
      if (msg.topic === 'conflict') told.push([id, String(msg.payload?.slot)]);
    });
  }
  return told;
}

describe('conflict reports of a schedule run by several instances', () => {
  it('three instances on one Redis: each loser told once over the three; loaded again, none told again', async () => {
    const scheduleId = `shared-conflicts-${Date.now()}`;
    const prefix = `conflicts-${process.pid}-${Date.now()}:`;
    const key = (p: number) => `${scheduleId}:p${p}:${new Date(START).toISOString().replace('.000Z', 'Z')}`;
    const told = await load(flow(scheduleId, prefix));
    await waitFor(() => told.length >= 2, 10_000);
    // a second report would come from a claim taken over once its lease ran out
    await sleep(LEASE_MS * 2 + 500);
    expect(told.map(([, slot]) => slot).sort()).toEqual([key(0), key(1)]);

    // a restart of every instance: each decides again and finds the reports sent
    await helper.unload();
    const again = await load(flow(scheduleId, prefix));
    await sleep(LEASE_MS * 2 + 1500);
    expect(again).toEqual([]);
  });

  it('without a coordination node each instance tells its own', async () => {
    const told = await load(flow(`alone-conflicts-${Date.now()}`, 'unused:', false));
    await waitFor(() => told.length >= 6, 10_000);
    expect(told.map(([node]) => node).sort()).toEqual(['s1', 's1', 's2', 's2', 's3', 's3']);
  });

  it("the claim's key: the window's slots under a name of their own, the occurrence by its id, a round per loss", () => {
    const loser = {
      key: 'studio:news:ev-1@cal',
      windowId: 'news',
      start: Date.parse('2030-01-01T18:05:00Z'),
      end: Date.parse('2030-01-01T19:00:00Z'),
      rankStart: Date.parse('2030-01-01T18:00:00Z'),
      limit: 2,
      concurrent: 3,
      lostTo: [],
    };
    expect(conflictRef('studio', { loser, round: 1 })).toEqual({
      schedule: 'studio:news#conflicts',
      slot: Date.parse('2030-01-01T18:00:00Z'),
      occurrence: 'ev-1@cal',
      phase: 'conflict',
    });
    expect(conflictRef('studio', { loser, round: 3 }).phase).toBe('conflict:3');
  });
});

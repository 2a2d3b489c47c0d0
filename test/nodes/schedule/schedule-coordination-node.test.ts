import type { HelperNode } from 'node-red-node-test-helper';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { nodeModule } from '../../support/node-modules';
import { helper, initRuntime, waitFor } from '../../support/node-red-runtime';
import { freePort } from '../../support/redis-server';

/**
 * The schedule node with a coordination node whose Redis cannot be used (a
 * malformed url, nothing listening) in a real Node-RED runtime, real time:
 * windows every second must neither crash the runtime nor emit under the
 * `skip` policy, and the node says why.
 */

const scheduleNode = nodeModule('media-spaces-schedule');
const coordinationNode = nodeModule('media-spaces-coordination');
const at = { z: 'tab', x: 100, y: 100 };

const YAML = `timezone: UTC
windows:
  - id: tick
    name: Tick
    cron: "* * * * * *"
    duration: 1s
`;

function flow(url: string, whenUnreachable: 'skip' | 'alone'): Record<string, unknown>[] {
  return [
    { id: 'tab', type: 'tab', label: 'test' },
    { id: 'coord', type: 'media-spaces-coordination', name: 'shared', url, leaseMs: '1000', whenUnreachable },
    {
      id: 'sched',
      ...at,
      type: 'media-spaces-schedule',
      source: 'yaml',
      yaml: YAML,
      scheduleId: 'coord-test',
      coordination: 'coord',
      wires: [['starts'], [], []],
    },
    { id: 'starts', ...at, type: 'helper' },
  ];
}

type LogEntry = { id?: string; level?: number; msg?: unknown };
const logged = (id: string): string[] =>
  helper
    .log()
    .args.map((a: unknown[]) => a[0] as LogEntry)
    .filter((e: LogEntry) => e.id === id)
    .map((e: LogEntry) => String(e.msg));

beforeAll(() => initRuntime());
afterEach(async () => {
  await helper.unload();
});

describe('schedule with an unusable coordination Redis', () => {
  for (const [label, url] of [
    ['a malformed url', 'http://127.0.0.1:6379'],
    ['nothing listening', 'pending'],
  ] as const) {
    it(`${label}, policy skip: no start, a warning per slot naming the cause, the runtime carries on`, async () => {
      const target = url === 'pending' ? `redis://127.0.0.1:${await freePort()}` : url;
      await helper.load([coordinationNode, scheduleNode], flow(target, 'skip'));
      const starts: unknown[] = [];
      (helper.getNode('starts') as HelperNode).on('input', (msg) => starts.push(msg));
      await waitFor(() => logged('sched').filter((m) => /start skipped by this instance/.test(m)).length >= 2, 5000);
      expect(starts).toEqual([]);
      const cause =
        url === 'pending'
          ? /refused the connection/
          : /Redis URL must be redis:\/\/host:port or rediss:\/\/host:port, got "http:/;
      const warning = logged('sched').find((m) => /start skipped by this instance/.test(m)) ?? '';
      expect(warning).toMatch(cause);
    });
  }

  it('nothing listening, policy alone: the starts go out as without coordination', async () => {
    await helper.load([coordinationNode, scheduleNode], flow(`redis://127.0.0.1:${await freePort()}`, 'alone'));
    const starts: unknown[] = [];
    (helper.getNode('starts') as HelperNode).on('input', (msg) => starts.push(msg));
    await waitFor(() => starts.length >= 2, 5000);
    expect(logged('sched').some((m) => /start sent by this instance alone$/.test(m))).toBe(true);
  });
});

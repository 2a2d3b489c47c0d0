import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type Simulator, startSimulator } from '../../lib/simulator';
import type { CoordinationProvider } from '../../nodes/shared/coordination-provider';
import { nodeModule } from '../support/node-modules';
import {
  ALL_NODES,
  CONFIG_ID,
  configNode,
  credentials,
  DEMO,
  helper,
  initRuntime,
  loadOperation,
  OP_ID,
  onlyFailure,
  operationFlow,
  trigger,
  waitFor,
} from '../support/node-red-runtime';

/**
 * The two policies README promises for a bad setting (a hand-edited flow, a
 * dialog deployed while red), node by node in a real runtime: said once on
 * deploy, named as the dialog labels it; then a node acting on messages, and
 * a config node, refuse every use with the reason, while a node running on
 * its own uses the default and runs.
 */

const POLLING = [
  nodeModule('media-spaces-follow-job'),
  nodeModule('media-spaces-wait-workflow'),
  nodeModule('media-spaces-watch-workflows'),
  nodeModule('media-spaces-schedule'),
];
const COORDINATION = nodeModule('media-spaces-coordination');

let sim: Simulator;

beforeAll(async () => {
  initRuntime();
  sim = await startSimulator();
});
afterAll(async () => {
  await sim.close();
});
afterEach(async () => {
  await helper.unload();
});

/** What the runtime logged for a node at a level (20 error, 30 warn). */
function logged(id: string, level: 20 | 30): string[] {
  return helper
    .log()
    .args.map((a) => a[0] as { id?: string; level?: number; msg?: unknown })
    .filter((e) => e.id === id && e.level === level)
    .map((e) => String(e.msg));
}

describe('a node acting on messages refuses each with the reason', () => {
  const cases = [
    {
      type: 'media-spaces-list-workflows',
      props: { maxResults: '500' },
      says: 'Page size must be a whole number from 1 to 100',
    },
    {
      type: 'media-spaces-create-channel',
      props: { channelName: 'Studio 1', recordingDuration: 'four' },
      says: 'Keep last must be a whole number of hours',
    },
    {
      type: 'media-spaces-submit-job',
      props: { workflowId: DEMO.workflows.transcode, workflowIdType: 'str', jobName: 42 },
      says: 'Job name must be text',
    },
  ];
  for (const c of cases) {
    it(`${c.type}: said once on deploy, then every message fails with it`, async () => {
      await loadOperation(sim, c.type, c.props);
      const sentence = `The node's settings are not valid: ${c.says}`;
      for (let i = 0; i < 2; i++) {
        const failure = onlyFailure(await trigger({ payload: {} }));
        expect((failure.error as { message: string }).message).toContain(sentence);
      }
      const errors = logged(OP_ID, 20);
      expect(errors.filter((e) => e.includes('each message is refused until it is fixed'))).toHaveLength(1);
      expect(errors[0]).toContain(sentence);
    });
  }

  it('media-spaces-delete-event: its one setting (a typed input) refuses each message by name', async () => {
    await loadOperation(sim, 'media-spaces-delete-event', { eventId: '', eventIdType: 'str' });
    for (let i = 0; i < 2; i++) {
      const failure = onlyFailure(await trigger({}));
      expect((failure.error as { message: string }).message).toMatch(/is required: set the Event setting/);
    }
  });
});

describe('a config node with a bad setting fails every node that uses it', () => {
  it('media-spaces-config: said once on deploy; each message of a node using it fails with the same sentence', async () => {
    await helper.load(
      ALL_NODES,
      operationFlow(sim, 'media-spaces-list-workflows', {}, { timeout: 'soon' }),
      credentials(),
    );
    const sentence = 'Timeout must be a positive number of milliseconds';
    for (let i = 0; i < 2; i++) {
      const failure = onlyFailure(await trigger({}));
      expect((failure.error as { message: string }).message).toContain(sentence);
    }
    expect(logged(CONFIG_ID, 20)).toEqual([
      `Media Spaces config "test space": ${sentence}; every node using it fails until it is fixed`,
    ]);
  });

  it('media-spaces-coordination: said once on deploy; every use is refused with the same sentence', async () => {
    await helper.load(
      [COORDINATION],
      [{ id: 'coord', type: 'media-spaces-coordination', name: 'shared', url: 'redis://127.0.0.1:1', leaseMs: '5' }],
      {},
    );
    const sentence = 'Lease must be 1000 to 3600000 ms';
    expect(logged('coord', 20)).toEqual([
      `Redis coordination "shared": ${sentence}; every node using it fails until it is fixed`,
    ]);
    const provider = helper.getNode('coord') as unknown as CoordinationProvider;
    for (let i = 0; i < 2; i++) expect(() => provider.getCoordinator()).toThrow(sentence);
  });
});

describe('a node running on its own warns once and runs on the default', () => {
  const at = { z: 'tab', x: 100, y: 100 };
  const cases = [
    {
      type: 'media-spaces-follow-job',
      props: { interval: '0' },
      says: 'Interval must be a whole number of at least 1',
    },
    {
      type: 'media-spaces-wait-workflow',
      props: { interval: 'fast', workflow: 'QC' },
      says: 'Interval must be a whole number of at least 1',
    },
    { type: 'media-spaces-watch-workflows', props: { statusFilter: 'sleeping' }, says: 'Status must be one of active' },
    {
      type: 'media-spaces-schedule',
      props: { source: 'calendar', yaml: 'windows: []' },
      says: 'Windows must be one of yaml',
    },
  ];
  for (const c of cases) {
    it(`${c.type}: one warning on deploy, naming the default it runs on, and no error`, async () => {
      await helper.load(
        [nodeModule('media-spaces-config'), ...POLLING],
        [
          { id: 'tab', type: 'tab', label: 'bad settings' },
          configNode(sim),
          { id: 'own', ...at, type: c.type, server: CONFIG_ID, wires: [], ...c.props },
        ],
        credentials(),
      );
      await waitFor(() => logged('own', 30).length > 0);
      const warnings = logged('own', 30).filter((w) => w.includes('using the default'));
      expect(warnings).toHaveLength(1);
      // the same sentence from every node (Node-RED's log line names the node)
      expect(warnings[0]).toMatch(new RegExp(`^${c.says}.*; using the default$`));
      expect(logged('own', 20)).toEqual([]);
    });
  }
});

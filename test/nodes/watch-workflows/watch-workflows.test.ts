import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type Simulator, startSimulator } from '../../../lib/simulator';
import { nodeModule } from '../../support/node-modules';
import {
  config,
  credentials,
  errorsOf,
  helper,
  MutableList,
  outputs,
  record,
  sleep,
  until,
  WF_ARCHIVED,
  WF_IDLE,
  WF_TRANSCODE,
} from '../../support/poll-runtime';

/**
 * media-spaces-watch-workflows in a real Node-RED runtime (node-red-node-test-helper),
 * loading the compiled nodes from dist/ (run `npm run build` first), against
 * the reference simulator over HTTP with a manual clock: the test moves the
 * simulator's time while the node polls every 20 ms of real time.
 */
const configNode = nodeModule('media-spaces-config');
const watchWorkflowsNode = nodeModule('media-spaces-watch-workflows');

function watchWorkflows(props: Record<string, unknown> = {}) {
  return {
    id: W,
    type: 'media-spaces-watch-workflows',
    server: 'cfg',
    interval: 20,
    wires: [['out1'], ['out2']],
    ...props,
  };
}

let sim: Simulator;
/** The node's id, new for every test: a node id carries its state across restarts. */
let W = 'w';
let seq = 0;

beforeAll(async () => {
  sim = await startSimulator({ manualClock: true });
});
afterAll(async () => {
  await sim.close();
});
beforeEach(() => {
  W = `watch-${++seq}`;
});
afterEach(async () => {
  await helper.unload();
});

describe('media-spaces-watch-workflows (runtime)', () => {
  it('emits the simulator list as added with emitInitial, and answers an input on output 2', async () => {
    await helper.load(
      [configNode, watchWorkflowsNode],
      [
        config(sim.workflowUrl),
        watchWorkflows({ statusFilter: 'archived', emitInitial: true, interval: 60_000 }),
        ...outputs,
      ],
      credentials(),
    );
    const changes = record('out1');
    const replies = record('out2');
    await until(() => changes.length > 0);
    await sleep(50);
    expect(changes.length).toBeGreaterThan(0);
    expect(changes.every((m) => m.topic === 'added' && (m.payload as { status: string }).status === 'archived')).toBe(
      true,
    );
    expect(changes.map((m) => m.workflow_id)).toContain(WF_ARCHIVED);
    helper.getNode(W).receive({ payload: 'now', topic: 'poll' });
    await until(() => replies.length > 0);
    expect(replies[0]).toMatchObject({ topic: 'poll', changes: [], statusCode: 200 });
    expect((replies[0].payload as unknown[]).length).toBe(changes.length);
    expect(changes.length).toBe(changes.length);
  });

  it('warns once about each setting the dialog would mark red, and runs on its default', async () => {
    await helper.load(
      [configNode, watchWorkflowsNode],
      [config(sim.workflowUrl), watchWorkflows({ statusFilter: 'paused', interval: '0' }), ...outputs],
      credentials(),
    );
    const log = (helper as { log(): { args: Array<[{ id?: string; level: number; msg: unknown }]> } }).log();
    const warnings = log.args
      .filter(([entry]) => entry.level === 30 && entry.id === W)
      .map(([entry]) => String(entry.msg));
    // named as the dialog labels them: the test helper's runtime has no catalogue loaded (its RED._ gives the id
    // back), so they come from the node's en-US catalogue file
    expect(warnings).toEqual([
      'Status must be one of active, archived, deleted, idle (or "" for all); using the default',
      'Interval must be a whole number of at least 1; using the default',
    ]);
    // no status filter: an input's reply lists workflows of every status
    const replies = record('out2');
    helper.getNode(W).receive({});
    await until(() => replies.length > 0);
    const statuses = new Set((replies[0].payload as { status: string }[]).map((w) => w.status));
    expect(statuses.has('active') && statuses.has('archived')).toBe(true);
  });

  it('reports added, changed and removed workflows after a silent baseline', async () => {
    const list = new MutableList([
      { id: WF_TRANSCODE, name: 'one', status: 'active' },
      { id: WF_IDLE, name: 'two', status: 'idle' },
    ]);
    const stub = await list.start();
    try {
      await helper.load(
        [configNode, watchWorkflowsNode],
        [config(stub.url), watchWorkflows(), ...outputs],
        credentials(),
      );
      const changes = record('out1');
      await until(() => stub.requests.length >= 3);
      expect(changes).toEqual([]);
      list.workflows[1].status = 'active';
      list.workflows.shift();
      list.workflows.push({ id: WF_ARCHIVED, name: 'three', status: 'active' });
      await until(() => changes.length >= 3);
      await sleep(60);
      expect(changes.map((m) => `${m.topic}:${(m.payload as { name: string }).name}`)).toEqual([
        'changed:two',
        'added:three',
        'removed:one',
      ]);
      expect(changes[0].previous).toMatchObject({ status: 'idle' });
      expect(changes[0].payload).toMatchObject({ status: 'active' });
    } finally {
      await helper.unload();
      await stub.close();
    }
  });

  it('stops on 401 with an error Catch nodes see, and polls again on input', async () => {
    await helper.load(
      [configNode, watchWorkflowsNode],
      [config(sim.workflowUrl), watchWorkflows(), ...outputs],
      credentials('wrong-key'),
    );
    const w = helper.getNode(W);
    const errors = errorsOf(w);
    await until(() => errors.length > 0);
    const count = sim.requests().length;
    await sleep(100);
    expect(sim.requests().length).toBe(count);
    expect(errors[0].msg).toMatchObject({ topic: 'error', error: { code: 'unauthorized', status: 401 } });
    w.receive({ payload: 1 });
    await until(() => errors.length > 1);
    expect(errors[1].msg).toMatchObject({ payload: 1, error: { code: 'unauthorized' } });
  });

  it('reports the change of the second and of the hundredth poll like the first', async () => {
    const list = new MutableList([{ id: WF_TRANSCODE, name: 'one', status: 'active' }]);
    const stub = await list.start();
    try {
      await helper.load(
        [configNode, watchWorkflowsNode],
        [config(stub.url), watchWorkflows({ interval: 60_000 }), ...outputs],
        credentials(),
      );
      const w = helper.getNode(W);
      const changes = record('out1');
      const replies = record('out2');
      w.receive({ payload: 'baseline' });
      await until(() => replies.length >= 1);
      for (let cycle = 1; cycle <= 100; cycle++) {
        list.workflows[0].name = `one, version ${cycle}`;
        w.receive({ payload: cycle });
        await until(() => replies.length >= cycle + 1);
        const reply = replies[cycle];
        if (cycle === 1 || cycle === 2 || cycle === 100) {
          expect(reply).toMatchObject({ payload: [{ name: `one, version ${cycle}` }], statusCode: 200 });
          expect(reply.changes).toMatchObject([{ type: 'changed', workflow: { name: `one, version ${cycle}` } }]);
          expect(changes[cycle - 1]).toMatchObject({ topic: 'changed', workflow_id: WF_TRANSCODE });
          expect(changes).toHaveLength(cycle);
        }
      }
    } finally {
      await helper.unload();
      await stub.close();
    }
  });
});

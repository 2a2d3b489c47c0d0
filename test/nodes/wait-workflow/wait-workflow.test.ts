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
 * media-spaces-wait-workflow in a real Node-RED runtime (node-red-node-test-helper),
 * loading the compiled nodes from dist/ (run `npm run build` first), against
 * the reference simulator over HTTP with a manual clock: the test moves the
 * simulator's time while the node polls every 20 ms of real time.
 */
const configNode = nodeModule('media-spaces-config');
const waitWorkflowNode = nodeModule('media-spaces-wait-workflow');

function waitWorkflow(props: Record<string, unknown> = {}) {
  return { id: W, type: 'media-spaces-wait-workflow', server: 'cfg', interval: 20, wires: [['out1']], ...props };
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
  W = `wait-${++seq}`;
});
afterEach(async () => {
  await helper.unload();
});

/** A wait-workflow node whose Workflow setting is `workflow`, with its output and errors recorded. */
async function loadWaitingFor(workflow: string) {
  await helper.load(
    [configNode, waitWorkflowNode],
    [config(sim.workflowUrl), waitWorkflow({ workflow }), ...outputs],
    credentials(),
  );
  const w = helper.getNode(W);
  return { w, out: record('out1'), errors: errorsOf(w) };
}

describe('media-spaces-wait-workflow (runtime)', () => {
  it('passes a message on when its workflow is active, by name or id, and fails archived, unknown and idle ones', async () => {
    const { w, out, errors } = await loadWaitingFor('QC check');
    w.receive({ payload: { keep: 1 } });
    w.receive({ workflow_id: WF_TRANSCODE, payload: 2 });
    w.receive({ workflow_id: WF_ARCHIVED, payload: 3 });
    w.receive({ workflow_id: 'aaaaaaaa-0000-4000-8000-0000000000ff', payload: 4 });
    w.receive({ workflow_id: WF_IDLE, timeout: 100, payload: 5 });
    await until(() => out.length + errors.length >= 5);
    expect(out.map((m) => m.payload)).toEqual([{ keep: 1 }, 2]);
    expect(out[0].workflow).toMatchObject({ name: 'QC check', status: 'active' });
    expect(out[0].workflow_id).toBe((out[0].workflow as { id: string }).id);
    const codes = Object.fromEntries(
      errors.map((e) => [String(e.msg.payload), (e.msg.error as { code: string }).code]),
    );
    expect(codes).toEqual({ '3': 'workflow_archived', '4': 'workflow_not_found', '5': 'timeout' });
  });

  it('names the message property it read when its value is not valid; null or blank names no workflow', async () => {
    const { w, out, errors } = await loadWaitingFor('QC check');
    w.receive({ workflow_id: { id: WF_TRANSCODE }, payload: 1 });
    w.receive({ workflow_name: ['QC check'], payload: 2 });
    w.receive({ workflow_id: WF_TRANSCODE, timeout: 1.5, payload: 3 });
    // null and '' name no workflow: msg.workflow_name, then the setting, is used
    w.receive({ workflow_id: null, workflow_name: '', payload: 4 });
    // an empty timeout (an HTTP query's ?timeout=) is a mistake, not "use the setting"
    w.receive({ workflow_id: WF_TRANSCODE, timeout: '', payload: 5 });
    await until(() => out.length + errors.length >= 5);
    const byPayload = (n: number) => errors.find((e) => e.msg.payload === n)?.err.message;
    expect(byPayload(1)).toMatch(/^msg\.workflow_id must be text, got /);
    expect(byPayload(2)).toMatch(/^msg\.workflow_name must be text, got /);
    expect(byPayload(3)).toMatch(/^msg\.timeout must be 0 \(no timeout\) or a whole number of ms, got /);
    expect(byPayload(5)).toMatch(/^msg\.timeout must be 0 \(no timeout\) or a whole number of ms, got /);
    expect(out.map((m) => m.payload)).toEqual([4]);
    expect(out[0].workflow).toMatchObject({ name: 'QC check' });
  });

  it('waits while the workflow is idle and passes the message once it turns active', async () => {
    const list = new MutableList([{ id: WF_IDLE, name: 'Nightly backup', status: 'idle' }]);
    const stub = await list.start();
    try {
      await helper.load([configNode, waitWorkflowNode], [config(stub.url), waitWorkflow(), ...outputs], credentials());
      const out = record('out1');
      helper.getNode(W).receive({ workflow_name: 'Nightly backup', payload: 'go' });
      await until(() => stub.requests.length >= 3);
      expect(out).toEqual([]);
      list.workflows[0].status = 'active';
      await until(() => out.length > 0);
      expect(out[0]).toMatchObject({ payload: 'go', workflow_id: WF_IDLE });
      await helper.unload();
      const total = stub.requests.length;
      await sleep(80);
      expect(stub.requests.length).toBe(total);
    } finally {
      await stub.close();
    }
  });

  it('passes the second and the hundredth message like the first, one list read each, nothing left waiting', async () => {
    await helper.load(
      [configNode, waitWorkflowNode],
      [config(sim.workflowUrl), waitWorkflow(), ...outputs],
      credentials(),
    );
    const w = helper.getNode(W);
    const out = record('out1');
    const errors = errorsOf(w);
    const lists = () => sim.requests().filter((r) => r.route === 'list').length;
    // one read of the list is one request per page
    const before0 = lists();
    await helper.getNode('cfg').getClient('workflow').listAllWorkflows();
    const pagesPerRead = lists() - before0;
    expect(pagesPerRead).toBeGreaterThan(0);
    for (let cycle = 1; cycle <= 100; cycle++) {
      const before = lists();
      w.receive({ workflow_id: WF_TRANSCODE, payload: cycle });
      await until(() => out.length >= cycle || errors.length > 0);
      expect(errors).toEqual([]);
      if (cycle === 1 || cycle === 2 || cycle === 100) {
        expect(out[cycle - 1]).toMatchObject({ payload: cycle, workflow_id: WF_TRANSCODE });
        expect(out[cycle - 1].workflow).toMatchObject({ id: WF_TRANSCODE, status: 'active' });
        expect(lists() - before).toBeLessThanOrEqual(2 * pagesPerRead);
      }
    }
    // nothing waits any more: the list is not read again
    await sleep(60);
    const count = lists();
    await sleep(100);
    expect(lists()).toBe(count);
    expect(out).toHaveLength(100);
  });
});

import { createRequire } from 'node:module';
import type { NodeModule } from 'node-red-node-test-helper';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { type Simulator, startSimulator } from '../../lib/simulator';
import {
  ALL_NODES,
  CONFIG_ID,
  configNode,
  credentials,
  DEMO,
  helper,
  initRuntime,
  type Msg,
  OP_ID,
  TAB,
  waitFor,
} from '../support/node-red-runtime';

/**
 * Node-RED's own inject node, with the settings it has when dragged from the palette
 * (payload: timestamp, topic: empty), wired to each operation node configured in its
 * dialog: the timestamp only triggers the node, which sends what its settings hold.
 * Also: a failure reaches a Catch node with the whole sentence in msg.error.message.
 */

const require = createRequire(import.meta.url);
const INJECT = require('@node-red/nodes/core/common/20-inject.js') as NodeModule;
const CATCH = require('@node-red/nodes/core/common/25-catch.js') as NodeModule;

let sim: Simulator;

beforeAll(async () => {
  initRuntime();
  sim = await startSimulator();
});
afterAll(() => sim.close());
beforeEach(() => sim.reset());
afterEach(() => helper.unload());

/** The palette's default inject node (Node-RED 4: props payload + topic, payloadType date). */
const defaultInject = {
  id: 'inject',
  type: 'inject',
  z: TAB,
  x: 50,
  y: 50,
  name: '',
  props: [{ p: 'payload' }, { p: 'topic', vt: 'str' }],
  repeat: '',
  crontab: '',
  once: false,
  onceDelay: 0.1,
  topic: '',
  payload: '',
  payloadType: 'date',
  wires: [[OP_ID]],
};

async function run(type: string, props: Record<string, unknown>, apiKey: string = DEMO.keys.admin) {
  const at = { z: TAB, x: 100, y: 100 };
  await helper.load(
    [INJECT, CATCH, ...ALL_NODES],
    [
      { id: TAB, type: 'tab', label: 'inject' },
      configNode(sim),
      defaultInject,
      { id: OP_ID, ...at, type, name: '', server: CONFIG_ID, wires: [['out']], ...props },
      { id: 'out', ...at, type: 'helper' },
      { id: 'catcher', ...at, type: 'catch', name: '', scope: null, uncaught: false, wires: [['caught']] },
      { id: 'caught', ...at, type: 'helper' },
    ],
    credentials(apiKey, DEMO.token),
  );
  const outputs: Msg[] = [];
  const caught: Msg[] = [];
  helper.getNode('out').on('input', (m: Msg) => outputs.push(m));
  helper.getNode('caught').on('input', (m: Msg) => caught.push(m));
  helper.getNode('inject').receive({});
  await waitFor(() => outputs.length + caught.length > 0, 8000);
  return { outputs, caught };
}

describe('the default inject node triggers every operation node as configured', () => {
  it('submit job: the timestamp is not taken for a request; the workflow of the settings gets a job', async () => {
    const { outputs, caught } = await run('media-spaces-submit-job', { workflowId: DEMO.workflows.transcode });
    expect(caught).toEqual([]);
    expect(outputs[0].payload).toMatchObject({ id: expect.any(String) });
    expect(sim.counts().jobs).toBe(1);
  });

  it('create channel: the channel of the settings is created', async () => {
    const { outputs, caught } = await run('media-spaces-create-channel', { channelName: 'Studio 1' });
    expect(caught).toEqual([]);
    expect(outputs[0].payload).toMatchObject({ name: 'Studio 1' });
  });

  it('list workflows ignores the payload', async () => {
    const { outputs, caught } = await run('media-spaces-list-workflows', { mode: 'page' });
    expect(caught).toEqual([]);
    expect((outputs[0].payload as { workflows: unknown[] }).workflows.length).toBeGreaterThan(0);
  });

  it('delete event ignores the payload: the configured event id is what is deleted', async () => {
    const { caught } = await run('media-spaces-delete-event', { eventId: 'evt-from-settings', eventIdType: 'str' });
    // no event of that id exists in the demo space: the service's 404 proves the request went out as configured
    expect(sim.requests().map((r) => `${r.route} ${r.status}`)).toEqual(['delete_event 404']);
    expect(caught[0].error?.message).toMatch(/^event evt-from-settings not found.* \(HTTP 404 from Delete event\)$/);
  });
});

describe('a failure as a Catch node and the status show it', () => {
  it('msg.error.message is the whole sentence with the service reason; no [object Object], no stack', async () => {
    const { caught } = await run('media-spaces-submit-job', { workflowId: DEMO.workflows.transcode }, 'unknown-key');
    expect(caught).toHaveLength(1);
    const error = caught[0].error as Record<string, unknown>;
    expect(error.message).toBe('unknown API key (HTTP 401 from Submit job)');
    expect(error.code).toBe('unauthorized');
    expect(error.stack).toBeUndefined();
    expect(String(error.cause)).toBe('unauthorized (HTTP 401)');
    expect(JSON.stringify(caught[0])).not.toContain('[object Object]');
    const op = helper.getNode(OP_ID) as unknown as { status: (s: unknown) => void };
    const shown: unknown[] = [];
    const original = op.status.bind(op);
    op.status = (s: unknown) => {
      shown.push(s);
      original(s);
    };
    helper.getNode('inject').receive({});
    await vi.waitFor(
      () => expect(shown.at(-1)).toEqual({ fill: 'red', shape: 'ring', text: '401: key not accepted' }),
      { timeout: 5000 },
    );
  });

  it('bad inputs: the fields at fault in msg.error.message, their count on the status', async () => {
    const { caught } = await run('media-spaces-submit-job', {
      workflowId: DEMO.workflows.render,
      jobInputs: JSON.stringify({ variables: { Priority: '300', BurnIn: 'maybe' } }),
      jobInputsType: 'json',
    });
    const message = String(caught[0]?.error?.message);
    expect(message).toMatch(/variables\.Priority: .*must be a Byte/);
    expect(message).toMatch(/variables\.BurnIn: .*must be a Boolean/);
    expect(JSON.stringify(caught[0])).not.toContain('[object Object]');
    const op = helper.getNode(OP_ID) as unknown as { status: (s: unknown) => void };
    const shown: unknown[] = [];
    const original = op.status.bind(op);
    op.status = (s: unknown) => {
      shown.push(s);
      original(s);
    };
    helper.getNode('inject').receive({});
    await vi.waitFor(() => expect(String((shown.at(-1) as { text?: string })?.text)).toMatch(/^\d+ inputs invalid$/), {
      timeout: 5000,
    });
  });
});

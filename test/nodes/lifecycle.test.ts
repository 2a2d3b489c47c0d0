import type { Socket } from 'node:net';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { MediaSpacesClient } from '../../lib/client';
import type { MediaSpacesError } from '../../lib/errors';
import { type Simulator, startSimulator } from '../../lib/simulator';
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
  type Outcome,
  operationFlow,
  sleep,
  trigger,
  waitFor,
} from '../support/node-red-runtime';

/**
 * Deploy and redeploy: one shared client per config node, in-flight requests
 * aborted on close, and nothing left open afterwards.
 */

let sim: Simulator;
let simPort: number;

beforeAll(async () => {
  initRuntime();
  sim = await startSimulator();
  simPort = Number(new URL(sim.workflowUrl).port);
});

afterAll(async () => {
  await sim.close();
});

beforeEach(() => sim.reset());

afterEach(async () => {
  await helper.unload();
});

/**
 * Open connections to the simulator, counted at the simulator's end: those
 * sockets stay referenced (undici unrefs its idle client sockets, which
 * hides them from the handle list), and each lives exactly as long as the
 * client keeps its end open.
 */
function simSockets(): number {
  const handles = (process as unknown as { _getActiveHandles(): unknown[] })._getActiveHandles();
  return handles.filter((h) => {
    const s = h as Partial<Socket>;
    return s.localPort === simPort && typeof s.remotePort === 'number' && !s.destroyed;
  }).length;
}

function clientOf(): MediaSpacesClient {
  return (helper.getNode(CONFIG_ID) as unknown as { getClient(): MediaSpacesClient }).getClient();
}

/** Sends a message without waiting for its outcome; collects whatever arrives. */
function fire(msg: Record<string, unknown>): Outcome {
  const outcome: Outcome = { outputs: [], caught: [], completed: [] };
  helper.getNode('out').on('input', (m) => outcome.outputs.push(m));
  helper.getNode('caught').on('input', (m) => outcome.caught.push(m));
  helper.getNode('completed').on('input', (m) => outcome.completed.push(m));
  helper.getNode(OP_ID).receive(msg);
  return outcome;
}

describe('shared client', () => {
  it('one client per config node, shared by every node using it (one keep-alive connection)', async () => {
    const flow = operationFlow(sim, 'media-spaces-list-workflows', { mode: 'page', maxResults: '1' });
    flow.push({
      id: 'second',
      z: 'tab',
      x: 100,
      y: 200,
      type: 'media-spaces-list-workflows',
      server: CONFIG_ID,
      mode: 'page',
      maxResults: '1',
      wires: [['out2']],
    });
    flow.push({ id: 'out2', z: 'tab', x: 100, y: 200, type: 'helper' });
    await helper.load(ALL_NODES, flow, credentials());
    expect(clientOf()).toBe(clientOf());

    await trigger({});
    const got = new Promise((resolve) => helper.getNode('out2').on('input', resolve));
    helper.getNode('second').receive({});
    await got;
    // both nodes' requests went over the config node's one pooled keep-alive connection
    expect(sim.requests().filter((r) => r.route === 'list')).toHaveLength(2);
    expect(simSockets()).toBe(1);
  });

  it('getClient() names the bad setting, and refuses after close', async () => {
    await helper.load(ALL_NODES, [configNode(sim, { spaceId: 'x', workflowUrl: 'ftp://nope' })], credentials());
    const node = helper.getNode(CONFIG_ID) as unknown as { getClient(area?: string): MediaSpacesClient };
    let error: MediaSpacesError | undefined;
    try {
      node.getClient();
    } catch (e) {
      error = e as MediaSpacesError;
    }
    expect(error).toMatchObject({ name: 'MediaSpacesError', code: 'invalid_input' });
    expect(Object.keys(error?.fieldErrors ?? {}).sort()).toEqual(['spaceId', 'workflowUrl']);
    expect(error?.message).toMatch(/Space ID must be a UUID/);
    expect(error?.message).toMatch(/Workflow URL must start with http/);
    await helper.unload();

    await helper.load(ALL_NODES, [configNode(sim)], { [CONFIG_ID]: {} });
    const bare = helper.getNode(CONFIG_ID) as unknown as { getClient(area?: string): MediaSpacesClient };
    expect(() => bare.getClient('workflow')).toThrow(/no API key/);
    expect(() => bare.getClient('liveCapture')).toThrow(/no access token/);
    expect(bare.getClient()).toBeDefined();
    await helper.unload();
    expect(() => bare.getClient()).toThrow(/closed/);
    await helper.load([], []);
  });

  it('exposes nothing secret: no credential on the node API or in its JSON', async () => {
    await helper.load(ALL_NODES, [configNode(sim)], credentials('secret-key-1', 'secret-token-1'));
    const node = helper.getNode(CONFIG_ID) as unknown as Record<string, unknown>;
    const visible = Object.keys(node)
      .filter((k) => k !== 'credentials' && k !== '_flow' && k !== '_events')
      .map((k) => {
        try {
          return JSON.stringify(node[k]) ?? '';
        } catch {
          return '';
        }
      })
      .join(' ');
    expect(visible).not.toContain('secret-key-1');
    expect(visible).not.toContain('secret-token-1');
  });
});

describe('plain http warning', () => {
  function warnings(): string[] {
    const spy = (helper as unknown as { log(): { args: Array<[{ level: number; msg: unknown }]> } }).log();
    return spy.args.filter(([entry]) => entry.level === 30).map(([entry]) => String(entry.msg));
  }

  it('warns once on deploy for http to a remote host, not for loopback or https', async () => {
    await helper.load(
      ALL_NODES,
      [configNode(sim, { workflowUrl: 'http://media.example.com', liveCaptureUrl: 'https://live.example.com' })],
      credentials(),
    );
    const warned = warnings().filter((w) => w.includes('plain http'));
    expect(warned).toHaveLength(1);
    expect(warned[0]).toContain('media.example.com');
    expect(warned[0]).not.toContain(DEMO.keys.admin);
    await helper.unload();

    await helper.load(ALL_NODES, [configNode(sim, { workflowUrl: 'http://localhost:8787' })], credentials());
    expect(warnings().filter((w) => w.includes('plain http'))).toHaveLength(0);
    await helper.unload();

    await helper.load(ALL_NODES, [configNode(sim, { rejectUnauthorized: false })], credentials());
    expect(warnings().filter((w) => w.includes('TLS certificate verification is off'))).toHaveLength(1);
  });
});

describe('close and redeploy', () => {
  it('close aborts requests in flight at once; their messages are dropped, not reported', async () => {
    await loadOperation(sim, 'media-spaces-list-workflows', { mode: 'all' });
    sim.addFault({ route: 'list', kind: 'latency', latency_ms: 5_000 });
    const outcomes = [fire({}), fire({}), fire({})];
    await waitFor(() => simSockets() >= 3);
    await sleep(50);
    const started = Date.now();
    await helper.unload();
    // the runtime's close timeout is 15 s and the service would answer in 5 s
    expect(Date.now() - started).toBeLessThan(2_000);
    await sleep(100);
    for (const o of outcomes) expect(o).toEqual({ outputs: [], caught: [], completed: [] });
    await helper.load([], []);
  });

  it('redeploy with requests in flight leaves no socket or handle behind', async () => {
    const baseline = simSockets();
    const handlesBefore = (process as unknown as { _getActiveHandles(): unknown[] })._getActiveHandles().length;
    sim.addFault({ route: '*', kind: 'latency', latency_ms: 3_000 });

    await loadOperation(sim, 'media-spaces-submit-job', { workflowId: DEMO.workflows.transcode });
    fire({});
    fire({});
    await waitFor(() => simSockets() >= 2);

    // a full redeploy of the same flow: the old config node closes its client, a new one starts
    await helper.setFlows(
      operationFlow(sim, 'media-spaces-submit-job', { workflowId: DEMO.workflows.transcode }),
      'full',
      credentials(),
    );
    fire({});
    await waitFor(() => simSockets() >= 1);
    await helper.unload();

    await waitFor(() => simSockets() === baseline, 2_000);
    await waitFor(
      () => (process as unknown as { _getActiveHandles(): unknown[] })._getActiveHandles().length <= handlesBefore,
      2_000,
    );
    await helper.load([], []);
  });
});

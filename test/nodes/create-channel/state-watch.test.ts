import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type Simulator, startSimulator } from '../../../lib/simulator';
import type { NodeStatus } from '../../../nodes/shared/node-red-types';
import { credentials, helper, initRuntime, NODES, OP_ID, operationFlow, waitFor } from '../../support/node-red-runtime';

/**
 * "Show state": a created channel read back through the get-channel
 * extension while the simulator's clock moves it PENDING -> ACTIVE (1 s) ->
 * RECORDING (2 s), in a real Node-RED runtime over real HTTP.
 */

type Msg = Record<string, unknown>;
let sim: Simulator;

beforeAll(async () => {
  initRuntime();
  sim = await startSimulator();
});
afterAll(async () => {
  await sim.close();
});
beforeEach(() => sim.reset());
afterEach(async () => {
  await helper.unload();
});

async function load(props: Msg): Promise<{ created: Msg[]; states: Msg[]; statuses: NodeStatus[] }> {
  const flow = operationFlow(sim, 'media-spaces-create-channel', { channelName: 'Studio 1', ...props });
  const op = flow.find((n) => n.id === OP_ID) as Msg;
  op.wires = [['out'], ['states']];
  flow.push({ id: 'states', z: 'tab', x: 100, y: 100, type: 'helper' });
  await helper.load(Object.values(NODES), flow, credentials());
  const seen = { created: [] as Msg[], states: [] as Msg[], statuses: [] as NodeStatus[] };
  helper.getNode('out').on('input', (m: Msg) => seen.created.push(m));
  helper.getNode('states').on('input', (m: Msg) => seen.states.push(m));
  const node = helper.getNode(OP_ID) as unknown as { status(s: NodeStatus): void };
  const original = node.status.bind(node);
  node.status = (s: NodeStatus) => {
    seen.statuses.push(s);
    original(s);
  };
  return seen;
}

const channelReads = () => sim.requests().filter((r) => r.method === 'GET' && /\/channels\//.test(r.path));

describe('create channel: Show state', () => {
  it('shows PENDING, then ACTIVE, then RECORDING, sends each change on output 2, and stops reading once it records', async () => {
    const seen = await load({ watchState: true });
    helper.getNode(OP_ID).receive({ window: { slotKey: 'demo:2026-01-01T10:00', name: 'Evening' } });
    await waitFor(() => seen.states.some((m) => m.state === 'RECORDING'), 10_000);

    expect(seen.created).toHaveLength(1);
    const channel = seen.created[0].payload as { id: string; state: string };
    expect(channel.state).toBe('PENDING');
    expect(seen.states.map((m) => [m.previous_state, m.state])).toEqual([
      ['PENDING', 'ACTIVE'],
      ['ACTIVE', 'RECORDING'],
    ]);
    const recording = seen.states[1];
    expect(recording).toMatchObject({
      topic: 'channel-state',
      channel_id: channel.id,
      window: { slotKey: 'demo:2026-01-01T10:00', name: 'Evening' },
      payload: { id: channel.id, state: 'RECORDING', recording: { channel_id: channel.id } },
    });
    await waitFor(() => seen.statuses.some((s) => s.text === 'channel RECORDING'));
    const texts = seen.statuses.map((s) => s.text).filter((t) => t?.startsWith('channel'));
    expect(texts).toEqual(['channel PENDING', 'channel ACTIVE', 'channel RECORDING']);
    expect(seen.statuses.at(-1)).toEqual({ fill: 'green', shape: 'dot', text: 'channel RECORDING' });

    const reads = channelReads().length;
    expect(reads).toBeGreaterThanOrEqual(2);
    await new Promise((r) => setTimeout(r, 2500));
    expect(channelReads().length).toBe(reads);
  }, 20_000);

  it('makes no extra request when the setting is missing (a flow saved before it existed)', async () => {
    const seen = await load({});
    helper.getNode(OP_ID).receive({});
    await waitFor(() => seen.created.length > 0);
    await new Promise((r) => setTimeout(r, 2500));
    expect(channelReads()).toEqual([]);
    expect(seen.states).toEqual([]);
  }, 10_000);

  it('warns once and stops when the service refuses the get-channel extension', async () => {
    const seen = await load({ watchState: true });
    const warnings: unknown[] = [];
    const node = helper.getNode(OP_ID) as unknown as { warn(m: unknown): void };
    node.warn = (m: unknown) => warnings.push(m);
    sim.addFault({ route: 'channel', kind: 'status', status: 404 });
    helper.getNode(OP_ID).receive({});
    await waitFor(() => warnings.length > 0, 10_000);
    expect(String(warnings[0])).toMatch(/Reading channel .*404.*no longer shown/s);
    await new Promise((r) => setTimeout(r, 1500));
    expect(warnings).toHaveLength(1);
    expect(seen.states).toEqual([]);
    expect(seen.created).toHaveLength(1);
  }, 15_000);
});

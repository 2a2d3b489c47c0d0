import { createRequire } from 'node:module';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createClient } from '../../../lib/client';
import { type Simulator, startSimulator } from '../../../lib/simulator';
import { ChannelStateWatch } from '../../../nodes/create-channel/state-watch';
import type { NodeStatus } from '../../../nodes/shared/node-red-types';
import {
  credentials,
  DEMO,
  helper,
  initRuntime,
  NODES,
  OP_ID,
  operationFlow,
  waitFor,
} from '../../support/node-red-runtime';
import { loadScheduleChain } from '../../support/schedule-chain';

const runtimeEvents = createRequire(import.meta.url)('@node-red/util').events as import('node:events').EventEmitter;

/**
 * "Show state": a created channel read back through the get-channel
 * extension while the simulator's clock moves it PENDING -> ACTIVE (1 s) ->
 * RECORDING (2 s), and on once it is stopped, FINISHING_RECORDING (2 s) ->
 * INACTIVE, in a real Node-RED runtime over real HTTP.
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

/** A stop sent by someone else (another flow, an operator), straight to the service. */
async function stopElsewhere(channelId: string): Promise<void> {
  const client = createClient({
    workflowUrl: sim.workflowUrl,
    spaceId: DEMO.space,
    accessToken: DEMO.token,
    retries: 0,
  });
  await client.stopChannel(channelId);
}

const channelReads = () => sim.requests().filter((r) => r.method === 'GET' && /\/channels\//.test(r.path));

describe('create channel: Show state', () => {
  it('shows PENDING, then ACTIVE, then RECORDING, sends each change on output 2, then reads it at the recording pace (every 10 s)', async () => {
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

  it('goes on after a "stop" message: stopped, then channel INACTIVE (also on output 2), then reads no more', async () => {
    const seen = await load({ watchState: true });
    helper.getNode(OP_ID).receive({});
    await waitFor(() => seen.states.some((m) => m.state === 'RECORDING'), 10_000);
    const channel = seen.created[0].payload as { id: string };

    helper.getNode(OP_ID).receive({ topic: 'stop', channel_id: channel.id });
    await waitFor(() => seen.created.length === 2, 5_000);
    expect(seen.created[1].payload).toMatchObject({ id: channel.id, state: 'FINISHING_RECORDING' });
    await waitFor(() => seen.statuses.at(-1)?.text === 'channel INACTIVE', 10_000);
    const texts = seen.statuses.map((s) => s.text);
    expect(texts.slice(texts.indexOf('channel RECORDING'))).toEqual([
      'channel RECORDING',
      'requesting',
      'stopped: channel FINISHING_RECORDING',
      'channel INACTIVE',
    ]);
    expect(seen.statuses.at(-1)).toEqual({ fill: 'grey', shape: 'ring', text: 'channel INACTIVE' });
    expect(seen.states.at(-1)).toMatchObject({
      channel_id: channel.id,
      previous_state: 'FINISHING_RECORDING',
      state: 'INACTIVE',
      payload: { id: channel.id, state: 'INACTIVE' },
    });

    const reads = channelReads().length;
    await new Promise((r) => setTimeout(r, 2500));
    expect(channelReads().length).toBe(reads);
  }, 20_000);

  it('keeps the badge and the reads across a full redeploy: the new node shows channel RECORDING at once and follows the stop to INACTIVE', async () => {
    const seen = await load({ watchState: true });
    helper.getNode(OP_ID).receive({ window: { slotKey: 'demo:2026-01-01T10:00', name: 'Evening' } });
    await waitFor(() => seen.statuses.some((s) => s.text === 'channel RECORDING'), 10_000);
    const channel = seen.created[0].payload as { id: string };

    // the badges as the editor gets them (Node-RED's runtime events, which its comms forward)
    const badges: { id: string; status?: NodeStatus }[] = [];
    const listener = (e: { id: string; status?: NodeStatus }) => badges.push(e);
    runtimeEvents.on('node-status', listener);
    try {
      const flow = operationFlow(sim, 'media-spaces-create-channel', { channelName: 'Studio 1', watchState: true });
      const op = flow.find((n) => n.id === OP_ID) as Msg;
      op.wires = [['out'], ['states']];
      flow.push({ id: 'states', z: 'tab', x: 100, y: 100, type: 'helper' });
      await helper.setFlows(flow, 'full', credentials());
      const states: Msg[] = [];
      helper.getNode('states').on('input', (m: Msg) => states.push(m));
      await waitFor(() => badges.some((b) => b.id === OP_ID && b.status?.text === 'channel RECORDING'), 2_000);

      // the channel is still read by the new node: a stop elsewhere shows on its badge and output 2
      await stopElsewhere(channel.id);
      await waitFor(() => states.some((m) => m.state === 'INACTIVE'), 20_000);
      expect(states.at(-1)).toMatchObject({
        channel_id: channel.id,
        state: 'INACTIVE',
        window: { slotKey: 'demo:2026-01-01T10:00', name: 'Evening' },
      });
      await waitFor(() => badges.some((b) => b.id === OP_ID && b.status?.text === 'channel INACTIVE'), 2_000);
    } finally {
      runtimeEvents.removeListener('node-status', listener);
    }
  }, 40_000);

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

describe('create channel: Show state, with a schedule that stops the recording', () => {
  it('follows the channel past the window end: channel RECORDING, then INACTIVE once the schedule stopped it', async () => {
    const yaml = `windows:
  - id: short
    name: Short
    cron: "0 0 1 1 *"
    timezone: UTC
    duration: 6s
`;
    const seen = await loadScheduleChain(sim, {
      yaml,
      scheduleId: `follow-${process.pid}-${Date.now()}`,
      channel: { watchState: true },
    });
    const channelNode = helper.getNode('cc') as unknown as { status(s: NodeStatus): void };
    const statuses: NodeStatus[] = [];
    const original = channelNode.status.bind(channelNode);
    channelNode.status = (s: NodeStatus) => {
      statuses.push(s);
      original(s);
    };
    // "start now": one window, six seconds long, stopped by the schedule at its end
    helper.getNode('sched').receive({ topic: 'trigger', window_id: 'short' });
    await waitFor(() => statuses.some((s) => s.text === 'channel RECORDING'), 10_000);
    await waitFor(() => seen.end.length === 1, 20_000);
    const stop = sim.requests().find((r) => r.method === 'POST' && r.path.endsWith('/stop'));
    expect(stop?.status).toBe(200);
    // read every 10 s while recording: the stop is seen within one such read
    await waitFor(() => statuses.at(-1)?.text === 'channel INACTIVE', 15_000);
    const texts = statuses.map((s) => s.text).filter((t) => t?.startsWith('channel'));
    expect(texts.slice(texts.indexOf('channel RECORDING'))).toEqual(
      texts.includes('channel FINISHING_RECORDING')
        ? ['channel RECORDING', 'channel FINISHING_RECORDING', 'channel INACTIVE']
        : ['channel RECORDING', 'channel INACTIVE'],
    );
    expect(seen.caught).toEqual([]);
  }, 45_000);
});

describe('ChannelStateWatch bounds', () => {
  /** A watch with short paces and limits, on the simulator's real clock (RECORDING 2-3 s after creation). */
  function shortWatch(recordingLimitMs: number, recordingGraceMs = 0) {
    const statuses: NodeStatus[] = [];
    const watch = new ChannelStateWatch({
      intervalMs: 200,
      limitMs: 10_000,
      recordingIntervalMs: 200,
      recordingLimitMs,
      recordingGraceMs,
      send: () => undefined,
      status: (s) => statuses.push(s),
      warn: () => undefined,
    });
    const client = createClient({
      workflowUrl: sim.workflowUrl,
      spaceId: DEMO.space,
      accessToken: DEMO.token,
      retries: 0,
    });
    return { statuses, watch, client };
  }

  it('reads a recording channel for its limit, then says when it last saw it recording and reads no more', async () => {
    const { statuses, watch, client } = shortWatch(1000);
    const { data } = await client.createChannel({ name: 'bounded' });
    watch.follow(client, data, {});
    await waitFor(() => statuses.at(-1)?.text?.startsWith('channel RECORDING at ') === true, 10_000);
    expect(statuses.at(-1)).toMatchObject({
      fill: 'grey',
      shape: 'ring',
      text: expect.stringMatching(/^channel RECORDING at \d\d:\d\d$/),
    });
    const reads = channelReads().length;
    await new Promise((r) => setTimeout(r, 1000));
    expect(channelReads().length).toBe(reads);
    watch.close();
    await client.close();
  }, 15_000);

  it("reads a schedule's recording channel until its window's end plus the grace, not the general limit", async () => {
    const { statuses, watch, client } = shortWatch(60 * 60_000, 500);
    const { data } = await client.createChannel({ name: 'scheduled' });
    // the window ends about when the channel records: only the grace is left then, not the hour
    watch.follow(client, data, { window: { end: new Date(Date.now() + 2000).toISOString() } });
    await waitFor(() => statuses.at(-1)?.text?.startsWith('channel RECORDING at ') === true, 10_000);
    expect(statuses.map((s) => s.text)).toContain('channel RECORDING');
    watch.close();
    await client.close();
  }, 15_000);

  it('reads nothing more once closed', async () => {
    const { statuses, watch, client } = shortWatch(60 * 60_000);
    const { data } = await client.createChannel({ name: 'closed' });
    watch.follow(client, data, {});
    await waitFor(() => statuses.some((s) => s.text === 'channel RECORDING'), 10_000);
    watch.close();
    const reads = channelReads().length;
    await new Promise((r) => setTimeout(r, 1000));
    expect(channelReads().length).toBe(reads);
    await client.close();
  }, 15_000);
});

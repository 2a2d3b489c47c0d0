import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClient } from '../../../lib/client';
import { type Simulator, startSimulator } from '../../../lib/simulator';
import { ChannelWatch } from '../../../nodes/schedule/channel-watch';
import { DEMO } from '../../support/node-red-runtime';
import { json, startStub } from '../../support/stub-server';

/**
 * The schedule's channel watch (what keeps the sidebar's channel state
 * current) against the simulator over HTTP, the simulator's clock moved by
 * hand through a channel's life: PENDING, ACTIVE, RECORDING.
 */
let sim: Simulator;
beforeAll(async () => {
  sim = await startSimulator({ manualClock: true });
});
afterAll(async () => {
  await sim.close();
});

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('ChannelWatch', () => {
  it('reports each channel state change while asked to, and stops reading when closed', async () => {
    const client = createClient({
      workflowUrl: sim.workflowUrl,
      liveCaptureUrl: sim.liveCaptureUrl,
      spaceId: DEMO.space,
      apiKey: DEMO.keys.admin,
      accessToken: DEMO.token,
    });
    const { data: channel } = await client.createChannel({
      name: 'watched',
      source_id: '5f0c6a1e-3b7d-4c2a-9e21-0d4b7c9a1f00',
      continuous_recording: false,
      recording_duration: 1,
    });
    const states: string[] = [];
    const bodies: Record<string, unknown>[] = [];
    const watch = new ChannelWatch(
      () => client,
      (id, state, body) => {
        expect(id).toBe(channel.id);
        if (states.at(-1) !== state) states.push(state);
        bodies.push(body);
      },
      20,
    );
    watch.set([channel.id]);
    const until = async (state: string) => {
      for (let i = 0; i < 200 && states.at(-1) !== state; i++) await sleep(10);
    };
    await until('PENDING');
    sim.advance(1_000);
    await until('ACTIVE');
    sim.advance(1_000);
    await until('RECORDING');
    expect(states).toEqual(['PENDING', 'ACTIVE', 'RECORDING']);
    // the channel read goes with its state: the slot takes its start from the service's recording.started_at
    expect(bodies.at(-1)).toMatchObject({ id: channel.id, recording: { started_at: expect.any(String) } });

    watch.close();
    await sleep(50);
    const reads = () => sim.requests().filter((r) => r.path.includes(channel.id)).length;
    const before = reads();
    await sleep(100);
    expect(reads()).toBe(before);
    await client.close();
  });

  it('reads the state where the client finds it: a service that calls the field status', async () => {
    const channelId = '7a1c0000-0000-4000-8000-00000000c0de';
    const stub = await startStub((_req, res) => json(res, 200, { id: channelId, status: 'RECORDING' }));
    const client = createClient({
      workflowUrl: stub.url,
      spaceId: DEMO.space,
      apiKey: DEMO.keys.admin,
      accessToken: DEMO.token,
      retries: 0,
    });
    const states: string[] = [];
    const watch = new ChannelWatch(
      () => client,
      (_id, state) => states.push(state),
      20,
    );
    watch.set([channelId]);
    for (let i = 0; i < 100 && states.length === 0; i++) await sleep(10);
    expect(states).toEqual(['RECORDING']);
    watch.close();
    await client.close();
    await stub.close();
  });
});

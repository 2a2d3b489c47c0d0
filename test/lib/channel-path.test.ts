import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClient } from '../../lib/client';
import { type Simulator, startSimulator } from '../../lib/simulator';

/** The get-channel extension's path: the default the simulator serves, or the one a deployment configures. */

const SPACE = '11111111-1111-4111-8111-111111111111';
let sim: Simulator;

beforeAll(async () => {
  sim = await startSimulator();
});
afterAll(async () => {
  await sim.close();
});

const client = (channelPath?: string) =>
  createClient({
    workflowUrl: sim.workflowUrl,
    spaceId: SPACE,
    accessToken: 'demo-live-token',
    retries: 0,
    channelPath,
  });

describe('getChannel path', () => {
  it('reads /{space_id}/channels/{channel_id} by default, and the configured path otherwise', async () => {
    const c = client();
    const { data: created } = await c.createChannel({ name: 'path check' });
    const { data } = await c.getChannel(created.id);
    expect(data.id).toBe(created.id);
    await c.close();

    const custom = client('/{space_id}/recorders/{channel_id}/state');
    await expect(custom.getChannel(created.id)).rejects.toMatchObject({ status: 404 });
    await custom.close();
    const paths = sim.requests().map((r) => r.path);
    expect(paths).toContain(`/livecapture/v1/${SPACE}/channels/${created.id}`);
    expect(paths).toContain(`/livecapture/v1/${SPACE}/recorders/${created.id}/state`);
  });
});

import { createRequire } from 'node:module';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { clickInject, nodeSelector, waitForStatus } from './support/editor';
import { INSTALLED_PACKAGE, ROOT } from './support/paths';
import { type Stack, startStack } from './support/stack';

/**
 * The create-channel example as a user runs it: press the inject, watch the
 * node's status follow the channel to RECORDING ("Show state"), then press
 * "stop the recording": the continuous recording it started is not left
 * running, and the status follows it to INACTIVE.
 */

const require = createRequire(import.meta.url);
const { pointFlowAtSimulator } = require(join(ROOT, 'scripts/demo-userdir.cjs')) as {
  pointFlowAtSimulator(flow: unknown[], info: unknown): { flow: Node[]; credentials: Record<string, unknown> };
};
type Node = Record<string, unknown> & { id: string; type: string; name?: string };

const CREATE = 'e3n0000000000001';
const CREATE_INJECT = 'e3i0000000000001';
const STOP_INJECT = 'e3i0000000000002';

let stack: Stack;

beforeAll(async () => {
  stack = await startStack('create-channel-example');
  const example = require(join(INSTALLED_PACKAGE, 'examples/create-channel.json')) as Node[];
  const { flow, credentials } = pointFlowAtSimulator(structuredClone(example), stack.sim.info());
  for (const n of flow) if (credentials[n.id]) n.credentials = credentials[n.id];
  // the example brings its own tab, "Create channel"
  const res = await fetch(`${stack.nodeRed.url}/flows`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'Node-RED-Deployment-Type': 'full' },
    body: JSON.stringify(flow),
  });
  expect(res.status).toBe(204);
  await stack.page.reload();
  await stack.page.locator(nodeSelector(CREATE)).waitFor();
});

afterAll(async () => {
  await stack?.close();
});

describe('the create-channel example', () => {
  it('shows the channel recording, and "stop the recording" leaves nothing recording', async () => {
    const { page, sim } = stack;
    await clickInject(page, CREATE_INJECT);
    const recording = await waitForStatus(page, CREATE, (s) => s.text === 'channel RECORDING', 20_000);
    expect(recording.fill).toBe('green');
    const [channel] = sim.requests().filter((r) => r.route === 'create_channel' && r.status === 201);
    expect(channel).toBeDefined();

    await clickInject(page, STOP_INJECT);
    const stopped = await waitForStatus(page, CREATE, (s) => s.text.startsWith('stopped: '), 20_000);
    expect(stopped.text).toBe('stopped: channel FINISHING_RECORDING');
    const stops = sim.requests().filter((r) => r.route === 'stop_channel');
    expect(stops.map((r) => r.status)).toEqual([200]);
    // INACTIVE once the recording has finished: nothing of the example still records
    const id = stops[0].path.split('/').at(-2);
    const space = sim.info().spaces[0];
    await expect
      .poll(
        async () => {
          const res = await fetch(`${sim.liveCaptureUrl}/livecapture/v1/${space.space_id}/channels/${id}`, {
            headers: { authorization: `Bearer ${space.access_token}` },
          });
          return ((await res.json()) as { state: string }).state;
        },
        { timeout: 10_000 },
      )
      .toBe('INACTIVE');
    // and the node's status follows it there, rather than staying on the stop's answer
    const inactive = await waitForStatus(page, CREATE, (s) => s.text === 'channel INACTIVE', 10_000);
    expect(inactive.fill).toBe('grey');
    expect(stack.pageErrors).toEqual([]);
  });
});

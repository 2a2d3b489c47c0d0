import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { clickInject, deploy, importNodes, type NodeStatus, nodeStatus, waitForStatus } from './support/editor';
import { type Stack, simulatorServer, startStack } from './support/stack';

/**
 * Create channel's status on the canvas follows its channel to the end: a
 * schedule's window started now ("trigger", as the sidebar's Start now),
 * recorded, and stopped by the schedule at its end; the create-channel node
 * under it shows channel RECORDING, then leaves it for INACTIVE (it used to
 * stay on RECORDING for good).
 */

const SERVER = 'e2e0chanserver01';
const SCHEDULE = 'e2e0chansched001';
const CHANNEL = 'e2e0chancreate01';
const START_NOW = 'e2e0chaninject01';

let stack: Stack;

beforeAll(async () => {
  stack = await startStack('channel-status');
  const { page } = stack;
  const z = await page.evaluate(() =>
    (window as unknown as { RED: { workspaces: { active(): string } } }).RED.workspaces.active(),
  );
  const server = simulatorServer(stack, SERVER, {
    liveCaptureUrl: stack.sim.liveCaptureUrl,
    credentials: {
      apiKey: stack.sim.info().spaces[0].api_keys.admin,
      accessToken: stack.sim.info().spaces[0].access_token,
    },
  });
  await importNodes(page, [
    server,
    {
      id: START_NOW,
      type: 'inject',
      z,
      x: 140,
      y: 100,
      name: 'start now',
      props: [
        { p: 'topic', vt: 'str' },
        { p: 'window_id', v: 'studio', vt: 'str' },
      ],
      topic: 'trigger',
      repeat: '',
      once: false,
      wires: [[SCHEDULE]],
    },
    {
      id: SCHEDULE,
      type: 'media-spaces-schedule',
      z,
      x: 340,
      y: 100,
      name: 'Studio',
      source: 'yaml',
      // a start far away: only "start now" opens a window, eight seconds long
      yaml: 'windows:\n  - id: studio\n    name: Studio\n    cron: "0 0 1 1 *"\n    timezone: UTC\n    duration: 8s\n',
      catchUp: false,
      server: SERVER,
      wires: [[CHANNEL], [], []],
    },
    {
      id: CHANNEL,
      type: 'media-spaces-create-channel',
      z,
      x: 340,
      y: 200,
      name: 'Create channel',
      server: SERVER,
      watchState: true,
      wires: [[SCHEDULE], []],
    },
  ]);
  // setup: an import alone leaves Deploy disabled; a user's first edit would enable it
  await page.evaluate(() =>
    (window as unknown as { RED: { nodes: { dirty(d: boolean): void } } }).RED.nodes.dirty(true),
  );
  await deploy(page);
});

afterAll(async () => {
  await stack?.close();
});

describe("create channel's status", () => {
  it('shows channel RECORDING while the window records, then INACTIVE once the schedule stopped it', async () => {
    const { page, sim } = stack;
    await clickInject(page, START_NOW);
    const recording = await waitForStatus(page, CHANNEL, (s) => s.text === 'channel RECORDING', 20_000);
    expect(recording.fill).toBe('green');

    // what the canvas shows from then on, until the channel is INACTIVE
    const shown: NodeStatus[] = [];
    const deadline = Date.now() + 40_000;
    for (;;) {
      const now = await nodeStatus(page, CHANNEL);
      if (shown.at(-1)?.text !== now.text) shown.push(now);
      if (now.text === 'channel INACTIVE' || Date.now() > deadline) break;
      await page.waitForTimeout(200);
    }
    expect(shown.at(-1)).toEqual({ fill: 'grey', shape: 'ring', text: 'channel INACTIVE' });
    const stops = sim.requests().filter((r) => r.route === 'stop_channel');
    expect(stops.map((r) => r.status)).toEqual([200]);
    expect(stack.pageErrors).toEqual([]);
  }, 90_000);
});

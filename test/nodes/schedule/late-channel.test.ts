import { createRequire } from 'node:module';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type Simulator, startSimulator } from '../../../lib/simulator';
import { nodeModule } from '../../support/node-modules';
import { CONFIG_ID, configNode, credentials, helper, NODES, waitFor } from '../../support/node-red-runtime';

/**
 * A channel created after its window's end (a slow service): create channel
 * tells the schedule first, the end goes with the channel at once, and the
 * same channel routed back a moment later is acknowledged, not an error.
 */

const require = createRequire(import.meta.url);
const scheduleNode = nodeModule('media-spaces-schedule');
const at = { z: 'tab', x: 100, y: 100 };

type Msg = Record<string, unknown> & { topic?: string; payload?: Record<string, unknown> };

let sim: Simulator;
beforeAll(async () => {
  helper.init(require.resolve('node-red'));
  sim = await startSimulator();
});
afterAll(async () => {
  await sim.close();
});
afterEach(async () => {
  sim.clearFaults();
  await helper.unload();
});

describe('a channel that comes back after its window ended', () => {
  it('ends the window with it, and acknowledges it routed back without an error', async () => {
    const yaml = `windows:
  - id: w
    name: Slow
    cron: "*/5 * * * * *"
    timezone: UTC
    duration: 2s
`;
    const flow = [
      { id: 'tab', type: 'tab', label: 'late channel' },
      configNode(sim, { timeout: 10_000 }),
      {
        id: 'late',
        ...at,
        type: 'media-spaces-schedule',
        source: 'yaml',
        yaml,
        scheduleId: `late-${process.pid}-${Date.now()}`,
        catchUp: false,
        server: CONFIG_ID,
        wires: [['cc'], ['end'], ['ctl']],
      },
      { id: 'cc', ...at, type: 'media-spaces-create-channel', name: '', server: CONFIG_ID, wires: [['late']] },
      { id: 'end', ...at, type: 'helper' },
      { id: 'ctl', ...at, type: 'helper' },
      { id: 'catcher', ...at, type: 'catch', scope: null, uncaught: false, wires: [['caught']] },
      { id: 'caught', ...at, type: 'helper' },
    ];
    await helper.load([NODES.config, NODES.channel, scheduleNode], flow, credentials());
    const seen: Record<'end' | 'ctl' | 'caught', Msg[]> = { end: [], ctl: [], caught: [] };
    for (const id of ['end', 'ctl', 'caught'] as const) {
      helper.getNode(id).on('input', (m: unknown) => seen[id].push(m as Msg));
    }
    // a first window routes its channel back: from then on an end waits for its slot's channel
    await waitFor(() => seen.ctl.some((m) => m.topic === 'channel'), 10_000);
    // the next creation is answered 3 s late, after its 2 s window
    sim.addFault({ route: 'create_channel', kind: 'latency', latency_ms: 3000, count: 1 });
    const before = seen.ctl.filter((m) => m.topic === 'channel').length;
    await waitFor(() => seen.ctl.filter((m) => m.topic === 'channel').length > before, 15_000);
    const late = seen.ctl.filter((m) => m.topic === 'channel').at(-1) as Msg;
    expect(late.payload).toMatchObject({ remembered: false, known: true });
    const slot = String(late.payload?.slotKey);
    await waitFor(() => seen.end.some((m) => (m.window as { slotKey: string }).slotKey === slot), 10_000);
    const end = seen.end.find((m) => (m.window as { slotKey: string }).slotKey === slot) as Msg;
    expect((end.channel as { id: string }).id).toBe(late.payload?.channel_id);
    expect(seen.caught).toEqual([]);
  }, 40_000);
});

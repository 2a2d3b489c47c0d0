import { createRequire } from 'node:module';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type Simulator, startSimulator } from '../../../lib/simulator';
import { helper, waitFor } from '../../support/node-red-runtime';
import { type ChainMsg, loadScheduleChain } from '../../support/schedule-chain';

/**
 * A channel created after its window's end (a slow service): create channel
 * tells the schedule first, the end goes with the channel at once, and the
 * same channel routed back a moment later is acknowledged, not an error.
 */

const require = createRequire(import.meta.url);

type Msg = ChainMsg;

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
    const seen = await loadScheduleChain(sim, {
      yaml,
      scheduleId: `late-${process.pid}-${Date.now()}`,
      timeout: 10_000,
    });
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

  it("a new schedule's first window, its channel answered after the end: the end waits for it, stops it and follows it up", async () => {
    // nothing has come back yet, so the end does not know the flow creates channels: only create channel's request,
    // still out at the end, says so
    sim.addFault({ route: 'create_channel', kind: 'latency', latency_ms: 3000, count: 1 });
    const scheduleId = `late-first-${process.pid}-${Date.now()}`;
    const seen = await loadScheduleChain(sim, {
      yaml: `windows:
  - id: w
    name: Slow first
    cron: "*/5 * * * * *"
    timezone: UTC
    duration: 2s
`,
      scheduleId,
      timeout: 10_000,
    });
    // this schedule's own end (the node id is the last test's: its journal may replay that one's end first)
    const own = () => seen.end.find((m) => String((m.window as { slotKey?: string }).slotKey).startsWith(scheduleId));
    await waitFor(() => own() !== undefined, 15_000);
    const end = own() as Msg;
    const channelId = (end.channel as { id?: string } | undefined)?.id;
    expect(channelId).toEqual(expect.any(String));
    const space = sim.info().spaces[0].space_id;
    const stops = sim
      .requests()
      .filter((r) => r.route === 'stop_channel' && r.path.includes(`/channels/${channelId}/`));
    expect(stops.length).toBeGreaterThanOrEqual(1);
    const channels = (await (await fetch(`${sim.adminUrl}/spaces/${space}/channels`)).json()) as {
      channels: { id: string; state: string }[];
    };
    expect(channels.channels.find((c) => c.id === channelId)?.state).not.toBe('RECORDING');
    // the channel routed back (create channel answers it after telling the schedule) is acknowledged, no error
    await waitFor(() => seen.ctl.some((m) => m.topic === 'channel' && m.payload?.channel_id === channelId), 5_000);
    expect(seen.caught).toEqual([]);
  }, 40_000);
});

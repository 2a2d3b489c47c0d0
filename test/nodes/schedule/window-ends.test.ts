import { createRequire } from 'node:module';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type Simulator, startSimulator } from '../../../lib/simulator';
import { helper } from '../../support/node-red-runtime';
import { loadScheduleChain } from '../../support/schedule-chain';

/**
 * The demo's wiring (examples/recording-automation.json) in a real Node-RED
 * runtime, real timers and real HTTP to the simulator: schedule start ->
 * create-channel -> back into the schedule. Every window's recording must be
 * stopped at its slot's start + duration, not only the first one (once
 * channels were routed back, later ends used to wait for a timer armed for
 * the next start), and its follow-up must go once the recording has finished.
 */

const require = createRequire(import.meta.url);

const WINDOWS = 8;
const EVERY_S = 5;
const DURATION_S = 3;
const TOLERANCE_MS = 1000;

interface Arrival {
  slotKey: string;
  start: number;
  end: number;
  at: number;
  channel: { id?: string; state?: string; recording?: { ended_at?: string; outputs?: { location_url: string }[] } };
}

let sim: Simulator;
beforeAll(async () => {
  helper.init(require.resolve('node-red'));
  sim = await startSimulator();
});
afterAll(async () => {
  await sim.close();
});
afterEach(async () => {
  await helper.unload();
});

describe('schedule with channels routed back, in a real runtime', () => {
  it(`stops each of ${WINDOWS} recordings within ${TOLERANCE_MS} ms of slot start + duration, then follows up on the finished recording`, async () => {
    const yaml = `windows:
  - id: short
    name: Short
    cron: "*/${EVERY_S} * * * * *"
    timezone: UTC
    duration: ${DURATION_S}s
`;
    await loadScheduleChain(sim, { yaml, scheduleId: `ends-${process.pid}-${Date.now()}` });
    const ends: Arrival[] = [];
    const remembered: string[] = [];
    const caught: unknown[] = [];
    helper.getNode('end').on('input', (msg: unknown) => {
      const m = msg as { window: { slotKey: string; start: string; end: string }; channel?: Arrival['channel'] };
      ends.push({
        slotKey: m.window.slotKey,
        start: Date.parse(m.window.start),
        end: Date.parse(m.window.end),
        at: Date.now(),
        channel: m.channel ?? {},
      });
    });
    helper.getNode('ctl').on('input', (msg: unknown) => {
      const m = msg as { topic?: string; payload?: { slotKey?: string } };
      if (m.topic === 'channel' && m.payload?.slotKey) remembered.push(m.payload.slotKey);
    });
    helper.getNode('caught').on('input', (m: unknown) => caught.push(m));

    const deadline = Date.now() + (WINDOWS + 2) * EVERY_S * 1000 + 5000;
    while (ends.length < WINDOWS && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));

    expect(caught).toEqual([]);
    expect(ends.length).toBeGreaterThanOrEqual(WINDOWS);
    const stops = sim.requests().filter((r) => r.method === 'POST' && r.path.endsWith('/stop'));
    const stopLateness: number[] = [];
    for (const e of ends) {
      expect(e.end - e.start).toBe(DURATION_S * 1000);
      // every window's channel came back while the window was open, and the end carries it, finished
      expect(remembered).toContain(e.slotKey);
      const id = e.channel.id;
      expect(typeof id, e.slotKey).toBe('string');
      expect(e.channel.state, e.slotKey).toBe('INACTIVE');
      expect(e.channel.recording?.ended_at, e.slotKey).toBeTypeOf('string');
      expect(e.channel.recording?.outputs?.[0]?.location_url, e.slotKey).toMatch(/\.mxf$/);
      // the first stop of this channel went at the window's end
      const first = stops.find((r) => r.path.includes(`/channels/${id}/stop`));
      expect(first, e.slotKey).toBeDefined();
      const late = Date.parse(first?.time ?? '') - e.end;
      stopLateness.push(late);
      expect(late, e.slotKey).toBeGreaterThanOrEqual(0);
      expect(late, e.slotKey).toBeLessThan(TOLERANCE_MS);
      // the follow-up went after the recording finished
      expect(e.at, e.slotKey).toBeGreaterThan(Date.parse(e.channel.recording?.ended_at ?? ''));
    }
    console.log(`stops: lateness over ${ends.length} windows (ms): ${stopLateness.join(', ')}`);
    // one follow-up per slot
    expect(new Set(ends.map((e) => e.slotKey)).size).toBe(ends.length);
    const starts = ends.map((e) => e.start);
    for (let i = 1; i < starts.length; i++) expect(starts[i] - starts[i - 1]).toBe(EVERY_S * 1000);
  }, 90_000);
});

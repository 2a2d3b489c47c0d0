import { createRequire } from 'node:module';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type Simulator, startSimulator } from '../../lib/simulator';
import { helper, waitFor } from '../support/node-red-runtime';
import { type ChainMsg, loadScheduleChain } from '../support/schedule-chain';
import { print, table, writeResults } from './support/results';

/**
 * Recording continuity in a real runtime with the demo's wiring (schedule -> create channel -> back into the
 * schedule) and real HTTP: a 60 s window whose channel the simulator sends to ERROR 20 s in. A second channel
 * records within 5 s of the failure; both are stopped by 10 s after the end; one follow-up after the end
 * carries both recordings and says it is partial, with one gap; a Catch node hears of the interruption once.
 */

const require = createRequire(import.meta.url);

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

const YAML = `windows:
  - id: w
    name: Interrupted
    cron: "0 0 1 1 *"
    timezone: UTC
    duration: 60s
    followup:
      workflow_id: aaaaaaaa-0000-4000-8000-000000000006
      media_nicknames:
        recording: "{{channel.recording.outputs[0].location_url}}"
`;

type Segment = {
  id: string;
  state: string;
  recording?: { started_at?: string; ended_at?: string; outputs?: unknown[] };
};
const ms = (iso: string | undefined) => (iso ? Date.parse(iso) : Number.NaN);

describe('a recording that fails mid-window is recorded again', () => {
  it('60 s window, channel in ERROR at 20 s: replaced within 5 s, both stopped, one partial follow-up', async () => {
    // the first channel created fails 18 s after it records (it records 2 s after its creation)
    sim.addChannelFailure({ next: 1, outcome: 'error', after_ms: 18_000 });
    const seen = await loadScheduleChain(sim, { yaml: YAML, scheduleId: `continuity-${process.pid}`, timeout: 2000 });
    helper.getNode('sched').receive({ topic: 'trigger', window_id: 'w' });
    await waitFor(() => seen.end.length > 0, 90_000);
    // whatever comes late (a second follow-up, a second report) has had the time to show
    await new Promise((r) => setTimeout(r, 3000));

    expect(seen.end).toHaveLength(1);
    const end = seen.end[0] as ChainMsg & { segments?: Segment[]; partial?: boolean; gaps?: unknown[] };
    const window = end.window as { start: string; end: string; slotKey: string };
    const segments = end.segments ?? [];
    expect(segments).toHaveLength(2);
    const [first, second] = segments;
    expect(first.state).toBe('ERROR');
    expect(second.state).toBe('INACTIVE');
    for (const s of segments) expect(s.recording?.outputs?.length).toBeGreaterThan(0);
    expect((end.channel as Segment).id).toBe(second.id);
    expect(end.partial).toBe(true);
    expect(end.gaps).toHaveLength(1);
    expect(end.gaps?.[0]).toMatchObject({ why: expect.stringMatching(/ERROR/) });
    // the follow-up's template read the last channel's recording
    expect(JSON.stringify(end.payload)).toContain(
      String((second.recording?.outputs?.[0] as { location_url?: string })?.location_url),
    );

    const failedAt = ms(first.recording?.ended_at);
    const replacementRecording = ms(second.recording?.started_at);
    const windowEnd = ms(window.end);
    const secondStopped = ms(second.recording?.ended_at);
    const figures = {
      failure_after_start_s: (failedAt - ms(window.start)) / 1000,
      replacement_recording_after_failure_s: (replacementRecording - failedAt) / 1000,
      second_stopped_after_end_s: (secondStopped - windowEnd) / 1000,
      followups: seen.end.length,
      catch_errors: seen.caught.length,
    };
    writeResults('lifecycle-continuity', figures);
    print('continuity: one interruption in a 60 s window');
    print(table([Object.keys(figures), Object.values(figures)]));
    expect(replacementRecording - failedAt).toBeLessThanOrEqual(5000);
    expect(secondStopped - windowEnd).toBeLessThanOrEqual(10_000);
    expect(secondStopped).toBeGreaterThanOrEqual(windowEnd - 1000);

    // one report and one Catch error for the interruption; nothing missed
    const interrupted = seen.ctl.filter((m) => m.topic === 'interrupted');
    expect(interrupted).toHaveLength(1);
    expect(interrupted[0].payload).toMatchObject({ slot: window.slotKey, channel_id: first.id, restart: 1 });
    expect(seen.ctl.filter((m) => m.topic === 'missed')).toEqual([]);
    expect(seen.caught).toHaveLength(1);
    expect((seen.caught[0].error as { code?: string }).code).toBe('interrupted');
    // the replacement under a key of its own
    const creates = sim
      .requests()
      .filter((r) => r.route === 'create_channel' && r.idempotency_key?.startsWith(window.slotKey));
    expect(new Set(creates.map((r) => r.idempotency_key))).toEqual(
      new Set([window.slotKey, `${window.slotKey}:restart:1`]),
    );
  }, 120_000);
});

import diagnostics_channel from 'node:diagnostics_channel';
import { createRequire } from 'node:module';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type Simulator, startSimulator } from '../../../lib/simulator';
import { helper, waitFor } from '../../support/node-red-runtime';
import { loadScheduleChain } from '../../support/schedule-chain';

/**
 * The schedule's badge and its early alarm read the slot's state machine, in a real runtime with the demo's
 * wiring and real HTTP: "recording" only once create channel has a channel; "starting ..., attempt n: 503"
 * while the service refuses; one start_failing report once the start has failed for alarm_after, before the
 * window's final missed report.
 */

const require = createRequire(import.meta.url);

let sim: Simulator;
/** every slot transition the schedule publishes (the channel is the process's, by name) */
const transitions: { slot: string; from: string; to: string; window: { id: string } }[] = [];
const listen = (t: unknown) => transitions.push(t as (typeof transitions)[number]);
beforeAll(async () => {
  helper.init(require.resolve('node-red'));
  sim = await startSimulator();
  diagnostics_channel.subscribe('media-spaces:slot', listen);
});
afterAll(async () => {
  diagnostics_channel.unsubscribe('media-spaces:slot', listen);
  await sim.close();
});
const phasesOf = (slot: string) => transitions.filter((t) => t.slot === slot && t.to !== 'planned').map((t) => t.to);
afterEach(async () => {
  sim.clearFaults();
  await helper.unload();
});

const yaml = (name: string, extra = '') => `windows:
  - id: w
    name: ${name}
    cron: "0 0 1 1 *"
    timezone: UTC
    duration: 6s
${extra}`;

function statusTexts(): string[] {
  const node = helper.getNode('sched') as unknown as { status: { args: [{ text?: string }][] } };
  return node.status.args.map((a) => a[0]?.text ?? '');
}

describe('the schedule says what its slot is doing', () => {
  it('refused: "starting, attempt n: 503", one start_failing after alarm_after, then one missed; never "recording"', async () => {
    sim.addFault({ route: 'create_channel', kind: 'status', status: 503 });
    const seen = await loadScheduleChain(sim, {
      yaml: yaml('Refused', '    alarm_after: 2s\n'),
      scheduleId: `honest-refused-${process.pid}`,
      timeout: 1000,
    });
    const started = Date.now();
    helper.getNode('sched').receive({ topic: 'trigger', window_id: 'w' });
    await waitFor(() => seen.ctl.some((m) => m.topic === 'missed'), 20_000);
    const topics = seen.ctl.map((m) => m.topic);
    expect(topics).toEqual(['start_failing', 'missed']);
    const [failing] = seen.ctl;
    expect(failing.payload).toMatchObject({ slot: expect.stringContaining(':w:'), window: { name: 'Refused' } });
    expect(Number(failing.payload?.attempts)).toBeGreaterThanOrEqual(2);
    expect(String(failing.payload?.reason)).toMatch(/503/);
    expect(Number(failing.payload?.since_s)).toBeGreaterThanOrEqual(2);
    const texts = statusTexts();
    expect(texts.some((t) => /^starting Refused, attempt \d+: .*503/.test(t))).toBe(true);
    expect(texts.filter((t) => t.includes('recording'))).toEqual([]);
    expect(Date.now() - started).toBeGreaterThan(2000);
    // the slot's state machine, as the as-run log and the metrics hear it
    expect(phasesOf(String(failing.payload?.slot))).toEqual(['starting', 'missed']);
    // and each window's next start, planned
    expect(transitions.some((t) => t.to === 'planned' && t.window.id === 'w')).toBe(true);
  }, 30_000);

  it('recorded: "starting" until create channel has the channel, then "recording"; no alarm', async () => {
    // the service takes its time to answer: the badge has the time to show the start
    sim.addFault({ route: 'create_channel', kind: 'latency', latency_ms: 1500, count: 1 });
    const seen = await loadScheduleChain(sim, { yaml: yaml('Fine'), scheduleId: `honest-fine-${process.pid}` });
    helper.getNode('sched').receive({ topic: 'trigger', window_id: 'w' });
    await waitFor(() => seen.end.length > 0, 30_000);
    const texts = statusTexts().filter((t) => t.includes('Fine'));
    const firstRecording = texts.findIndex((t) => t.startsWith('recording: Fine until'));
    expect(texts[0]).toMatch(/^starting: Fine until/);
    expect(firstRecording).toBeGreaterThan(0);
    expect(seen.ctl.filter((m) => m.topic === 'start_failing')).toEqual([]);
    const slot = String((seen.end[0].window as { slotKey: string }).slotKey);
    expect(phasesOf(slot)).toEqual(['starting', 'recording', 'stopping', 'finishing', 'finished']);
  }, 30_000);
});

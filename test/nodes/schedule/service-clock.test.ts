import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AsRunRecord } from '../../../lib/asrun';
import { httpJson, waitFor } from '../../reliability/support-restart/node-red';
import { type DemoProcess, startDemoProcess } from '../../support/demo-process';
import { parseSamples } from '../../support/prometheus-text';

/**
 * The service's clock 10 s ahead of this host's, through the real chain: the demo's wiring in a real
 * Node-RED process against the simulator over HTTP, the simulator's clock moved 10 s on (its answers' Date
 * headers and the recordings' times go by it), the window every 10 s for 5 s. The schedule starts recordings
 * by this host's clock; the as-run log, the warning and the metrics say how far the clocks differ.
 */
const PERIOD_MS = 10_000;
const SKEW_MS = 10_000;

interface SimChannel {
  id: string;
  recording?: { started_at?: string };
}

describe("the service's clock ahead of this host's", () => {
  let demo: DemoProcess;

  beforeAll(async () => {
    demo = await startDemoProcess({ name: 'service-clock', cron: '*/10 * * * * *', durationS: 5 });
    expect((await demo.admin('/clock/advance', { ms: SKEW_MS })).status).toBe(200);
  }, 90_000);

  afterAll(async () => {
    await demo?.close();
  });

  it('is measured from the answers, told once, and carried by the as-run record and the metrics', async () => {
    // the second slot after the clock moved: the answers of the first settle the estimate
    const start = Math.ceil((Date.now() + 1000) / PERIOD_MS) * PERIOD_MS + PERIOD_MS;
    const day = new Date(start).toISOString().slice(0, 10);
    const record = await waitFor(
      async () => {
        const r = await httpJson(`${demo.red.url}/media-spaces/as-run?day=${day}&zone=UTC`);
        const slot = ((r.json as { records?: AsRunRecord[] }).records ?? []).find(
          (x) => Date.parse(x.scheduled.start) === start,
        );
        return slot && slot.outcome !== 'open' ? slot : undefined;
      },
      'the slot ended in the as-run log',
      { timeoutMs: start + 30_000 - Date.now(), intervalMs: 500 },
    );
    const space = demo.sim.info().spaces[0].space_id;
    const listed = (await (await fetch(`${demo.sim.adminUrl}/spaces/${space}/channels`)).json()) as {
      channels: SimChannel[];
    };
    const startedAt = listed.channels.find((c) => c.id === record.channels[0]?.id)?.recording?.started_at;
    console.log(
      `slot ${new Date(start).toISOString()}: service recorded from ${startedAt}; as-run ${record.actual.start}, lateBy ${record.lateBy}, clockOffset ${record.clockOffset}, "${record.discrepancy}"`,
    );
    // the service's own times, as it gave them: 10 s of clocks and 2 s of warm-up after this host's start
    expect(record.actual.start).toBe(startedAt);
    // the stop went at the end by this host's clock: 10 s past it by the service's, an overrun, and why
    expect(record.outcome).toBe('overran');
    expect(record.clockOffset).toBeGreaterThanOrEqual(9.5);
    expect(record.clockOffset).toBeLessThanOrEqual(10.5);
    expect(record.lateBy).toBeGreaterThanOrEqual(11);
    expect(record.discrepancy).toMatch(
      /^started 1\d s late; overran by \d+ s: the stop went at the end by this host's clock; the service's clock is (9\.\d|10(\.\d)?) s ahead of this host's$/,
    );

    // told once on the schedule, however many slots carry it
    const warnings = demo.red.lines().filter((l) => l.text.includes("the service's clock is"));
    expect(warnings.length, warnings.map((l) => l.text).join('\n')).toBe(1);
    expect(warnings[0].text).toMatch(/\[warn\].*ahead of this host's: recordings start and stop by this host's clock/);

    const samples = parseSamples(await (await fetch(`${demo.red.url}/media-spaces/metrics`)).text());
    const offset = samples.find((s) => s.name === 'media_spaces_service_clock_offset_seconds');
    expect(offset?.labels.origin).toBe(new URL(demo.sim.workflowUrl).origin);
    expect(offset?.value).toBeGreaterThanOrEqual(9.5);
    expect(offset?.value).toBeLessThanOrEqual(10.5);
  }, 90_000);
});

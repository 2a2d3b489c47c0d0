import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AsRunRecord } from '../../../lib/asrun';
import { httpJson, waitFor } from '../../reliability/support-restart/node-red';
import { DEMO_SCHEDULE, DEMO_WINDOW, type DemoProcess, startDemoProcess } from '../../support/demo-process';
import { parseSamples } from '../../support/prometheus-text';

/**
 * The record of a slot tells the service's times, through the real chain: the demo's wiring
 * (examples/recording-automation.json) in a real Node-RED process against the simulator over HTTP, the
 * window every 20 s for 10 s. The slot's channel creation is answered 5 s late (the simulator's latency
 * fault), so its recording starts 7 s after the slot's start by the simulator's clock (2 s of warm-up);
 * its stop is refused with 503 until 15 s after its end (a status fault that ends by itself). The as-run
 * log (GET /media-spaces/as-run) and the metrics (GET /media-spaces/metrics) are read as a user would.
 */
const PERIOD_MS = 20_000;
const DURATION_S = 10;
const LATE_MS = 5000;
const REFUSED_AFTER_END_MS = 15_000;

interface SimChannel {
  id: string;
  recording?: { started_at?: string; ended_at?: string };
}

describe('a late start and an overrun, as the service timed them', () => {
  let demo: DemoProcess;

  beforeAll(async () => {
    demo = await startDemoProcess({ name: 'slot-times', cron: '*/20 * * * * *', durationS: DURATION_S });
  }, 90_000);

  afterAll(async () => {
    await demo?.close();
  });

  it('as-run start and end are the recording start and end by the service; late start and overrun told, timed and counted', async () => {
    let start = 0;
    let placedAt = 0;
    for (let tries = 0; ; tries++) {
      // the very next slot: the latency fault is for the next channel creation, which must be this slot's
      // (a slot chosen further on let the one before it take the fault)
      start = Math.ceil(Date.now() / PERIOD_MS) * PERIOD_MS;
      // and once the slot before it is stopped: a stop fault placed before that refused its stop too (two overruns)
      const previousStopped = start - PERIOD_MS + DURATION_S * 1000 + 2000;
      if (Date.now() < previousStopped) {
        await new Promise((resolve) => setTimeout(resolve, previousStopped - Date.now()));
        continue;
      }
      if (start - Date.now() < 4000) {
        await new Promise((resolve) => setTimeout(resolve, start + 1000 - Date.now()));
        continue;
      }
      expect(
        (await demo.admin('/faults', { route: 'create_channel', kind: 'latency', latency_ms: LATE_MS, count: 1 }))
          .status,
      ).toBe(201);
      const refusedFor = start + DURATION_S * 1000 + REFUSED_AFTER_END_MS - Date.now();
      expect(
        (await demo.admin('/faults', { route: 'stop_channel', kind: 'status', status: 503, duration_ms: refusedFor }))
          .status,
      ).toBe(201);
      placedAt = Date.now();
      if (placedAt < start - 1000) break;
      // placing them took the margin (a loaded machine): again for a later slot, once this one has passed
      expect(tries, 'the faults could not be placed 1 s before a slot').toBeLessThan(3);
      await demo.admin('/faults', undefined, 'DELETE');
      await new Promise((resolve) => setTimeout(resolve, Math.max(0, start + DURATION_S * 1000 - Date.now())));
    }
    const end = start + DURATION_S * 1000;

    const day = new Date(start).toISOString().slice(0, 10);
    const record = await waitFor(
      async () => {
        const r = await httpJson(`${demo.red.url}/media-spaces/as-run?day=${day}&zone=UTC`);
        const records = (r.json as { records?: AsRunRecord[] }).records ?? [];
        const slot = records.find((x) => Date.parse(x.scheduled.start) === start);
        return slot && slot.outcome !== 'open' ? slot : undefined;
      },
      'the slot ended in the as-run log',
      { timeoutMs: end + REFUSED_AFTER_END_MS + 20_000 - Date.now(), intervalMs: 500 },
    );
    // no more faults for the slots after it
    await demo.admin('/faults', undefined, 'DELETE');

    // the service's own account of the recording
    const space = demo.sim.info().spaces[0].space_id;
    const listed = (await (await fetch(`${demo.sim.adminUrl}/spaces/${space}/channels`)).json()) as {
      channels: SimChannel[];
    };
    const channel = listed.channels.find((c) => c.id === record.channels[0]?.id);
    const startedAt = Date.parse(String(channel?.recording?.started_at));
    const endedAt = Date.parse(String(channel?.recording?.ended_at));
    console.log(
      `slot ${new Date(start).toISOString()}–${new Date(end).toISOString()}: service recorded ${channel?.recording?.started_at}–${channel?.recording?.ended_at}; ` +
        `as-run ${record.actual.start}–${record.actual.end}, lateBy ${record.lateBy}, overrunBy ${record.overrunBy}, ` +
        `outcome ${record.outcome}, discrepancy "${record.discrepancy}"`,
    );
    // the channel requests around the slot, as the service logged them: which one the latency fault took
    const around = demo.sim
      .requests()
      .filter((r) => r.route === 'create_channel' && Math.abs(Date.parse(r.time) - start) < PERIOD_MS)
      .map((r) => `${r.time} ${r.status} ${r.idempotency_key ?? ''}`);
    console.log(
      `create_channel around the slot (faults placed ${new Date(placedAt).toISOString()}): ${around.join('; ')}`,
    );
    expect(startedAt - start).toBeGreaterThanOrEqual(LATE_MS);

    expect(Math.abs(Date.parse(String(record.actual.start)) - startedAt)).toBeLessThanOrEqual(1500);
    expect(record.lateBy).toBeGreaterThanOrEqual(4.5);
    expect(Date.parse(String(record.actual.end)) - end).toBeGreaterThanOrEqual(13_000);
    expect(Math.abs(Date.parse(String(record.actual.end)) - endedAt)).toBeLessThanOrEqual(1500);
    expect(record.outcome).toBe('overran');
    expect(record.overrunBy).toBeGreaterThanOrEqual(13);
    expect(record.discrepancy).toMatch(/started \d+ s late/);
    expect(record.discrepancy).toMatch(/overran by \d+ s: stop refused 503 ×\d+/);

    const samples = parseSamples(await (await fetch(`${demo.red.url}/media-spaces/metrics`)).text());
    const value = (name: string, extra: Record<string, string> = {}) =>
      samples.find(
        (s) =>
          s.name === name &&
          s.labels.schedule === DEMO_SCHEDULE &&
          s.labels.window === DEMO_WINDOW &&
          Object.entries(extra).every(([k, v]) => s.labels[k] === v),
      )?.value;
    expect(value('media_spaces_slot_start_lateness_seconds_sum')).toBeGreaterThanOrEqual(4.5);
    expect(value('media_spaces_slot_end_lateness_seconds_sum')).toBeGreaterThanOrEqual(13);
    expect(value('media_spaces_slot_overruns_total')).toBe(1);
    expect(value('media_spaces_slots_total', { outcome: 'overran' })).toBe(1);
  }, 120_000);
});

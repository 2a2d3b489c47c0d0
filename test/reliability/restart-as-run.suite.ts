import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'csv-parse/sync';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AsRunRecord } from '../../lib/asrun';
import {
  DEMO_SCHEDULE,
  DEMO_WINDOW,
  type DemoProcess,
  printed,
  printerNode,
  startDemoProcess,
} from '../support/demo-process';
import { httpJson, type NodeRedProcess, sleep, waitFor } from './support-restart/node-red';

/**
 * The as-run log of ten slots of the demo's wiring (examples/recording-automation.json
 * in a real Node-RED process, the window every 10 s for 8 s) against the
 * simulator, with the README's drills: slot 2's channel creations refused
 * for its whole window (missed), slot 4's recording failed 0.5 s in through
 * /__admin/channel-failures (partial: a replacement channel records the
 * rest), slot 6 skipped through the sidebar's skip action, and Node-RED
 * killed with SIGKILL 4.5 s into slot 8 and started again. Afterwards: ten
 * records, one per slot, each with its outcome and reason; the day's CSV,
 * parsed, has the same ten rows; the killed slot's record is whole and
 * single; an as-run node in the flow sent each slot once. (The restarted
 * schedule replays the ends of the last minutes, which publishes each of
 * those slots as finished again: the log keeps each slot's first end.)
 */
const PERIOD_MS = 10_000;
const DURATION_S = 8;
const SLOTS = 10;

interface Sent {
  topic: string;
  payload: AsRunRecord;
}

async function until(at: number): Promise<void> {
  const wait = at - Date.now();
  if (wait > 0) await sleep(wait);
}

describe('as-run: ten slots of the demo wiring, with a miss, a partial, a skip and a SIGKILL', () => {
  let demo: DemoProcess;
  let first: NodeRedProcess;
  const starts: number[] = [];

  beforeAll(async () => {
    demo = await startDemoProcess({
      name: 'as-run-ten',
      cron: '*/10 * * * * *',
      durationS: DURATION_S,
      extra: [
        { id: 'demoasrun0000001', type: 'media-spaces-as-run', name: '', x: 700, y: 60, wires: [['demoasrunprint01']] },
        printerNode('demoasrunprint01', 'AS-RUN'),
      ],
    });
    first = demo.red;
    const t0 = Math.ceil((Date.now() + 2000) / PERIOD_MS) * PERIOD_MS;
    for (let i = 0; i < SLOTS; i++) starts.push(t0 + i * PERIOD_MS);
  }, 90_000);

  afterAll(async () => {
    await demo?.close();
  });

  const records = async (): Promise<AsRunRecord[]> => {
    const days = [...new Set([starts[0], starts[SLOTS - 1]].map((t) => new Date(t).toISOString().slice(0, 10)))];
    const all: AsRunRecord[] = [];
    for (const day of days) {
      const r = await httpJson(`${demo.red.url}/media-spaces/as-run?day=${day}&zone=UTC`);
      expect(r.status).toBe(200);
      all.push(...(r.json as { records: AsRunRecord[] }).records);
    }
    return all.filter((r) => starts.includes(Date.parse(r.scheduled.start)));
  };

  it('ten records with the right outcomes and reasons, the same rows in the CSV, the killed slot whole and single', async () => {
    // slot 2: every channel creation refused until past its end
    await until(starts[2] - 1500);
    expect(
      (await demo.admin('/faults', { route: 'create_channel', kind: 'status', status: 503, duration_ms: 9800 })).status,
    ).toBe(201);
    // slot 4: the next channel created fails 0.5 s into its recording
    await until(starts[4] - 1500);
    expect((await demo.admin('/channel-failures', { next: 1, after_ms: 500 })).status).toBe(201);
    // slot 6: skipped from the sidebar (its next start, once slot 5 has started)
    await until(starts[5] + 2000);
    const skip = await httpJson(`${demo.red.url}/media-spaces/schedules/${DEMO_SCHEDULE}/skip`, {
      method: 'POST',
      body: { window: DEMO_WINDOW },
    });
    expect(skip.status).toBe(200);
    // slot 8: Node-RED killed while it records, and started again
    await until(starts[8] + 4500);
    await demo.restartAfterKill();

    const done = await waitFor(
      async () => {
        const r = await records();
        return r.length === SLOTS && r.every((x) => x.outcome !== 'open') ? r : undefined;
      },
      'ten finished slots',
      { timeoutMs: starts[SLOTS - 1] + 40_000 - Date.now(), intervalMs: 500 },
    );
    console.log(
      done.map((r) => `${r.scheduled.start} ${r.outcome} ${r.reason ?? ''} | ${r.discrepancy ?? ''}`).join('\n'),
    );
    expect(done.map((r) => Date.parse(r.scheduled.start))).toEqual(starts);
    expect(new Set(done.map((r) => r.slot)).size).toBe(SLOTS);
    expect(done.map((r) => r.outcome)).toEqual([
      'recorded',
      'recorded',
      'missed',
      'recorded',
      'partial',
      'recorded',
      'skipped',
      'recorded',
      'recorded',
      'recorded',
    ]);
    expect(done[2].reason).toMatch(/^the channel could not be created \(.*HTTP 503/);
    expect(done[2].channels).toEqual([]);
    expect(done[4].reason).toMatch(/^recording interrupted 1 time: the channel went to ERROR/);
    expect(done[4].channels).toHaveLength(2);
    expect(done[4].gaps).toHaveLength(1);
    expect(done[6].reason).toBe('the start was skipped on request');
    for (const i of [0, 1, 3, 5, 7, 8, 9]) {
      expect(done[i].reason, done[i].slot).toBeUndefined();
      expect(done[i].channels, done[i].slot).toHaveLength(1);
    }

    // the killed slot: its start and recording written by the first process, its end by the second, one record
    const killed = done[8];
    expect(killed.actual.start).toBeDefined();
    expect(killed.actual.end).toBeDefined();
    expect(Date.parse(killed.actual.end ?? '')).toBeGreaterThan(Date.parse(killed.actual.start ?? ''));
    expect(killed.channels[0].outputs?.length).toBeGreaterThan(0);
    const lines = readdirSync(join(demo.userDir, 'media-spaces-as-run'))
      .flatMap((f) =>
        readFileSync(join(demo.userDir, 'media-spaces-as-run', f), 'utf8')
          .trim()
          .split('\n'),
      )
      .map((l) => JSON.parse(l) as { kind: string; event: { slot: string; to?: string } })
      .filter((e) => e.kind === 'slot' && e.event.slot === killed.slot);
    expect(lines.map((e) => e.event.to)).toEqual(['starting', 'recording', 'stopping', 'finishing', 'finished']);

    // the CSV export, parsed: the same ten rows
    const day = new Date(starts[0]).toISOString().slice(0, 10);
    const csv = await httpJson(`${demo.red.url}/media-spaces/as-run?day=${day}&zone=UTC&format=csv`);
    expect(csv.status).toBe(200);
    const rows = (parse(csv.text, { columns: true }) as Record<string, string>[]).filter((row) =>
      done.some((r) => r.slot === row.slot),
    );
    const sameDay = done.filter((r) => r.scheduled.start.startsWith(day));
    expect(rows.map((row) => [row.slot, row.outcome, row.reason])).toEqual(
      sameDay.map((r) => [r.slot, r.outcome, r.reason ?? '']),
    );

    // the as-run node: each slot sent once, by whichever process ended it
    const sent = [...printed<Sent>(first, 'AS-RUN'), ...printed<Sent>(demo.red, 'AS-RUN')].filter((m) =>
      done.some((r) => r.slot === m.payload.slot),
    );
    expect(sent.map((m) => [m.payload.slot, m.topic]).sort()).toEqual(done.map((r) => [r.slot, r.outcome]).sort());
    expect(sent.find((m) => m.payload.slot === killed.slot)?.payload).toMatchObject({
      actual: killed.actual,
      channels: killed.channels,
    });
  }, 240_000);

  it("killed while the channel warms up: taken up as starting, its actual start the service's recording start", async () => {
    // the channels created from here on record 6 s after their creation; the window is 8 s
    expect((await demo.admin('/warm-up', { ms: 6000 })).status).toBe(200);
    const start = Math.ceil((Date.now() + 3000) / PERIOD_MS) * PERIOD_MS;
    let killedAt = 0;
    try {
      await until(start + 2500);
      killedAt = Date.now();
      await demo.restartAfterKill();
    } finally {
      await demo.admin('/warm-up', { ms: 2000 });
    }
    const record = await waitFor(
      async () => {
        const day = new Date(start).toISOString().slice(0, 10);
        const r = await httpJson(`${demo.red.url}/media-spaces/as-run?day=${day}&zone=UTC`);
        const found = (r.json as { records: AsRunRecord[] }).records.find(
          (x) => Date.parse(x.scheduled.start) === start,
        );
        return found && found.outcome !== 'open' ? found : undefined;
      },
      'the warmed-up slot ended',
      { timeoutMs: 60_000, intervalMs: 500 },
    );
    const space = demo.sim.info().spaces[0].space_id;
    const listed = await httpJson(`${demo.sim.adminUrl}/spaces/${space}/channels`);
    const channel = (listed.json as { channels: { id: string; recording?: { started_at?: string } }[] }).channels.find(
      (c) => c.id === record.channels[0]?.id,
    );
    const startedAt = channel?.recording?.started_at;
    console.log(
      `killed ${new Date(killedAt).toISOString()}; service recorded from ${startedAt}; as-run ${JSON.stringify(record.actual)}, lateBy ${record.lateBy}, ${record.outcome}, "${record.discrepancy ?? ''}"`,
    );
    // the channel was still warming up when Node-RED was killed
    expect(Date.parse(startedAt ?? '')).toBeGreaterThan(killedAt);
    expect(record.outcome).toBe('recorded');
    expect(record.actual.start).toBe(startedAt);
    expect(record.lateBy).toBeGreaterThanOrEqual(5.5);
    expect(record.discrepancy).toMatch(/started \d+ s late/);
    expect(Date.parse(record.actual.end ?? '')).toBeGreaterThan(Date.parse(startedAt ?? ''));
  }, 120_000);
});

import { execFile } from 'node:child_process';
import diagnostics_channel from 'node:diagnostics_channel';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { foldRecords } from '../../../lib/asrun/record';
import type { SlotTransition } from '../../../lib/schedule/slot-events';
import { type Simulator, startSimulator } from '../../../lib/simulator';
import { runtimeFeed } from '../../support/activity-feed';
import { helper, waitFor } from '../../support/node-red-runtime';
import { type ChainMsg, loadScheduleChain } from '../../support/schedule-chain';
import { airingKey, channelRequests, serialGuide } from '../../support/serial-guide';

/**
 * Record at the next airing, in a real runtime with the demo's wiring against the simulator over HTTP: a
 * guide airs one episode twice (day 1 and day 3, compressed to seconds), read `duplicates: once` with
 * `rerecord`. The service refuses the first airing's channel for its whole window: the first slot ends
 * missed, the second airing is booked (one `rerecord` report, a mark on the sidebar's timeline before it
 * starts) and recorded, its as-run record naming the first; the first's record stays missed. Two instances: rerecord-two-instances.test.ts.
 */

const require = createRequire(import.meta.url);
let sim: Simulator;
let dir: string;
const transitions: SlotTransition[] = [];
const listen = (t: unknown) => transitions.push(t as SlotTransition);

beforeAll(async () => {
  helper.init(require.resolve('node-red'));
  sim = await startSimulator();
  dir = mkdtempSync(path.join(os.tmpdir(), 'rerecord-'));
  diagnostics_channel.subscribe('media-spaces:slot', listen);
});
afterAll(async () => {
  diagnostics_channel.unsubscribe('media-spaces:slot', listen);
  await sim.close();
  rmSync(dir, { recursive: true, force: true });
});
afterEach(async () => {
  sim.clearFaults();
  await helper.unload();
});

const iso = (ms: number) => new Date(ms).toISOString().replace('.000', '');
/** the next whole second at least `ahead` ms from now */
const second = (ahead: number) => Math.ceil((Date.now() + ahead) / 1000) * 1000;

describe('a guide window with rerecord', () => {
  it('books the episode at its next airing when its first airing is missed, and records it there', {
    timeout: 90_000,
  }, async () => {
    const file = path.join(dir, 'guide.xml');
    writeFileSync(file, serialGuide([Date.now() + 60_000, Date.now() + 120_000]));
    const { stdout } = await promisify(execFile)('tv_validate_file', [file], {
      env: { ...process.env, XMLTV_SUPPLEMENT: '/usr/share/xmltv' },
    });
    expect(stdout.trim()).toBe('Validated ok.');
    const a = second(6000);
    const b = a + 14_000;
    writeFileSync(file, serialGuide([a, b]));
    const scheduleId = `rerecord-${process.pid}-${Date.now()}`;
    const seen = await loadScheduleChain(sim, {
      yaml: `windows:
  - id: serial
    xmltv: ${JSON.stringify(file)}
    match: { title: "^Serial$", duplicates: once }
    timezone: UTC
    rerecord: { within: 1h }
`,
      scheduleId,
    });
    const key = (at: number) => airingKey(scheduleId, a, at);
    const creates = (at: number) => channelRequests(sim, key(at));
    const starts: ChainMsg[] = [];
    helper.getNode('cc').on('input', (m: unknown) => starts.push(m as ChainMsg));
    const planned = () =>
      runtimeFeed()
        .snapshot()
        .schedules.find((x) => x.nodeId === 'sched')
        ?.slots.filter((v) => v.phase === 'upcoming') ?? [];

    // before anything fails: the repeat is not planned (duplicates: once)
    await waitFor(() => planned().length === 1, 10_000);
    expect(planned().map((v) => v.start)).toEqual([a]);

    // the service refuses every channel through the first airing
    sim.addFault({ route: 'create_channel', kind: 'status', status: 503 });
    await waitFor(() => transitions.some((t) => t.slot === key(a) && t.to === 'missed'), a + 20_000 - Date.now());
    sim.clearFaults();
    expect(creates(a).length).toBeGreaterThan(0);
    expect(Date.now()).toBeLessThan(b);

    // one booking, told once, before the second airing starts; the timeline marks it
    await waitFor(() => seen.ctl.some((m) => m.topic === 'rerecord'), 5000);
    const told = seen.ctl.filter((m) => m.topic === 'rerecord');
    expect(told).toHaveLength(1);
    expect(told[0].payload).toMatchObject({
      slot: key(b),
      of: key(a),
      at: iso(b),
      end: iso(b + 6000),
      window_id: 'serial',
      title: 'Serial · S01E05',
    });
    expect(String(told[0].payload?.reason)).toMatch(/^missed: /);
    await waitFor(() => planned().some((v) => v.start === b && v.rerecord === true), 5000);
    expect(Date.now()).toBeLessThan(b);

    // the second airing records: its start carries the slot it records again
    await waitFor(() => transitions.some((t) => t.slot === key(b) && t.to === 'finished'), b + 25_000 - Date.now());
    expect(new Set(creates(b).map((r) => r.idempotency_key)).size).toBe(1);
    const start = starts.find((m) => (m.window as { slotKey: string }).slotKey === key(b));
    expect(start).toBeDefined();

    // the as-run: the first stays missed, the second recorded and linked to it
    const records = foldRecords(
      transitions.filter((t) => t.slot.startsWith(scheduleId)).map((event) => ({ kind: 'slot' as const, event })),
    );
    expect(records.map((r) => [r.slot, r.outcome, r.rerecordOf])).toEqual([
      [key(a), 'missed', undefined],
      [key(b), 'recorded', key(a)],
    ]);
    // nothing more is booked, and nothing is caught
    expect(seen.ctl.filter((m) => m.topic === 'rerecord')).toHaveLength(1);
    expect(seen.caught.filter((m) => !/503/.test(JSON.stringify(m.error)))).toEqual([]);
  });

  it('books nothing when the first airing records well: the repeat is never recorded', {
    timeout: 60_000,
  }, async () => {
    const file = path.join(dir, 'guide-ok.xml');
    const a = second(4000);
    const b = a + 8000;
    writeFileSync(file, serialGuide([a, b]));
    const scheduleId = `rerecord-ok-${process.pid}-${Date.now()}`;
    const seen = await loadScheduleChain(sim, {
      yaml: `windows:
  - id: serial
    xmltv: ${JSON.stringify(file)}
    match: { title: "^Serial$", duplicates: once }
    timezone: UTC
    rerecord: true
`,
      scheduleId,
    });
    await waitFor(
      () => transitions.some((t) => t.slot.startsWith(scheduleId) && t.to === 'finished'),
      a + 20_000 - Date.now(),
    );
    // past the repeat's start, where its channel would have been asked for
    await waitFor(() => Date.now() > b + 3000, 30_000);
    const slots = new Set(
      transitions.filter((t) => t.slot.startsWith(scheduleId) && t.to !== 'planned').map((t) => t.slot),
    );
    expect([...slots]).toEqual([`${scheduleId}:serial:one.test/0.4.0/1`]);
    expect(seen.ctl.filter((m) => m.topic === 'rerecord')).toEqual([]);
    expect(
      sim.requests().filter((r) => r.route === 'create_channel' && r.idempotency_key?.startsWith(scheduleId)),
    ).toHaveLength(1);
  });
});

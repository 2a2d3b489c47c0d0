import diagnostics_channel from 'node:diagnostics_channel';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { foldRecords } from '../../../lib/asrun/record';
import type { SlotTransition } from '../../../lib/schedule/slot-events';
import { type Simulator, startSimulator } from '../../../lib/simulator';
import { runtimeFeed } from '../../support/activity-feed';
import { vcalendar, vevent } from '../../support/ical-text';
import { helper, waitFor } from '../../support/node-red-runtime';
import { type ChainMsg, loadScheduleChain } from '../../support/schedule-chain';

/**
 * Priorities decided before the start, in a real runtime with the demo's wiring against the simulator over
 * HTTP: four calendar windows of priorities 3, 2, 1, 0 whose events overlap, with max_channels 2. The two
 * highest record; the two lowest are reported `conflict` before their start, never sent to the service, and
 * end `skipped` with the reason in the as-run record (folded from the slot transitions as the as-run log folds
 * them). When the highest's event is cancelled mid-way (on_cancel: stop), the best loser starts at once.
 */

const require = createRequire(import.meta.url);
let sim: Simulator;
let dir: string;
const transitions: SlotTransition[] = [];
const listen = (t: unknown) => transitions.push(t as SlotTransition);

beforeAll(async () => {
  helper.init(require.resolve('node-red'));
  sim = await startSimulator();
  dir = mkdtempSync(path.join(os.tmpdir(), 'priorities-'));
  diagnostics_channel.subscribe('media-spaces:slot', listen);
});
afterAll(async () => {
  diagnostics_channel.unsubscribe('media-spaces:slot', listen);
  await sim.close();
  rmSync(dir, { recursive: true, force: true });
});
afterEach(async () => {
  await helper.unload();
});

/** the next whole second at least `ahead` ms from now */
const second = (ahead: number) => Math.ceil((Date.now() + ahead) / 1000) * 1000;

describe('four overlapping occurrences, max_channels 2, priorities 3, 2, 1, 0', () => {
  it('records the two highest; the two lowest lose before their start, are never tried, and end skipped; the best loser starts once the highest is cancelled', {
    timeout: 90_000,
  }, async () => {
    const file = path.join(dir, 'studio.ics');
    const a = second(6000);
    const event = (p: number) => ({ uid: `p${p}@test`, start: a, end: a + 30_000, title: `Show P${p}` });
    const write = (ps: number[]) =>
      writeFileSync(file, vcalendar(...ps.flatMap((p) => vevent({ ...event(p), stamp: Date.now() }))));
    write([3, 2, 1, 0]);
    const scheduleId = `prio-${process.pid}-${Date.now()}`;
    // the lowest first in the document: the priority decides, not the order
    const windows = [0, 1, 2, 3]
      .map(
        (p) => `  - id: p${p}
    ical: ${JSON.stringify(file)}
    match: { title: "^Show P${p}$" }
    on_cancel: stop
    timezone: UTC
    priority: ${p}`,
      )
      .join('\n');
    const seen = await loadScheduleChain(sim, { yaml: `max_channels: 2\nwindows:\n${windows}\n`, scheduleId });
    const starts: Array<ChainMsg & { at: number }> = [];
    helper.getNode('cc').on('input', (m: unknown) => starts.push({ ...(m as ChainMsg), at: Date.now() }));
    const key = (p: number) => `${scheduleId}:p${p}:p${p}@test`;
    const creates = (p: number) =>
      sim.requests().filter((r) => r.route === 'create_channel' && r.idempotency_key?.startsWith(key(p)));

    // the two losers are reported, once each, before their start
    await waitFor(() => seen.ctl.filter((m) => m.topic === 'conflict').length === 2, 5000);
    expect(Date.now()).toBeLessThan(a);
    const reports = seen.ctl.filter((m) => m.topic === 'conflict').map((m) => m.payload as Record<string, unknown>);
    expect(reports.map((r) => [r.slot, r.lost_to, r.limit])).toEqual([
      [key(1), ['Show P3', 'Show P2'], 2],
      [key(0), ['Show P3', 'Show P2'], 2],
    ]);
    expect(reports[0].reason).toBe('conflict: lost to Show P3, Show P2');

    // the sidebar's timeline marks the losers before they start
    const marked = (
      runtimeFeed()
        .snapshot()
        .schedules.find((x) => x.nodeId === 'sched')?.slots ?? []
    )
      .filter((v) => v.conflict)
      .map((v) => v.title)
      .sort();
    expect(marked).toEqual(['Show P0', 'Show P1']);

    // at the start: the two highest are created, the two lowest never sent
    await waitFor(() => creates(3).length > 0 && creates(2).length > 0, a + 5000 - Date.now());
    await new Promise((r) => setTimeout(r, 2000));
    expect(creates(1)).toEqual([]);
    expect(creates(0)).toEqual([]);
    expect(starts.map((m) => (m.window as { slotKey: string }).slotKey).sort()).toEqual([key(2), key(3)]);
    // the as-run record of each loser: skipped, with what it lost to
    const records = () =>
      foldRecords(
        transitions.filter((t) => t.slot.startsWith(scheduleId)).map((event) => ({ kind: 'slot' as const, event })),
      );
    const losers = records().filter((r) => r.slot === key(1) || r.slot === key(0));
    expect(losers.map((r) => [r.slot, r.outcome, r.reason])).toEqual([
      [key(0), 'skipped', 'conflict: lost to Show P3, Show P2'],
      [key(1), 'skipped', 'conflict: lost to Show P3, Show P2'],
    ]);

    // the highest's event is cancelled mid-way: its recording stops, the best loser (priority 1) starts at once
    await waitFor(() => Date.now() >= a + 8000, 15_000);
    write([2, 1, 0]);
    const cancelledAt = Date.now();
    helper.getNode('sched').receive({ topic: 'reload' });
    await waitFor(() => creates(1).length > 0, 5000);
    // the cancellation reaches the schedule with the calendar's next read (parsed off the main thread); from
    // there the highest's recording is stopped and the best loser asked for at once
    const stopped = transitions.find((t) => t.slot === key(3) && t.to === 'stopping');
    const requested = Date.parse(creates(1)[0].time);
    console.log(
      `the best loser's channel was requested ${requested - cancelledAt} ms after the calendar changed, ` +
        `${requested - Date.parse(String(stopped?.at))} ms after the highest's recording ended`,
    );
    expect(requested - Date.parse(String(stopped?.at))).toBeLessThan(2000);
    expect(requested - cancelledAt).toBeLessThan(5000);
    const freed = starts.find((m) => (m.window as { slotKey: string }).slotKey === key(1));
    expect(freed?.freed).toBe(true);
    const told = seen.ctl.find((m) => m.topic === 'channel_freed')?.payload as Record<string, unknown> | undefined;
    expect(told).toMatchObject({ slot: key(1), reason: 'started after a channel freed up' });
    expect(told?.late_s as number).toBeGreaterThanOrEqual(7);
    // the lowest still waits: two channels are in use
    await new Promise((r) => setTimeout(r, 1500));
    expect(creates(0)).toEqual([]);
    // its record goes on from the skip: late, started after a channel freed up
    await waitFor(() => records().find((r) => r.slot === key(1))?.phase === 'recording', 10_000);
    const revived = records().find((r) => r.slot === key(1));
    expect(revived?.outcome).toBe('open');
    expect(revived?.lateBy).toBeGreaterThanOrEqual(7);
    expect(revived?.discrepancy).toMatch(/started after a channel freed up/);
  });
});

import diagnostics_channel from 'node:diagnostics_channel';
import { createRequire } from 'node:module';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type Simulator, startSimulator } from '../../../lib/simulator';
import { helper, waitFor } from '../../support/node-red-runtime';
import { loadScheduleChain } from '../../support/schedule-chain';

/**
 * A deployed schedule tells its windows on `media-spaces:schedule-windows` as it starts, each window with
 * or without a next start (a disabled one has none, so no `planned` transition names it): the metrics
 * export each window's series at 0 from then on, before the first scrape and before any slot.
 */

const require = createRequire(import.meta.url);

let sim: Simulator;
const told: { schedule: { id: string; name: string }; windows: string[] }[] = [];
const listen = (m: unknown) => told.push(m as (typeof told)[number]);
beforeAll(async () => {
  helper.init(require.resolve('node-red'));
  sim = await startSimulator();
  diagnostics_channel.subscribe('media-spaces:schedule-windows', listen);
});
afterAll(async () => {
  diagnostics_channel.unsubscribe('media-spaces:schedule-windows', listen);
  await sim.close();
});
afterEach(async () => {
  await helper.unload();
});

describe('the schedule tells its windows', () => {
  it('every window, planned or not, once at the start', async () => {
    await loadScheduleChain(sim, {
      yaml: `windows:
  - id: w
    cron: "0 0 1 1 *"
    timezone: UTC
    duration: 6s
  - id: off
    enabled: false
    cron: "0 0 1 1 *"
    timezone: UTC
    duration: 6s
`,
      scheduleId: `windows-told-${process.pid}`,
    });
    await waitFor(() => told.length > 0, 10_000);
    await new Promise((r) => setTimeout(r, 300));
    expect(told).toEqual([{ schedule: { id: 'sched', name: '' }, windows: ['w', 'off'] }]);
  });
});

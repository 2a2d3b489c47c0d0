import { createRequire } from 'node:module';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type Simulator, startSimulator } from '../../../lib/simulator';
import { runtimeFeed } from '../../support/activity-feed';
import { helper, waitFor } from '../../support/node-red-runtime';
import { type ChainMsg, loadScheduleChain } from '../../support/schedule-chain';

/**
 * A start an operator asks for (a trigger message, the sidebar's "Start now") takes the path a timed start
 * takes: when create channel gives it up, the slot is reported missed once with the service's reason, a Catch
 * node hears of it once (from create channel), and no follow-up goes out, whatever the wiring.
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
  sim.clearFaults();
  await helper.unload();
});

// a window that never opens by itself in the test's time: only the manual start records
const YAML = `windows:
  - id: w
    name: Refused
    cron: "0 0 1 1 *"
    timezone: UTC
    duration: 4s
    followup:
      workflow_id: 00000000-0000-4000-8000-000000000001
`;

const slotOf = (m: ChainMsg) => (m.window as { slotKey?: string } | undefined)?.slotKey;

const WIRINGS = [
  { label: 'server set, channel routed back', server: undefined, routeBack: true },
  { label: 'no server, channel not routed back', server: '', routeBack: false },
] as const;

const STARTS = [
  { label: 'a trigger message', start: () => helper.getNode('sched').receive({ topic: 'trigger', window_id: 'w' }) },
  { label: "the sidebar's Start now", start: () => runtimeFeed().act('sched', 'start', 'w') },
] as const;

describe('a manual start refused for its whole window', () => {
  for (const wiring of WIRINGS) {
    for (const how of STARTS) {
      it(`${how.label}, ${wiring.label}: one Catch error, one missed report with the 503, no follow-up`, async () => {
        sim.addFault({ route: 'create_channel', kind: 'status', status: 503 });
        const seen = await loadScheduleChain(sim, {
          yaml: YAML,
          scheduleId: `manual-${process.pid}-${Date.now()}`,
          server: wiring.server,
          routeBack: wiring.routeBack,
          timeout: 1000,
        });
        await how.start();
        await waitFor(() => seen.ctl.some((m) => m.topic === 'missed'), 15_000);
        // the end of the slot has come and gone: give a late second report or follow-up the time to show
        await new Promise((r) => setTimeout(r, 1500));
        const missed = seen.ctl.filter((m) => m.topic === 'missed');
        expect(missed).toHaveLength(1);
        const slot = String(missed[0].payload?.slot);
        expect(missed[0].payload).toMatchObject({ why: 'start_failed', window: { slotKey: slot, reason: 'manual' } });
        expect(String(missed[0].payload?.reason)).toMatch(/503/);
        expect(seen.end).toEqual([]);
        const errors = seen.caught.filter((m) => slotOf(m) === slot);
        expect(errors).toHaveLength(1);
        expect(seen.caught).toHaveLength(1);
        expect((errors[0].error as { source?: { id?: string } }).source?.id).toBe('cc');
        expect(sim.counts().channels).toBe(0);
      }, 30_000);
    }
  }
});

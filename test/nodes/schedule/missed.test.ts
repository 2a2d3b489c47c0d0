import { createRequire } from 'node:module';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type Simulator, startSimulator } from '../../../lib/simulator';
import { helper, waitFor } from '../../support/node-red-runtime';
import { loadScheduleChain } from '../../support/schedule-chain';

/**
 * Windows that record nothing, in a real runtime with the demo's wiring and
 * real HTTP: no follow-up goes out for them; output 3 reports each once, and
 * a failure (not an operator's pause) reaches the Catch node once.
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

const YAML = `windows:
  - id: w
    name: Refused
    cron: "*/5 * * * * *"
    timezone: UTC
    duration: 3s
`;

const load = (scheduleId: string, server?: string) =>
  loadScheduleChain(sim, { yaml: YAML, scheduleId, server, timeout: 1000 });

describe('a window that records nothing', () => {
  it('every creation refused: no follow-up, one missed report with the attempts, one Catch error', async () => {
    sim.addFault({ route: 'create_channel', kind: 'status', status: 503 });
    const seen = await load(`refused-${process.pid}-${Date.now()}`);
    await waitFor(() => seen.ctl.some((m) => m.topic === 'missed'), 15_000);
    const [missed] = seen.ctl.filter((m) => m.topic === 'missed');
    const slot = String(missed.payload?.slot);
    // the end of that slot came and went: nothing on output 2 for it
    await new Promise((r) => setTimeout(r, 500));
    expect(seen.end.filter((m) => (m.window as { slotKey?: string }).slotKey === slot)).toEqual([]);
    expect(missed.payload).toMatchObject({ why: 'start_failed', window: { slotKey: slot, name: 'Refused' } });
    expect(missed.payload?.attempts).toBeGreaterThan(1);
    // the reason names the status once: the service's words already said "HTTP 503"
    // ("injected fault: HTTP 503 (HTTP 503 from Create channel)" before)
    const reason = String(missed.payload?.reason);
    expect(reason.match(/503/g)).toHaveLength(1);
    expect(reason).toContain('injected fault: HTTP 503 (from Create channel)');
    // one error for the slot, from the create-channel node that gave its start up
    const errors = seen.caught.filter((m) => (m.window as { slotKey?: string } | undefined)?.slotKey === slot);
    expect(errors).toHaveLength(1);
    expect((errors[0].error as { source?: { id?: string } }).source?.id).toBe('cc');
    expect(String((errors[0].error as { message?: string }).message)).toMatch(/the start of .* was given up/);
    expect(sim.counts().channels).toBe(0);
  }, 30_000);

  it('paused: each start is reported skipped on output 3 at its instant, with no error and no request', async () => {
    const scheduleId = `paused-${process.pid}-${Date.now()}`;
    const seen = await load(scheduleId);
    helper.getNode('sched').receive({ topic: 'pause' });
    // its topic is the slot's outcome: an operator's choice is skipped, not missed
    await waitFor(() => seen.ctl.some((m) => m.topic === 'skipped'), 10_000);
    expect(seen.ctl.filter((m) => m.topic === 'missed')).toEqual([]);
    const [missed] = seen.ctl.filter((m) => m.topic === 'skipped');
    expect(missed.payload).toMatchObject({ why: 'paused', reason: 'the schedule was paused at the start' });
    expect(seen.caught).toEqual([]);
    expect(seen.end).toEqual([]);
    expect(sim.requests().filter((r) => r.idempotency_key?.startsWith(scheduleId))).toEqual([]);
    // the paused state is the node's (kept across redeploys of the same node id): the next case starts unpaused
    helper.getNode('sched').receive({ topic: 'resume' });
    await waitFor(() =>
      seen.ctl.some((m) => m.topic === 'resume' || (m.payload as { paused?: boolean })?.paused === false),
    );
  }, 30_000);

  it('a schedule whose server node is gone still ends a recorded window: the follow-up says nothing was stopped', async () => {
    const seen = await load(`no-server-${process.pid}-${Date.now()}`, 'missing-config');
    await waitFor(() => seen.end.length > 0 || seen.caught.length > 0, 15_000);
    expect(seen.caught).toEqual([]);
    const [end] = seen.end;
    expect((end.channel as { id?: string }).id).toMatch(/^[0-9a-f-]{36}$/);
    expect(String(end.note)).toMatch(/^the recording was not stopped: /);
  }, 30_000);
});

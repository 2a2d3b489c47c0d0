import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Simulator, startSimulator } from '../../lib/simulator';
import {
  freePort,
  type NodeRedProcess,
  prepareUserDir,
  ROOT,
  sleep,
  startNodeRed,
  waitFor,
} from './support-restart/node-red';
import { DURATION_MS, PERIOD_MS, recordingFlow, windowPlans } from './support-restart/recording-flow';
import { adminJson, journalChannel, type SlotFigures, slotFigures, slotKeyOf } from './support-restart/slot-facts';

/**
 * A restart across a window's end still stops the recording once. One window
 * (6 s every 10 s) in a real Node-RED process (file context, the schedule's
 * journal) against a simulator in this process; Node-RED is killed with
 * SIGKILL at a chosen point of one slot's life and started again on the same
 * user directory:
 * (a) mid-window, once the channel came back into the schedule; back before the end;
 * (b) a moment before the end; back after it (the end is due at once on start);
 * (c) right after the stop was answered, while the channel is FINISHING_RECORDING
 *     and the follow-up waits for it to finish;
 * (d) while the stop is held by the service (a slow answer), before its answer came.
 * From the simulator's request log, per slot: the stops carried out on its channel
 * (2xx, not replayed) are exactly one, a stop sent again after the restart carries the
 * same Idempotency-Key (so it is answered as a replay), the channel is INACTIVE,
 * and there is exactly one follow-up job, referencing the channel.
 */

const WINDOW = 'w0';
const windows = windowPlans(1);

interface Row {
  case: string;
  slot: string;
  channel: string;
  stateAtKill: string;
  submitsAtKill: number;
  /** Node-RED's flows started again this long before (+) or after (-) the window's end */
  restartBeforeEndMs: number;
  stopsCarriedOut: number;
  stopsReplayed: number;
  stops409: number;
  stopsTotal: number;
  stopKeys: string;
  submitsCarriedOut: number;
  submitsReplayed: number;
  followupJobs: number;
  finalState: string;
}

describe('restart across a window end: the recording is stopped once and followed up once', () => {
  const userDir = join(ROOT, 'test', '.tmp', 'reliability-restart', `userdir-stop-${process.pid}`);
  let sim: Simulator;
  let space: string;
  let port: number;
  let red: NodeRedProcess;
  const processes: NodeRedProcess[] = [];
  const rows: Row[] = [];

  const startRed = async () => {
    red = await startNodeRed({ userDir, port });
    processes.push(red);
    return red;
  };
  const figures = (start: number) => slotFigures(sim, space, WINDOW, start);
  /** The first slot starting at or after `from`. */
  const nextStart = (from: number) => Math.ceil(from / PERIOD_MS) * PERIOD_MS;
  /** A slot that starts once the running process has settled. */
  const upcomingSlot = () => nextStart(Math.max(Date.now() + 1500, red.startedAt + 2500));
  const channelInJournal = (start: number) =>
    waitFor(() => journalChannel(userDir, slotKeyOf(WINDOW, start)), 'the channel routed back into the schedule', {
      timeoutMs: 15_000,
    });
  const stopAnswered = (channelId: string) =>
    waitFor(
      () =>
        sim
          .requests()
          .some(
            (r) =>
              r.route === 'stop_channel' &&
              r.path.includes(channelId) &&
              (r.status ?? 0) >= 200 &&
              (r.status ?? 0) < 300,
          ),
      'the stop of the channel answered',
      { timeoutMs: 20_000, intervalMs: 5 },
    );
  /**
   * Until the slot is over (its follow-up job exists) and the next slot is too:
   * a stop or follow-up sent twice for this slot would have gone by then.
   */
  const settle = async (start: number) => {
    await waitFor(async () => (await figures(start)).jobs.length > 0, 'the follow-up job', { timeoutMs: 30_000 });
    await waitFor(async () => (await figures(start + PERIOD_MS)).jobs.length > 0, 'the next slot over', {
      timeoutMs: 30_000,
    });
    return figures(start);
  };
  const record = (name: string, start: number, atKill: SlotFigures, after: SlotFigures, restartedAt: number) => {
    rows.push({
      case: name,
      slot: after.slotKey,
      channel: after.channel?.id ?? '-',
      stateAtKill: atKill.channel?.state ?? '-',
      submitsAtKill: atKill.submits.total,
      restartBeforeEndMs: start + DURATION_MS - restartedAt,
      stopsCarriedOut: after.stops.carriedOut,
      stopsReplayed: after.stops.replayed,
      stops409: after.stops.conflicts,
      stopsTotal: after.stops.total,
      stopKeys: after.stops.keys.join(' '),
      submitsCarriedOut: after.submits.carriedOut,
      submitsReplayed: after.submits.replayed,
      followupJobs: after.jobs.length,
      finalState: after.channel?.state ?? '-',
    });
  };
  /** Once stopped and once followed up, on the slot's own channel; every stop under the slot's stop key. */
  const expectStoppedOnce = (after: SlotFigures, channelId: string) => {
    expect(after.channel?.id).toBe(channelId);
    expect(after.stops.carriedOut).toBe(1);
    for (const key of after.stops.keys) expect(key.startsWith(`${after.slotKey}:stop`)).toBe(true);
    expect(after.channel?.state).toBe('INACTIVE');
    expect(after.jobs).toHaveLength(1);
    expect(after.submits.carriedOut).toBe(1);
    expect(JSON.stringify(after.jobs[0].input?.media_nicknames)).toContain(channelId);
  };

  beforeAll(async () => {
    sim = await startSimulator({ port: 0, host: '127.0.0.1' });
    const info = sim.info();
    space = info.spaces[0].space_id;
    port = await freePort();
    const { flows, credentials } = recordingFlow(info, windows);
    mkdirSync(join(ROOT, 'test', '.tmp', 'reliability-restart'), { recursive: true });
    prepareUserDir({ dir: userDir, flows, credentials });
    await startRed();
  }, 120_000);

  afterAll(async () => {
    for (const p of processes) await p.kill();
    await sim?.close();
    if (rows.length === 0) return;
    const dir = join(ROOT, 'test', '.tmp', 'reliability');
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'restart-stop.json'), `${JSON.stringify(rows, null, 2)}\n`);
    writeFileSync(
      join(dir, 'restart-stop-nodered.log'),
      processes.flatMap((p, i) => p.lines().map((l) => `[p${i} ${new Date(l.at).toISOString()}] ${l.text}`)).join('\n'),
    );
    process.stdout.write('restart across a window end, per slot:\n');
    console.table(rows);
  });

  it('(a) SIGKILL mid-window after the channel came back, restarted before the end: one stop, one follow-up', async () => {
    const start = upcomingSlot();
    const channelId = await channelInJournal(start);
    await waitFor(async () => (await figures(start)).channel?.state === 'RECORDING', 'the channel recording', {
      timeoutMs: 15_000,
    });
    await red.kill();
    const atKill = await figures(start);
    await startRed();
    const after = await settle(start);
    record('a: mid-window', start, atKill, after, red.startedAt);
    expect(atKill.stops.total).toBe(0);
    expect(atKill.channel?.state).toBe('RECORDING');
    expectStoppedOnce(after, channelId);
    // nothing stopped before the restart, so nothing to replay
    expect(after.stops.replayed).toBe(0);
  });

  it('(b) SIGKILL a moment before the end, restarted after it: the end still stops the recording once', async () => {
    const start = upcomingSlot();
    const end = start + DURATION_MS;
    const channelId = await channelInJournal(start);
    await sleep(Math.max(0, end - 500 - Date.now()));
    await red.kill();
    const atKill = await figures(start);
    await sleep(Math.max(0, end + 1500 - Date.now()));
    await startRed();
    const after = await settle(start);
    record('b: down across the end', start, atKill, after, red.startedAt);
    expect(atKill.stops.total).toBe(0);
    expect(atKill.channel?.state).toBe('RECORDING');
    expectStoppedOnce(after, channelId);
    expect(after.stops.replayed).toBe(0);
  });

  it('(c) SIGKILL right after the stop, while the recording finishes: no second stop, one follow-up', async () => {
    const start = upcomingSlot();
    const channelId = await channelInJournal(start);
    await stopAnswered(channelId);
    await red.kill();
    const atKill = await figures(start);
    await startRed();
    const after = await settle(start);
    record('c: killed after the stop', start, atKill, after, red.startedAt);
    expect(atKill.stops.carriedOut).toBe(1);
    // the follow-up waits for the finished recording: none before the kill
    expect(atKill.channel?.state).toBe('FINISHING_RECORDING');
    expect(atKill.submits.total).toBe(0);
    expectStoppedOnce(after, channelId);
    // the end was taken up again after the restart, and its stop answered from the first one
    expect(after.stops.replayed).toBeGreaterThanOrEqual(1);
  });

  it('(d) SIGKILL while the service holds the stop: after the restart the same stop is answered, not repeated', async () => {
    const start = upcomingSlot();
    const end = start + DURATION_MS;
    const channelId = await channelInJournal(start);
    await sleep(Math.max(0, end - 300 - Date.now()));
    sim.addFault({ route: 'stop_channel', kind: 'latency', latency_ms: 2500, count: 1 });
    // the fault is used up when the stop arrives; the service answers it 2.5 s later
    await waitFor(
      async () => (await adminJson<{ faults: unknown[] }>(sim, '/faults')).faults.length === 0,
      'the slow stop received',
      {
        timeoutMs: 15_000,
        intervalMs: 5,
      },
    );
    await sleep(300);
    await red.kill();
    const atKill = await figures(start);
    await startRed();
    const after = await settle(start);
    record('d: killed during a slow stop', start, atKill, after, red.startedAt);
    expect(atKill.stops.carriedOut).toBe(0);
    expectStoppedOnce(after, channelId);
  });

  it('reported no error to the flow and logged none', () => {
    const lines = processes.flatMap((p) => p.lines().map((l) => l.text));
    expect(lines.filter((l) => l.includes('REL-ERROR') || /\[error\]/.test(l))).toEqual([]);
    expect(rows).toHaveLength(4);
  });
});

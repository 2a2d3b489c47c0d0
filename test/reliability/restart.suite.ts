import { mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FaultSpecInput, type Simulator, startSimulator } from '../../lib/simulator';
import {
  freePort,
  httpJson,
  type NodeRedProcess,
  prepareUserDir,
  ROOT,
  sleep,
  startNodeRed,
  waitFor,
} from './support-restart/node-red';
import {
  channelName,
  DURATION_MS,
  jobName,
  PERIOD_MS,
  recordingFlow,
  SCHEDULE_NODE,
  type WindowPlan,
  windowPlans,
} from './support-restart/recording-flow';
import { countRequests, slotKeyOf } from './support-restart/slot-facts';

/**
 * Restart reliability: a real Node-RED process (red.js, file-backed context
 * flushed every second) runs the recording automation (schedule -> create
 * channel -> back into the schedule; end: the recording stopped and finished,
 * then submit job -> watch) against a simulator in this process, and is killed
 * with SIGKILL at chosen moments: just after a follow-up was submitted (being
 * followed), just after a window opens (its channel being created), while a
 * follow-up submission is in flight, while a channel creation is in flight,
 * and just after a window's stop (its recording finishing); then restarted on
 * the same user directory. At the end the schedule is paused and the slots in
 * progress run to their follow-ups before Node-RED stops. Afterwards, from the
 * simulator's own records:
 * - every slot (one occurrence of a window) that was open while Node-RED ran
 *   has exactly one channel, stopped exactly once (one stop carried out; a stop
 *   sent again after a restart carries the same key and is answered as a
 *   replay) and INACTIVE, and exactly one follow-up job, referencing that
 *   slot's channel;
 * - every follow-up job was read by the follow-job node at or after the moment it
 *   reached its terminal state, and reported by the flow (REL-DONE line);
 * - no error reached the flow's Catch node.
 *
 * RELIABILITY_SIZE=long: 5 windows and 12 kill/restart cycles with varied
 * offsets and downtimes (seeded; RELIABILITY_SEED).
 */

const LONG = process.env.RELIABILITY_SIZE === 'long';
const SEED = Number(process.env.RELIABILITY_SEED ?? 20251122) >>> 0;
const WINDOW_COUNT = LONG ? 5 : 3;
/** Node-RED runs this long after the last restart, then the schedule is paused and Node-RED stops once it is idle. */
const FINAL_RUN_MS = 22_000;
/** Job duration of the follow-up workflow in the demo fixture, plus its 500 ms start delay. */
const JOB_MS = 6_500;
/** How much earlier than the job's end a read may be stamped and still see the end (see check()). */
const READ_STAMP_SLACK_MS = 10;

type EventKind = 'start' | 'end';

interface KillPlan {
  name: string;
  /**
   * Kill this long after the next start or end of the window, or, for
   * `followup`, after the follow-up of the window's next slot was answered
   * (with a fault: after a follow-up submission reached the service and is held).
   */
  event: EventKind | 'followup';
  window: number;
  offsetMs: number;
  /** Wait this long after the kill before starting Node-RED again. */
  downtimeMs: number;
  /** A fault injected just before the event (for one request). */
  fault?: FaultSpecInput;
}

const SUBMIT_SLOW: FaultSpecInput = { route: 'submit', kind: 'latency', latency_ms: 2500, count: 1 };
const CHANNEL_SLOW: FaultSpecInput = { route: 'create_channel', kind: 'latency', latency_ms: 2500, count: 1 };

function ciPlans(): KillPlan[] {
  return [
    { name: 'follow-up just submitted and followed', event: 'followup', window: 0, offsetMs: 300, downtimeMs: 0 },
    // down for longer than the rest of the window: its end falls while Node-RED is down
    { name: 'window just opened, down past its end', event: 'start', window: 1, offsetMs: 150, downtimeMs: 6500 },
    {
      name: 'follow-up submission in flight',
      event: 'followup',
      window: 2,
      offsetMs: 800,
      downtimeMs: 0,
      fault: SUBMIT_SLOW,
    },
    {
      name: 'channel creation in flight',
      event: 'start',
      window: 0,
      offsetMs: 1500,
      downtimeMs: 0,
      fault: CHANNEL_SLOW,
    },
    // the stop answered, the recording finishing, its follow-up not sent yet
    { name: 'stopped, recording finishing', event: 'end', window: 1, offsetMs: 700, downtimeMs: 0 },
  ];
}

function longPlans(): KillPlan[] {
  let state = SEED || 1;
  const random = () => {
    // xorshift32
    state ^= state << 13;
    state ^= state >>> 17;
    state ^= state << 5;
    return (state >>> 0) / 2 ** 32;
  };
  const between = (a: number, b: number) => Math.round(a + random() * (b - a));
  const plans: KillPlan[] = [];
  for (let i = 0; i < 12; i++) {
    const window = i % WINDOW_COUNT;
    const downtimeMs = between(0, 8000);
    switch (i % 4) {
      case 0:
        plans.push({ name: 'after an end', event: 'end', window, offsetMs: between(20, 2500), downtimeMs });
        break;
      case 1:
        plans.push({ name: 'after a start', event: 'start', window, offsetMs: between(20, 1500), downtimeMs });
        break;
      case 2:
        plans.push({
          name: 'submission in flight',
          event: 'followup',
          window,
          offsetMs: between(100, 2200),
          downtimeMs,
          fault: SUBMIT_SLOW,
        });
        break;
      default:
        plans.push({
          name: 'channel creation in flight',
          event: 'start',
          window,
          offsetMs: between(1100, 2300),
          downtimeMs,
          fault: CHANNEL_SLOW,
        });
    }
  }
  return plans;
}

/** The next instant >= from at which the window starts (or ends). */
function nextEvent(w: WindowPlan, kind: EventKind, from: number): number {
  const shift = w.offsetS * 1000 + (kind === 'end' ? DURATION_MS : 0);
  const base = Math.ceil((from - shift) / PERIOD_MS) * PERIOD_MS;
  return base + shift;
}

interface Channel {
  id: string;
  name: string;
  state: string;
  created_at: string;
}
interface Job {
  id: string;
  name: string;
  state: string;
  created_at: string;
  workflow_id: string;
  input: { media_nicknames?: Array<{ identifier?: string; uris?: unknown; uri?: unknown }> } | null;
}

interface Cycle {
  plan: KillPlan;
  /** "Started flows" of the process killed in this cycle. */
  upAt: number;
  startupMs: number;
  killAt: number;
  target: number;
  /** Slots open and jobs not yet terminal at the kill, as the simulator saw them. */
  openSlots: number;
  jobsInProgress: number;
}

describe('restart: SIGKILL during open windows and followed jobs', () => {
  const plans = LONG ? longPlans() : ciPlans();
  const windows = windowPlans(WINDOW_COUNT);
  const userDir = join(ROOT, 'test', '.tmp', 'reliability-restart', `userdir-${process.pid}`);
  let sim: Simulator;
  let space: string;
  let port: number;
  const processes: NodeRedProcess[] = [];
  const cycles: Cycle[] = [];
  let stopAt = 0;
  let pausedAt = 0;
  let finalUpAt = 0;
  let testStart = 0;
  let channels: Channel[] = [];
  let jobs: Job[] = [];

  const admin = async <T>(path: string): Promise<T> => {
    const res = await fetch(`${sim.adminUrl}${path}`);
    if (!res.ok) throw new Error(`admin ${path}: HTTP ${res.status}`);
    return (await res.json()) as T;
  };

  const start = async (): Promise<NodeRedProcess> => {
    const red = await startNodeRed({ userDir, port });
    processes.push(red);
    return red;
  };

  beforeAll(async () => {
    sim = await startSimulator({ port: 0, host: '127.0.0.1' });
    const info = sim.info();
    space = info.spaces[0].space_id;
    port = await freePort();
    const { flows, credentials } = recordingFlow(info, windows);
    mkdirSync(join(ROOT, 'test', '.tmp', 'reliability-restart'), { recursive: true });
    prepareUserDir({ dir: userDir, flows, credentials });
  }, 60_000);

  afterAll(async () => {
    for (const p of processes) await p.kill();
    await sim?.close();
  });

  it(
    `keeps every window's follow-up exactly once across ${plans.length} kill/restart cycles`,
    async () => {
      testStart = Date.now();
      let red = await start();
      for (const plan of plans) {
        const w = windows[plan.window];
        // let the restarted runtime load its state and settle for a moment first
        const settled = Math.max(Date.now() + 1200, red.startedAt + 2500);
        let target: number;
        if (plan.event === 'followup') {
          target = await followupSent(w, nextEvent(w, 'end', settled), plan.fault);
        } else {
          target = nextEvent(w, plan.event, settled);
          if (plan.fault) {
            await sleep(Math.max(0, target - 300 - Date.now()));
            sim.addFault(plan.fault);
          }
        }
        await sleep(Math.max(0, target + plan.offsetMs - Date.now()));
        const killAt = Date.now();
        await red.kill();
        const jobsNow = await admin<{ jobs: Job[] }>(`/spaces/${space}/jobs`);
        cycles.push({
          plan,
          upAt: red.startedAt,
          startupMs: red.startedAt - red.spawnedAt,
          killAt,
          target,
          // the latest start of each window is the first one at or after killAt - PERIOD_MS
          openSlots: windows.filter((x) => killAt - nextEvent(x, 'start', killAt - PERIOD_MS) < DURATION_MS).length,
          jobsInProgress: jobsNow.jobs.filter((j) => !['succeeded', 'failed', 'stopped'].includes(j.state)).length,
        });
        await sleep(plan.downtimeMs);
        sim.clearFaults();
        red = await start();
      }
      finalUpAt = red.startedAt;
      await sleep(Math.max(0, finalUpAt + FINAL_RUN_MS - Date.now()));
      // no new windows: those in progress are stopped and followed up, and their jobs followed to the end
      const paused = await httpJson(`${red.url}/media-spaces/schedules/${SCHEDULE_NODE}/pause`, { method: 'POST' });
      expect(paused.status, paused.text).toBe(200);
      pausedAt = Date.now();
      await untilIdle();
      stopAt = Date.now();
      await red.stop();

      channels = (await admin<{ channels: Channel[] }>(`/spaces/${space}/channels`)).channels;
      jobs = (await admin<{ jobs: Job[] }>(`/spaces/${space}/jobs`)).jobs;
      report();
      check();
    },
    (LONG ? 20 : 6) * 60_000,
  );

  /**
   * The moment the follow-up of the slot ending at `end` was answered; with a
   * fault, the moment a follow-up submission reached the service and is held.
   */
  async function followupSent(w: WindowPlan, end: number, fault: FaultSpecInput | undefined): Promise<number> {
    if (fault) {
      // the follow-up goes once the stopped recording has finished, a couple of seconds after the end
      await sleep(Math.max(0, end - Date.now()));
      sim.addFault(fault);
      await waitFor(
        async () => (await admin<{ faults: unknown[] }>('/faults')).faults.length === 0,
        'a held submission',
        {
          timeoutMs: 20_000,
          intervalMs: 5,
        },
      );
      return Date.now();
    }
    const key = `${slotKeyOf(w.id, end - DURATION_MS)}:end`;
    await waitFor(
      () => sim.requests().some((r) => r.route === 'submit' && r.idempotency_key === key && r.status === 200),
      `the follow-up ${key}`,
      { timeoutMs: 20_000, intervalMs: 5 },
    );
    return Date.now();
  }

  /**
   * Until every channel is INACTIVE with its follow-up job, and every job is
   * terminal and reported by the flow (or a minute passed: check() says what is missing).
   */
  async function untilIdle(): Promise<void> {
    const deadline = Date.now() + 60_000;
    while (Date.now() < deadline) {
      const chs = (await admin<{ channels: Channel[] }>(`/spaces/${space}/channels`)).channels;
      const js = (await admin<{ jobs: Job[] }>(`/spaces/${space}/jobs`)).jobs;
      const done = allLines().filter((l) => l.text.includes('REL-DONE'));
      const idle =
        chs.every((c) => c.state === 'INACTIVE' && js.some((j) => j.name === c.name.replace(/^rel /, 'followup '))) &&
        js.every(
          (j) => ['succeeded', 'failed', 'stopped'].includes(j.state) && done.some((l) => l.text.includes(j.id)),
        );
      if (idle) return;
      await sleep(250);
    }
  }

  /** Up intervals of Node-RED: [flows started, killed or paused]. */
  function upIntervals(): Array<[number, number]> {
    const out: Array<[number, number]> = cycles.map((c) => [c.upAt, c.killAt]);
    out.push([finalUpAt, pausedAt]);
    return out;
  }

  interface SlotFacts {
    windowId: string;
    start: number;
    end: number;
    /** Open while Node-RED ran: must have a channel. */
    required: boolean;
    /** Has a channel: must have been stopped once and followed up once. */
    mustHaveJob: boolean;
    channels: Channel[];
    jobs: Job[];
    /** The stop requests for the slot's channel, as the service answered them. */
    stops: ReturnType<typeof countRequests>;
  }

  function slots(): SlotFacts[] {
    const up = upIntervals();
    const requests = sim.requests();
    const out: SlotFacts[] = [];
    for (const w of windows) {
      for (let s = nextEvent(w, 'start', testStart - PERIOD_MS); s < stopAt; s += PERIOD_MS) {
        const end = s + DURATION_MS;
        const epoch = Math.floor(s / 1000);
        const slotChannels = channels.filter((c) => c.name === channelName(w.id, epoch));
        // a start emitted while running (300 ms to reach the service), or caught up at a start-up with 1 s left
        const required = up.some(([u0, u1]) => (s >= u0 && s < u1 - 300) || (s < u0 && end > u0 + 1000));
        out.push({
          windowId: w.id,
          start: s,
          end,
          required,
          mustHaveJob: false,
          channels: slotChannels,
          jobs: jobs.filter((j) => j.name === jobName(w.id, epoch)),
          stops: countRequests(
            requests.filter(
              (r) => r.route === 'stop_channel' && slotChannels.some((c) => r.path.includes(`/channels/${c.id}/`)),
            ),
          ),
        });
      }
    }
    // the schedule was paused and the slots in progress ran to their follow-ups before the final stop
    for (const slot of out) slot.mustHaveJob = slot.channels.length > 0;
    return out;
  }

  function allLines() {
    return processes.flatMap((p, i) => p.lines().map((l) => ({ ...l, process: i })));
  }

  function report() {
    const all = slots();
    const lines = allLines();
    const done = lines.filter((l) => l.text.includes('REL-DONE'));
    const figures = {
      size: LONG ? 'long' : 'ci',
      windows: WINDOW_COUNT,
      cycles: cycles.map((c) => ({
        plan: c.plan.name,
        window: windows[c.plan.window].id,
        event: c.plan.event,
        offsetMs: c.plan.offsetMs,
        killedAfterUpMs: c.killAt - c.upAt,
        downtimeMs: c.plan.downtimeMs,
        startupMs: c.startupMs,
        openSlotsAtKill: c.openSlots,
        jobsInProgressAtKill: c.jobsInProgress,
      })),
      restarts: processes.length - 1,
      startupMs: processes.map((p) => p.startedAt - p.spawnedAt),
      slots: all.length,
      requiredSlots: all.filter((s) => s.required).length,
      slotsWithChannel: all.filter((s) => s.channels.length > 0).length,
      channels: channels.length,
      jobs: jobs.length,
      slotsNeedingJob: all.filter((s) => s.mustHaveJob).length,
      // per slot with a channel: stops the service carried out, stops answered from an earlier one (same key)
      stopsCarriedOut: all.reduce((n, s) => n + s.stops.carriedOut, 0),
      stopsReplayed: all.reduce((n, s) => n + s.stops.replayed, 0),
      stops409: all.reduce((n, s) => n + s.stops.conflicts, 0),
      slotsStoppedOnce: all.filter((s) => s.channels.length > 0 && s.stops.carriedOut === 1).length,
      channelsInactive: channels.filter((c) => c.state === 'INACTIVE').length,
      doneLines: done.length,
      // a job reported twice: finished, reported, and killed before the follow-job node's context was flushed
      jobsReportedTwice: jobs.filter((j) => done.filter((l) => l.text.includes(j.id)).length > 1).length,
      watchResumes: lines.filter((l) => /resuming \d+ followed job/.test(l.text)).length,
      errorLines: lines.filter((l) => l.text.includes('REL-ERROR')).length,
      replayedRequests: sim.requests().filter((r) => r.replayed).length,
      runMs: stopAt - testStart,
    };
    const dir = join(ROOT, 'test', '.tmp', 'reliability');
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'restart.json'), `${JSON.stringify(figures, null, 2)}\n`);
    writeFileSync(
      join(dir, 'restart-nodered.log'),
      lines.map((l) => `[p${l.process} ${new Date(l.at).toISOString()}] ${l.text}`).join('\n'),
    );
    process.stdout.write(`restart figures: ${JSON.stringify(figures, null, 2)}\n`);
  }

  function check() {
    const all = slots();
    const problems: string[] = [];
    const name = (s: SlotFacts) => `${s.windowId}@${new Date(s.start).toISOString()}`;
    for (const s of all) {
      if (s.channels.length > 1) problems.push(`${name(s)}: ${s.channels.length} channels`);
      if (s.required && s.channels.length === 0) problems.push(`${name(s)}: open while running, but no channel`);
      if (s.jobs.length > 1) problems.push(`${name(s)}: ${s.jobs.length} follow-up jobs`);
      if (s.mustHaveJob && s.jobs.length === 0) problems.push(`${name(s)}: ended, but no follow-up job`);
      if (s.jobs.length > 0 && s.channels.length === 0) problems.push(`${name(s)}: a follow-up job without a channel`);
      if (s.channels.length > 0 && s.stops.carriedOut !== 1) {
        problems.push(`${name(s)}: ${s.stops.carriedOut} stops carried out (${s.stops.replayed} replayed)`);
      }
      const stopKey = `${slotKeyOf(s.windowId, s.start)}:stop`;
      for (const key of s.stops.keys) if (!key.startsWith(stopKey)) problems.push(`${name(s)}: a stop keyed ${key}`);
      for (const c of s.channels)
        if (c.state !== 'INACTIVE') problems.push(`${name(s)}: channel ${c.id} is ${c.state}`);
      for (const j of s.jobs) {
        const recording = JSON.stringify(j.input?.media_nicknames ?? []);
        if (s.channels[0] && !recording.includes(s.channels[0].id)) {
          problems.push(`${name(s)}: job ${j.id} does not reference channel ${s.channels[0].id}: ${recording}`);
        }
      }
    }
    const known = new Set(all.flatMap((s) => s.jobs.map((j) => j.id)));
    for (const j of jobs) if (!known.has(j.id)) problems.push(`job ${j.id} "${j.name}" belongs to no slot`);

    // every follow-up job that had time to finish was read in its terminal state and reported by the flow
    const requests = sim.requests();
    const lines = allLines();
    for (const j of jobs) {
      const terminalAt = Date.parse(j.created_at) + JOB_MS;
      if (terminalAt > stopAt - 1500) continue;
      const polls = requests.filter((r) => r.route === 'job' && r.path.endsWith(`/jobs/${j.id}`) && r.status === 200);
      // the log stamps a read when it arrives, in whole ms; the state is worked out a moment later, so a
      // read stamped a millisecond or two before the end can already answer succeeded
      if (!polls.some((r) => Date.parse(r.time) >= terminalAt - READ_STAMP_SLACK_MS)) {
        problems.push(`job ${j.id} "${j.name}": never read after it finished (${polls.length} reads)`);
      }
      if (!lines.some((l) => l.text.includes('REL-DONE') && l.text.includes(j.id))) {
        problems.push(`job ${j.id} "${j.name}": the flow never reported it finished`);
      }
    }
    for (const l of lines.filter((x) => x.text.includes('REL-ERROR'))) problems.push(`flow error: ${l.text}`);
    for (const l of lines.filter((x) => /\[(error)\]/.test(x.text))) problems.push(`Node-RED error: ${l.text}`);

    // the schedule state is kept in the file context store
    const contextDir = join(userDir, 'context');
    expect(readdirSync(contextDir).length).toBeGreaterThan(0);
    expect(problems, problems.join('\n')).toEqual([]);
    expect(all.filter((s) => s.mustHaveJob).length).toBeGreaterThanOrEqual(plans.length * 2);
    // ends were delivered again after restarts, and the service answered them with the job it had
    expect(requests.filter((r) => r.route === 'submit' && r.replayed).length).toBeGreaterThan(0);
  }
});

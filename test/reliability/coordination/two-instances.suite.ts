import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect } from 'vitest';
import { type Simulator, startSimulator } from '../../../lib/simulator';
import { CHANNEL_FINISHING_MS } from '../../../lib/simulator/channels';
import { freePort, RedisServer } from '../../support/redis-server';
import { type FlowNode, httpJson, ROOT, sleep } from '../support-restart/node-red';
import { SCHEDULE_NODE, windowPlans } from '../support-restart/recording-flow';
import {
  Cluster,
  type CoordinationOptions,
  DURATION_MS,
  errorLines,
  followupJobs,
  lanes,
  nextSlot,
  PERIOD_MS,
  pidOf,
  redisReader,
  reportsPerJob,
  type SlotCount,
  slotCounts,
} from './cluster';

/**
 * Two real Node-RED processes (separate user directories, the same flow and
 * credentials) run the recording flow (schedule -> create channel -> back into
 * the schedule; end -> submit job -> follow job) against one simulator, the
 * schedule and follow-job nodes sharing a coordination node on a real
 * redis-server. Windows every 10 s, 6 s long, lease 2 s. From the simulator's
 * request log: channel and follow-up POSTs per slot; from both processes'
 * logs: how often each job's terminal state was reported (output 1 of the
 * follow-job node, a REL-DONE line).
 */

const WINDOWS = windowPlans(2);
/** The follow-up job's run time in the simulator fixture, plus its start delay and a poll. */
const JOB_MS = 7_000;
/**
 * How long after a window's end its follow-up is sent: the stop, FINISHING_RECORDING until the
 * channel is INACTIVE, and the read that sees it (once a second), with a second to spare.
 */
const FOLLOW_UP_MS = CHANNEL_FINISHING_MS + 2_000;

interface CaseFigures {
  case: string;
  slots: number;
  slotsWithChannel: number;
  channelPosts: number;
  channelReplays: number;
  channelsCreated: number;
  submitsCreated: number;
  submitPosts: number;
  submitReplays: number;
  duplicateChannels: number;
  duplicateSubmits: number;
  jobs: number;
  jobsReportedOnce: number;
  jobsReportedTwice: number;
  jobsUnreported: number;
  [extra: string]: unknown;
}

const figures: CaseFigures[] = [];

/**
 * Cases run in lanes, two at a time unless COORDINATION_LANES says otherwise: most of a case is waiting for slots to come and go, and each
 * case has its own simulator, key prefix and, where it stalls or restarts Redis, its own Redis. A case that
 * restarts both instances and counts on their start-up time (slots caught up within a 6 s window) runs alone,
 * every lane taken, so no other case's start-up slows it down.
 */
const { lane, alone } = lanes();

describe('coordination: two Node-RED instances share one Redis', () => {
  let redis: RedisServer;
  const clusters: Cluster[] = [];
  const sims: Simulator[] = [];
  /** Redis servers of single cases, disposed at the end */
  const stopped: RedisServer[] = [];

  /**
   * A case's two instances, on a simulator of its own: cases run two at a time (lanes), and each counts the
   * requests of its own slots (the slot keys of every case are the same).
   */
  const cluster = async (name: string, coordination: Partial<CoordinationOptions> = {}) => {
    const sim = await startSimulator({ port: 0, host: '127.0.0.1' });
    sims.push(sim);
    const c = new Cluster(name, sim, WINDOWS, {
      url: redis.url,
      keyPrefix: `${name}:`,
      whenUnreachable: 'skip',
      ...coordination,
    });
    clusters.push(c);
    return c;
  };

  /** Slot figures over [from, to), and the job report counts of jobs that had time to finish before `to`. */
  async function measure(name: string, c: Cluster, from: number, to: number, extra: Record<string, unknown> = {}) {
    // a slot that ended just before `to` gets its follow-up FOLLOW_UP_MS after its end: count once it had that time
    await sleep(to + FOLLOW_UP_MS - Date.now());
    const slots = slotCounts(c.sim, WINDOWS, from, to);
    const jobs = (await followupJobs(c.sim, from)).filter((j) => Date.parse(j.created_at) + JOB_MS < to - 1500);
    const reports = reportsPerJob(c);
    const f: CaseFigures = {
      case: name,
      slots: slots.length,
      slotsWithChannel: slots.filter((s) => s.channelPosts > 0).length,
      channelPosts: sum(slots, (s) => s.channelPosts),
      channelReplays: sum(slots, (s) => s.channelReplays),
      submitPosts: sum(slots, (s) => s.submitPosts),
      submitReplays: sum(slots, (s) => s.submitReplays),
      channelsCreated: sum(slots, (s) => s.channelCreated),
      submitsCreated: sum(slots, (s) => s.submitCreated),
      duplicateChannels: slots.filter((s) => s.channelCreated > 1).length,
      duplicateSubmits: slots.filter((s) => s.submitCreated > 1).length,
      jobs: jobs.length,
      jobsReportedOnce: jobs.filter((j) => reports.get(j.id) === 1).length,
      jobsReportedTwice: jobs.filter((j) => (reports.get(j.id) ?? 0) > 1).length,
      jobsUnreported: jobs.filter((j) => !reports.has(j.id)).length,
      ...extra,
    };
    figures.push(f);
    c.saveLog();
    process.stdout.write(`coordination ${name}: ${JSON.stringify(f)}\n`);
    return { slots, jobs, reports, figures: f };
  }

  /** The next start of window `w` at or after `from`. */
  const nextStart = (w: number, from: number) => nextSlot(WINDOWS[w], from);

  beforeAll(async () => {
    redis = await RedisServer.start({ persistence: 'aof' });
    mkdirSync(join(ROOT, 'test', '.tmp', 'reliability'), { recursive: true });
  }, 60_000);

  afterAll(async () => {
    for (const c of clusters) await c.killAll();
    for (const sim of sims) await sim.close();
    for (const own of stopped) await own.dispose();
    await redis?.dispose();
    writeFileSync(
      join(ROOT, 'test', '.tmp', 'reliability', 'coordination.json'),
      `${JSON.stringify(figures, null, 2)}\n`,
    );
  });

  lane('both running: one channel POST and one follow-up POST per slot, each job reported once', async () => {
    const c = await cluster('both');
    await c.startAll();
    const from = Math.max(...c.processes.map((p) => p.startedAt)) + 500;
    await sleep(30_000);
    const to = Date.now();
    // which instance led each start, from the done records in Redis
    const reader = await redisReader(redis.url, 'both:');
    const startsLedBy: Record<string, number> = {};
    for (const s of slotCounts(c.sim, WINDOWS, from, to)) {
      const instance = (await reader.startOf(s.windowId, s.start))?.instance ?? 'none';
      const who = `p${c.processes.findIndex((p) => p.pid === pidOf(instance))}`;
      startsLedBy[who] = (startsLedBy[who] ?? 0) + 1;
    }
    await reader.close();
    const { slots, figures: f } = await measure('both running', c, from, to, { startsLedBy });
    await c.stopAll();
    // every slot that opened and closed while both ran, with time for its follow-up
    const complete = slots.filter((s) => s.start + DURATION_MS + 1500 < to);
    expect(complete.length).toBeGreaterThanOrEqual(4);
    for (const s of complete) expect([s.key, s.channelPosts, s.submitPosts]).toEqual([s.key, 1, 1]);
    expect(f.duplicateChannels + f.duplicateSubmits).toBe(0);
    expect(f.jobs).toBeGreaterThanOrEqual(3);
    expect(f.jobsReportedOnce).toBe(f.jobs);
    expect(errorLines(c, from)).toEqual([]);
  });

  lane(
    'SIGKILL of the instance that led a start, mid-window: the survivor ends it and reports every job once',
    async () => {
      const c = await cluster('kill-leader');
      await c.startAll();
      const reader = await redisReader(redis.url, 'kill-leader:');
      try {
        const from = Math.max(...c.processes.map((p) => p.startedAt)) + 500;
        const slot = nextStart(0, Date.now() + 2500);
        await sleep(slot + 1500 - Date.now());
        const leader = (await reader.startOf('w0', slot))?.instance;
        expect(leader, 'the start of w0 was done by someone').toBeDefined();
        const victim = c.current.findIndex((p) => p?.pid === pidOf(leader ?? ''));
        expect(victim).toBeGreaterThanOrEqual(0);
        await c.current[victim]?.kill();
        const killAt = Date.now();
        await sleep(24_000);
        const to = Date.now();
        const survivor = c.current[1 - victim];
        const { slots, figures: f } = await measure('SIGKILL of the start leader mid-window', c, from, to, {
          killedAfterStartMs: killAt - slot,
          takeOvers: survivor?.lines().filter((l) => /taking over job/.test(l.text)).length,
        });
        await c.stopAll();
        const killed = slots.find((s) => s.windowId === 'w0' && s.start === slot);
        expect(killed && [killed.channelPosts, killed.submitPosts]).toEqual([1, 1]);
        for (const s of slots.filter((x) => x.start + DURATION_MS + 1500 < to)) {
          expect([s.key, s.channelCreated, s.submitCreated]).toEqual([s.key, 1, 1]);
        }
        expect(f.jobsReportedTwice).toBe(0);
        expect(f.jobsUnreported).toBe(0);
        expect(errorLines(c, from)).toEqual([]);
      } finally {
        await reader.close();
      }
    },
  );

  lane('SIGKILL of the instance following a job: a survivor takes the job over and reports it once', async () => {
    const c = await cluster('kill-follower');
    await c.startAll();
    const reader = await redisReader(redis.url, 'kill-follower:');
    try {
      const from = Math.max(...c.processes.map((p) => p.startedAt)) + 500;
      // 1.5 s after an end of w0: its follow-up was submitted and is being followed (the job runs 6.5 s)
      const end = nextStart(0, Date.now() + 2500) + DURATION_MS;
      await sleep(end + 1500 - Date.now());
      const followed = await reader.jobs();
      expect(followed.length, 'a job is being followed').toBeGreaterThan(0);
      const owner = followed[0].owner;
      const victim = c.current.findIndex((p) => p?.pid === pidOf(owner));
      expect(victim).toBeGreaterThanOrEqual(0);
      await c.current[victim]?.kill();
      await sleep(16_000);
      const to = Date.now();
      const survivor = c.current[1 - victim];
      const takeOvers = survivor?.lines().filter((l) => /taking over job/.test(l.text)).length ?? 0;
      const { reports, figures: f } = await measure('SIGKILL of the job follower', c, from, to, {
        followedAtKill: followed.length,
        takeOvers,
      });
      await c.stopAll();
      expect(takeOvers).toBeGreaterThanOrEqual(1);
      for (const job of followed) expect([job.jobId, reports.get(job.jobId)]).toEqual([job.jobId, 1]);
      expect(f.jobsReportedTwice).toBe(0);
      expect(f.jobsUnreported).toBe(0);
      expect(f.duplicateChannels + f.duplicateSubmits).toBe(0);
      expect(errorLines(c, from)).toEqual([]);
    } finally {
      await reader.close();
    }
  });

  lane(
    'SIGKILL while the channel POST is in flight (slow service): one channel, the survivor takes the start over',
    async () => {
      const c = await cluster('kill-slow-post');
      await c.startAll();
      const reader = await redisReader(redis.url, 'kill-slow-post:');
      try {
        const from = Math.max(...c.processes.map((p) => p.startedAt)) + 500;
        const slot = nextStart(0, Date.now() + 2500);
        // the fault goes in 2 s early: no other channel is created between then and the slot
        // (w1 starts 5 s either side of it), and a late timer cannot make it miss the POST
        await sleep(slot - 2000 - Date.now());
        c.sim.addFault({ route: 'create_channel', kind: 'latency', latency_ms: 2500, count: 1 });
        await sleep(slot - Date.now());
        // the claim is live from the slot's timer until the held POST answers, 2.5 s later
        let holder = await reader.claimHolder('w0', slot, 'start');
        while (holder === undefined && Date.now() < slot + 2000) {
          await sleep(50);
          holder = await reader.claimHolder('w0', slot, 'start');
        }
        expect(holder, 'a claim is live while the POST is in flight').toBeDefined();
        const victim = c.current.findIndex((p) => p?.pid === pidOf(holder ?? ''));
        await c.current[victim]?.kill();
        await sleep(20_000);
        c.sim.clearFaults();
        const to = Date.now();
        const { slots } = await measure('SIGKILL during a slow channel POST', c, from, to);
        await c.stopAll();
        const space = c.sim.info().spaces[0].space_id;
        const channels = (
          (await (await fetch(`${c.sim.adminUrl}/spaces/${space}/channels`)).json()) as { channels: { name: string }[] }
        ).channels.filter((ch) => ch.name === `rel w0 ${Math.floor(slot / 1000)}`);
        const killed = slots.find((s) => s.windowId === 'w0' && s.start === slot);
        expect(channels.length).toBe(1);
        // the dead leader's POST and the survivor's (retried while the first was in flight), one idempotency key
        expect(killed?.channelCreated).toBe(1);
        expect(killed?.submitPosts).toBe(1);
        for (const s of slots)
          expect([s.key, s.channelCreated <= 1, s.submitCreated <= 1]).toEqual([s.key, true, true]);
        expect(errorLines(c, from)).toEqual([]);
      } finally {
        await reader.close();
      }
    },
  );

  alone(
    'both down across three slots, restarted together: each open missed slot caught up once, in order',
    async () => {
      const c = await cluster('both-down');
      await c.startAll();
      const from = Math.max(...c.processes.map((p) => p.startedAt)) + 500;
      await sleep(9_000);
      await c.killAll();
      const downAt = Date.now();
      // down across three slots of each window
      await sleep(3 * PERIOD_MS - 1_500);
      await c.startAll();
      const upAt = Math.min(...c.current.map((p) => p?.startedAt ?? Date.now()));
      await sleep(16_000);
      const to = Date.now();
      const { slots, figures: f } = await measure('both down across three slots, restarted together', c, from, to, {
        downMs: upAt - downAt,
      });
      await c.stopAll();
      for (const s of slots) expect([s.key, s.channelCreated <= 1, s.submitCreated <= 1]).toEqual([s.key, true, true]);
      // slots that opened while down and were still open at the restart: caught up once
      const caughtUp = slots.filter((s) => s.start > downAt && s.start < upAt && s.start + DURATION_MS > upAt + 1000);
      for (const s of caughtUp) expect([s.key, s.channelCreated]).toEqual([s.key, 1]);
      // those whose window closed while down: outside the catch-up horizon (the window), not started
      const missed = slots.filter((s) => s.start > downAt && s.start + DURATION_MS < upAt - 500);
      expect(missed.length).toBeGreaterThanOrEqual(4);
      for (const s of missed) expect([s.key, s.channelPosts]).toEqual([s.key, 0]);
      // slots started before the kill whose end passed while down: ended once after the restart
      const endedWhileDown = slots.filter(
        (s) => s.start < downAt && s.start + DURATION_MS > downAt && s.channelCreated,
      );
      for (const s of endedWhileDown) expect([s.key, s.submitCreated]).toEqual([s.key, 1]);
      expect(f.jobsReportedTwice).toBe(0);
      expect(errorLines(c, from)).toEqual([]);
    },
  );

  // alone: with another case's instances starting beside it, a job was once reported by both instances across
  // the restart (jobsReportedTwice 1); on an idle machine it holds, so the restart cases get the machine to themselves
  for (const persistence of ['aof', 'none'] as const) {
    alone(
      `Redis restarted ${persistence === 'aof' ? 'with' : 'without'} persistence between slots: no second channel or job`,
      async () => {
        const own = await RedisServer.start({ persistence });
        try {
          const c = await cluster(`redis-restart-${persistence}`, { url: own.url });
          await c.startAll();
          const from = Math.max(...c.processes.map((p) => p.startedAt)) + 500;
          // mid-window of w0 (started 2 s ago, its channel back): its end must still happen once
          await sleep(nextStart(0, Date.now() + 2000) + 2000 - Date.now());
          await own.restart({ persistence });
          const restartedAt = Date.now();
          await sleep(22_000);
          const to = Date.now();
          const { slots, figures: f } = await measure(`Redis restarted, persistence ${persistence}`, c, from, to, {
            restartedAt: new Date(restartedAt).toISOString(),
          });
          await c.stopAll();
          for (const s of slots) {
            expect([s.key, s.channelCreated <= 1, s.submitCreated <= 1]).toEqual([s.key, true, true]);
          }
          // every slot opened after Redis was back has its channel and, once ended, its follow-up
          for (const s of slots.filter((x) => x.start > restartedAt + 500 && x.start + DURATION_MS + 1500 < to)) {
            expect([s.key, s.channelCreated, s.submitCreated]).toEqual([s.key, 1, 1]);
          }
          expect(f.jobsReportedTwice).toBe(0);
          expect(f.jobsUnreported).toBe(0);
          expect(errorLines(c, from)).toEqual([]);
        } finally {
          await own.dispose();
        }
      },
    );
  }

  lane(
    'a schedule changed by a redeploy of one instance (w0 shortened there): still one channel and one follow-up per slot',
    async () => {
      const c = await cluster('redeploy');
      await c.startAll();
      const from = Math.max(...c.processes.map((p) => p.startedAt)) + 500;
      await sleep(6_000);
      const red = c.current[0];
      const got = await httpJson(`${red?.url}/flows`, { headers: { 'Node-RED-API-Version': 'v2' } });
      const { rev, flows } = got.json as { rev: string; flows: FlowNode[] };
      const schedule = flows.find((n) => n.id === SCHEDULE_NODE);
      if (!schedule || typeof schedule.yaml !== 'string') throw new Error('no schedule node in the deployed flow');
      // w0 ends after 4 s on this instance, after 6 s on the other: the same slots, different end instants
      schedule.yaml = schedule.yaml.replace(/(id: w0[\s\S]*?duration: )6s/, '$14s');
      const deployed = await httpJson(`${red?.url}/flows`, {
        method: 'POST',
        body: { rev, flows },
        headers: { 'Node-RED-API-Version': 'v2', 'Node-RED-Deployment-Type': 'nodes' },
      });
      expect(deployed.status).toBe(200);
      const redeployedAt = Date.now();
      await sleep(24_000);
      const to = Date.now();
      const { slots, figures: f } = await measure('schedule changed on one instance by a redeploy', c, from, to, {
        redeployedAt: new Date(redeployedAt).toISOString(),
      });
      await c.stopAll();
      for (const s of slots) expect([s.key, s.channelCreated <= 1, s.submitCreated <= 1]).toEqual([s.key, true, true]);
      for (const s of slots.filter((x) => x.start > redeployedAt + 500 && x.start + DURATION_MS + 1500 < to)) {
        expect([s.key, s.channelCreated, s.submitCreated]).toEqual([s.key, 1, 1]);
      }
      expect(f.jobsReportedTwice).toBe(0);
      expect(errorLines(c, from)).toEqual([]);
    },
  );

  for (const stall of [
    { across: 'end', from: DURATION_MS - 4_500, ms: 7_000 },
    // Redis back 3 s into the window: time enough for the start to complete within the 6 s window
    { across: 'start', from: -1_000, ms: 4_000 },
  ] as const) {
    lane(
      `Redis SIGSTOPped across a window's ${stall.across} for ${stall.ms / 1000} s: the slot's phases complete once, late but complete`,
      async () => {
        // a Redis of its own: the other case running meanwhile keeps its Redis
        const own = await RedisServer.start({ persistence: 'aof' });
        stopped.push(own);
        const c = await cluster(`stall-${stall.across}`, { url: own.url });
        await c.startAll();
        const upAt = Math.max(...c.processes.map((p) => p.startedAt)) + 500;
        const slot = nextStart(0, Date.now() + 4_000);
        await sleep(slot + stall.from - Date.now());
        own.pause();
        await sleep(stall.ms);
        own.resume();
        // the end, its stop and its follow-up, then the job
        await sleep(Math.max(0, slot + DURATION_MS + 14_000 - Date.now()));
        const to = Date.now();
        const { slots } = await measure(`Redis stalled across the ${stall.across}`, c, slot, slot + 1);
        await c.stopAll();
        const [s] = slots.filter((x) => x.windowId === WINDOWS[0].id && x.start === slot);
        expect([s.key, s.channelCreated, s.stopsAccepted, s.submitCreated]).toEqual([s.key, 1, 1, 1]);
        expect(c.lines().some((l) => /the (start|end) is tried again until/.test(l.text))).toBe(true);
        // a standby instance may give its claim up at the deadline; no instance may miss the slot
        expect(c.lines().some((l) => /nothing recorded|end skipped/.test(l.text))).toBe(false);
        expect(errorLines(c, upAt)).toEqual([]);
        expect(to).toBeGreaterThan(slot);
      },
    );
  }

  lane('Redis unreachable, policy skip: no slot is acted on, the log says why, nothing crashes', async () => {
    const url = `redis://127.0.0.1:${await freePort()}`;
    const c = await cluster('unreachable-skip', { url, whenUnreachable: 'skip' });
    await c.startAll();
    const from = Math.max(...c.processes.map((p) => p.startedAt)) + 500;
    await sleep(14_000);
    const to = Date.now();
    const { figures: f } = await measure('Redis unreachable, skip', c, from, to);
    const alive = c.current.every((p) => p && p.child.exitCode === null);
    await c.stopAll();
    expect(alive).toBe(true);
    expect(f.channelPosts).toBe(0);
    expect(f.submitPosts).toBe(0);
    expect(c.lines().some((l) => /refused the connection/.test(l.text) && /skipped/.test(l.text))).toBe(true);
  });

  lane(
    'Redis unreachable, policy alone: every instance acts, the idempotency key keeps one channel per slot',
    async () => {
      const url = `redis://127.0.0.1:${await freePort()}`;
      const c = await cluster('unreachable-alone', { url, whenUnreachable: 'alone' });
      await c.startAll();
      const from = Math.max(...c.processes.map((p) => p.startedAt)) + 500;
      await sleep(14_000);
      const to = Date.now();
      const { slots } = await measure('Redis unreachable, alone', c, from, to);
      await c.stopAll();
      const opened = slots.filter((s) => s.start + 1000 < to);
      expect(opened.length).toBeGreaterThanOrEqual(2);
      for (const s of opened) {
        // both POST, the service answers the second from its idempotency record
        expect([s.key, s.channelPosts, s.channelPosts - s.channelReplays]).toEqual([s.key, 2, 1]);
      }
      expect(c.lines().some((l) => /sent by this instance alone/.test(l.text))).toBe(true);
    },
  );

  lane('a wrong Redis password: a clear log line and status, slots skipped, nothing crashes', async () => {
    const locked = await RedisServer.start({ password: 'right-password' });
    try {
      const c = await cluster('wrong-password', { url: locked.url, password: 'wrong-password' });
      await c.startAll();
      const from = Math.max(...c.processes.map((p) => p.startedAt)) + 500;
      await sleep(12_000);
      const to = Date.now();
      const { figures: f } = await measure('wrong password', c, from, to);
      const alive = c.current.every((p) => p && p.child.exitCode === null);
      await c.stopAll();
      expect(alive).toBe(true);
      expect(f.channelPosts).toBe(0);
      expect(c.lines().some((l) => /Redis rejected the username or password/.test(l.text))).toBe(true);
    } finally {
      await locked.dispose();
    }
  });
});

function sum(slots: SlotCount[], f: (s: SlotCount) => number): number {
  return slots.reduce((n, s) => n + f(s), 0);
}

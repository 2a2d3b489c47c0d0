import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect } from 'vitest';
import { type Simulator, startSimulator } from '../../../lib/simulator';
import { RedisServer } from '../../support/redis-server';
import { serialGuide } from '../../support/serial-guide';
import { type FlowNode, httpJson, type NodeRedProcess, ROOT, sleep, waitFor } from '../support-restart/node-red';
import { channelName, jobName, SCHEDULE_NODE, type WindowPlan, windowPlans } from '../support-restart/recording-flow';
import {
  Cluster,
  channelsNamed,
  createdWithKey,
  DURATION_MS,
  errorLines,
  followupJobs,
  keyCount,
  LEASE_MS,
  lanes,
  logReports,
  maxChannels,
  nextSlot,
  pidOf,
  redisReader,
  reportsOf,
  reportsPerJob,
  SCHEDULE_ID,
  type SlotCount,
  slotCount,
  slotCounts,
  slotKeyOf,
} from './cluster';

/**
 * Three real Node-RED processes (separate user directories, the same flow and credentials) run the recording
 * flow (schedule -> create channel -> back into the schedule; end -> submit job -> follow job) against one
 * simulator over HTTP, the schedule and follow-job nodes sharing a coordination node on one real
 * redis-server. Output 3's reports are printed (REL-REPORT), as are the follow-job node's terminal reports
 * (REL-DONE). From the simulator's request log: the channel, stop and follow-up POSTs of every slot.
 * - Cron slots every 5 s (windows of 6 s): the instance recording a slot is SIGKILLed mid-window; the one
 *   recording the next slot is stopped with SIGTERM mid-window and started again on the same user directory;
 *   a later slot's channel fails mid-window and is replaced. Every slot is created, stopped and followed up
 *   once, the replacement made once, each job reported once.
 * - max_channels 2 and four overlapping windows of priorities 3, 2, 1, 0: every instance decides the same;
 *   the two highest record once each (the recorder of one SIGKILLed mid-window), the two lowest are never
 *   sent to the service, and each loser's `conflict` report is sent once over the three instances, a
 *   restart of the instance that sent them included.
 * - A guide episode aired twice, read `duplicates: once` with `rerecord`: the first airing's channel refused
 *   for its whole window, the next airing is booked once over the three instances; the instance that booked
 *   it is SIGKILLed and another restarted before that airing, which a survivor records once.
 */

const { lane } = lanes();
const WINDOWS = windowPlans(2);

interface Figures {
  case: string;
  [figure: string]: unknown;
}
const figures: Figures[] = [];

/** A duplicate comes from a claim taken over when its lease runs out: looked for over two leases and a second. */
const SETTLE_MS = 2 * LEASE_MS + 1000;

describe('coordination: three Node-RED instances share one Redis', () => {
  let redis: RedisServer;
  const clusters: Cluster[] = [];
  const sims: Simulator[] = [];

  /** A case's three instances, on a simulator of its own (the cases run side by side and share slot keys). */
  const cluster = async (name: string, windows: WindowPlan[], edit?: (flows: FlowNode[]) => void) => {
    const sim = await startSimulator({ port: 0, host: '127.0.0.1' });
    sims.push(sim);
    const c = new Cluster(
      name,
      sim,
      windows,
      { url: redis.url, keyPrefix: `${name}:`, whenUnreachable: 'skip' },
      3,
      undefined,
      edit,
    );
    clusters.push(c);
    return c;
  };

  /**
   * Waits until a slot's start is done in Redis and its channel records: the done record names the instance
   * that claimed the start and created the channel.
   */
  async function recording(c: Cluster, reader: Reader, windowId: string, start: number) {
    const deadline = start + DURATION_MS - 1000;
    const done = await waitFor(() => reader.startOf(windowId, start), `the start of ${slotKeyOf(windowId, start)}`, {
      timeoutMs: Math.max(5000, deadline - Date.now()),
      intervalMs: 100,
    });
    const name = channelName(windowId, start / 1000);
    await waitFor(
      async () => (await channelsNamed(c.sim, name)).some((ch) => ch.state === 'RECORDING'),
      `the channel "${name}" recording`,
      { timeoutMs: Math.max(5000, deadline - Date.now()), intervalMs: 100 },
    );
    expect(Date.now(), `${slotKeyOf(windowId, start)} still open`).toBeLessThan(deadline);
    return done;
  }

  /** Every slot followed up, and the follow-up's job reported by some instance (REL-DONE). */
  async function followedUp(c: Cluster, slots: { windowId: string; start: number }[], timeoutMs = 60_000) {
    const jobs = await waitFor(
      async () => {
        const all = await followupJobs(c.sim);
        const mine = slots.map((s) => all.find((j) => j.name === jobName(s.windowId, s.start / 1000)));
        return mine.every((j) => j !== undefined) ? (mine as NonNullable<(typeof mine)[number]>[]) : undefined;
      },
      'a follow-up job of every slot',
      { timeoutMs, intervalMs: 250 },
    );
    await waitFor(
      () => {
        const reports = reportsPerJob(c);
        return jobs.every((j) => reports.has(j.id));
      },
      'every follow-up job reported',
      { timeoutMs, intervalMs: 250 },
    );
    return jobs;
  }

  beforeAll(async () => {
    redis = await RedisServer.start({ persistence: 'aof' });
    mkdirSync(join(ROOT, 'test', '.tmp', 'reliability'), { recursive: true });
  }, 60_000);

  afterAll(async () => {
    for (const c of clusters) {
      c.saveLog();
      await c.killAll();
    }
    for (const sim of sims) await sim.close();
    await redis?.dispose();
    writeFileSync(
      join(ROOT, 'test', '.tmp', 'reliability', 'coordination-three.json'),
      `${JSON.stringify(figures, null, 2)}\n`,
    );
  });

  lane(
    'the recorder SIGKILLed mid-window, another stopped with SIGTERM mid-window and restarted, a recording replaced: every slot created, stopped and followed up once',
    async () => {
      const c = await cluster('three-kill-restart', WINDOWS, logReports);
      await c.startAll();
      const reader = await redisReader(redis.url, 'three-kill-restart:');
      try {
        const from = Math.max(...c.processes.map((p) => p.startedAt)) + 500;

        // a w0 slot: the instance that claimed its start and records it is SIGKILLed mid-window
        const killedSlot = nextSlot(WINDOWS[0], Date.now() + 2500);
        const killedLeader = await recording(c, reader, 'w0', killedSlot);
        const victim = c.indexOf(pidOf(killedLeader.instance));
        expect(victim, 'the recorder is one of the instances').toBeGreaterThanOrEqual(0);
        const victimPid = c.current[victim]?.pid;
        await c.current[victim]?.kill();
        const killedAt = Date.now();

        // the next slot (w1), recorded by one of the two left: that one is stopped (SIGTERM) mid-window and
        // started again on its user directory while the slots go on
        const restartedSlot = nextSlot(WINDOWS[1], killedSlot);
        const restartedLeader = await recording(c, reader, 'w1', restartedSlot);
        const restarted = c.indexOf(pidOf(restartedLeader.instance));
        expect(restarted, 'the recorder is one of the two left').toBeGreaterThanOrEqual(0);
        expect(restarted).not.toBe(victim);
        const stoppedAt = Date.now();
        const back = await c.restart(restarted);

        // a later slot, with all of them but the dead one running: its channel fails (ERROR) mid-window
        const failedSlot = Math.min(...WINDOWS.map((w) => nextSlot(w, Date.now() + 1500)));
        const failedWindow = WINDOWS.find((w) => nextSlot(w, failedSlot) === failedSlot)?.id ?? '';
        const failedKey = slotKeyOf(failedWindow, failedSlot);
        const [failing] = await waitFor(
          () => channelsNamed(c.sim, channelName(failedWindow, failedSlot / 1000)).then((l) => (l.length ? l : null)),
          `the channel of ${failedKey}`,
          { timeoutMs: Math.max(5000, failedSlot + 3000 - Date.now()), intervalMs: 100 },
        );
        // as soon as it records (2 s after its creation)
        c.sim.addChannelFailure({ channel_id: failing.id, outcome: 'error', after_ms: 0 });
        await waitFor(() => createdWithKey(c.sim, 'create_channel', `${failedKey}:restart:1`) > 0, 'the replacement', {
          timeoutMs: Math.max(5000, failedSlot + DURATION_MS - Date.now()),
          intervalMs: 100,
        });

        // counted up to the slot after the failed one
        const to = failedSlot + 5001;
        const counted = slotCounts(c.sim, WINDOWS, from, to);
        const jobs = await followedUp(c, counted);
        await sleep(SETTLE_MS);

        const slots = slotCounts(c.sim, WINDOWS, from, to);
        const reports = reportsPerJob(c);
        const replacementStops = c.sim
          .requests()
          .filter(
            (r) =>
              r.route === 'stop_channel' &&
              r.idempotency_key?.startsWith(`${failedKey}:restart:1:stop`) &&
              r.status !== null &&
              r.status < 300 &&
              r.replayed !== true,
          ).length;
        const interrupted = reportsOf(c, 'interrupted');
        const killedEnd = await reader.doneOf('w0', killedSlot, 'end');
        const f: Figures = {
          case: 'kill, restart, replacement',
          slots: slots.length,
          killedAfterStartMs: killedAt - killedSlot,
          stoppedAfterStartMs: stoppedAt - restartedSlot,
          restartedInMs: back.startedAt - stoppedAt,
          failedSlot: failedKey,
          replacements: createdWithKey(c.sim, 'create_channel', `${failedKey}:restart:1`),
          replacementStops,
          interruptedReports: interrupted.length,
          perSlot: slots.map((s) => [s.key, s.channelCreated, s.stopsAccepted, s.submitCreated, s.channelPosts]),
          jobs: jobs.map((j) => [j.name, reports.get(j.id) ?? 0]),
        };
        figures.push(f);
        process.stdout.write(`coordination three instances: ${JSON.stringify(f)}\n`);
        const running = c.current.map((p) => p?.child.exitCode === null && p.child.signalCode === null);
        await c.stopAll();

        // the killed one stayed down, the restarted one and the third ran on
        expect(running.filter((r, i) => r !== (i !== victim))).toEqual([]);
        expect(slots.length).toBeGreaterThanOrEqual(4);
        // the failed slot's first channel too: the service answers a stop of a channel in ERROR with its state
        for (const s of slots) {
          expect([s.key, s.channelCreated, s.stopsAccepted, s.submitCreated]).toEqual([s.key, 1, 1, 1]);
        }
        // the killed recorder's slot: one channel (its own), stopped and followed up by a survivor, once
        const killed = slotCount(c.sim, 'w0', killedSlot);
        expect([killed.channelPosts, killed.stopsAccepted, killed.submitPosts]).toEqual([1, 1, 1]);
        expect(killedEnd && pidOf(killedEnd.instance)).not.toBe(victimPid);
        expect(killedEnd && pidOf(killedEnd.instance)).toBeGreaterThan(0);
        // the slot whose recorder was restarted: nothing sent twice across the restart
        const across = slotCount(c.sim, 'w1', restartedSlot);
        expect([across.channelCreated, across.stopsAccepted, across.submitCreated]).toEqual([1, 1, 1]);
        // the failed recording replaced once, over three instances; the replacement stopped once
        expect(createdWithKey(c.sim, 'create_channel', `${failedKey}:restart:1`)).toBe(1);
        expect(c.sim.requests().some((r) => r.idempotency_key === `${failedKey}:restart:2`)).toBe(false);
        expect(replacementStops).toBe(1);
        expect(interrupted.map((r) => r.payload.slot)).toEqual([failedKey]);
        // every follow-up job reported once, by one of the instances
        for (const j of jobs) expect([j.name, reports.get(j.id)]).toEqual([j.name, 1]);
        expect([...reports.values()].filter((n) => n > 1)).toEqual([]);
        // the interruption reached a Catch node once; nothing else went wrong
        const errors = errorLines(c, from);
        const caught = errors.filter((l) => /REL-ERROR/.test(l.text) && /interrupted/.test(l.text));
        expect(caught).toHaveLength(1);
        expect(errors.filter((l) => !caught.includes(l))).toEqual([]);
      } finally {
        await reader.close();
      }
    },
  );

  lane(
    'a guide episode missed at its first airing: booked once over the three instances, the booker SIGKILLed and another restarted before the next airing, which a survivor records once',
    async () => {
      const dir = join(ROOT, 'test', '.tmp', 'reliability-coordination', `three-rerecord-${process.pid}`);
      mkdirSync(dir, { recursive: true });
      const guide = join(dir, 'guide.xml');
      // no airing yet: the guide's times are written once the three are up, and each reloads it (the sidebar's
      // Reload feed), so that the case waits for no start-up margin
      writeFileSync(guide, serialGuide([]));
      const windows: WindowPlan[] = [
        {
          id: 'serial',
          offsetS: 0,
          source: [
            `    xmltv: ${JSON.stringify(guide)}`,
            '    match: { title: "^Serial$", duplicates: once }',
            '    timezone: UTC',
            '    rerecord: { within: 1h }',
          ],
        },
      ];
      const c = await cluster('three-rerecord', windows, logReports);
      await c.startAll();
      const upAt = Math.max(...c.processes.map((p) => p.startedAt));
      const at = Math.ceil((Date.now() + 9000) / 1000) * 1000;
      const again = at + 16_000;
      writeFileSync(guide, serialGuide([at, again]));
      for (const red of c.current) {
        // a reload that meets the feed's first read still in flight answers with that read: asked again
        const read = await waitFor(
          async () => {
            const r = await httpJson(`${red?.url}/media-spaces/schedules/${SCHEDULE_NODE}/windows/serial/reload`, {
              method: 'POST',
            });
            const result = (r.json as { result?: { ok?: boolean; occurrences?: number; error?: string } }).result;
            return result?.ok && result.occurrences === 1 ? result : undefined;
          },
          `instance ${red?.pid} to read the guide's two airings`,
          { timeoutMs: 10_000, intervalMs: 500 },
        );
        expect(read).toMatchObject({ ok: true, occurrences: 1 });
      }
      expect(Date.now(), 'the guide read everywhere before the first airing').toBeLessThan(at - 1000);
      const first = `${SCHEDULE_ID}:serial:one.test/0.4.0/1`;
      const second = `${first}/${new Date(again).toISOString().replace('.000Z', 'Z')}`;
      // the service refuses every channel through the first airing
      c.sim.addFault({ route: 'create_channel', kind: 'status', status: 503 });
      await waitFor(() => reportsOf(c, 'missed').some((r) => r.payload.slot === first), 'the first airing missed', {
        timeoutMs: at + DURATION_MS + 20_000 - Date.now(),
        intervalMs: 200,
      });
      c.sim.clearFaults();
      const booked = await waitFor(
        () => reportsOf(c, 'rerecord').find((r) => r.payload.slot === second),
        'the re-record booked',
        { timeoutMs: 10_000, intervalMs: 100 },
      );
      // the instance that booked it is SIGKILLed, another restarted (SIGTERM), before the next airing
      const booker = c.indexOf(c.processes[booked.process].pid);
      expect(booker).toBeGreaterThanOrEqual(0);
      await c.current[booker]?.kill();
      const other = [0, 1, 2].find((i) => i !== booker) as number;
      const back = await c.restart(other);
      const readyBefore = again - back.startedAt;

      await followedUp(c, [{ windowId: 'serial', start: again }]);
      await sleep(SETTLE_MS);
      const firstCount = keyCount(c.sim, first, 'serial', at);
      const secondCount = keyCount(c.sim, second, 'serial', again);
      const rerecords = reportsOf(c, 'rerecord');
      const f: Figures = {
        case: 're-record at the next airing',
        readBeforeFirstAiringMs: at - upAt,
        bookedAfterFirstEndMs: booked.at - (at + 6000),
        restartedUpBeforeSecondAiringMs: readyBefore,
        first: [firstCount.channelPosts, firstCount.channelCreated],
        second: [secondCount.channelCreated, secondCount.stopsAccepted, secondCount.submitCreated],
        rerecordReports: rerecords.map((r) => [r.payload.slot, `p${r.process}`]),
      };
      figures.push(f);
      process.stdout.write(`coordination three instances: ${JSON.stringify(f)}\n`);
      await c.stopAll();

      // the first airing: asked for, never created; told once as missed and booked once over the three
      expect(firstCount.channelPosts).toBeGreaterThan(0);
      expect(firstCount.channelCreated).toBe(0);
      expect(reportsOf(c, 'missed').filter((r) => r.payload.slot === first)).toHaveLength(1);
      expect(rerecords.map((r) => [r.payload.slot, r.payload.of])).toEqual([[second, first]]);
      // the next airing: recorded, stopped and followed up once, by a survivor
      expect([secondCount.channelCreated, secondCount.stopsAccepted, secondCount.submitCreated]).toEqual([1, 1, 1]);
      // nothing went wrong but the refused start of the first airing
      expect(errorLines(c).filter((l) => !l.text.includes(first) || l.text.includes(second))).toEqual([]);
    },
  );

  // declared after the guide case, so that it starts once a lane is free and not in the start-up of every
  // instance of the suite (and of the file running beside it): its windows are set 35 s ahead before its instances
  // start, and a start-up burst of ten Node-RED processes once took 30 s of them
  lane(
    'max_channels 2, four overlapping windows of priorities 3, 2, 1, 0: the two highest recorded once, the two lowest never sent, each conflict reported once over the three instances',
    async () => {
      // once-a-year crons at `at`: the lowest start first, the document lists them lowest first; all overlap
      const at = Math.ceil((Date.now() + 35_000) / 1000) * 1000;
      const plan = [
        { id: 'p0', priority: 0, from: 0, to: 7 },
        { id: 'p1', priority: 1, from: 1, to: 8 },
        { id: 'p2', priority: 2, from: 2, to: 9 },
        { id: 'p3', priority: 3, from: 2, to: 9 },
      ];
      const startOf = (id: string) => at + (plan.find((p) => p.id === id)?.from ?? 0) * 1000;
      const windows: WindowPlan[] = plan.map((p) => ({
        id: p.id,
        offsetS: 0,
        cron: yearly(at + p.from * 1000),
        durationS: p.to - p.from,
        priority: p.priority,
      }));
      const key = (id: string) => slotKeyOf(id, startOf(id));
      const c = await cluster('three-conflicts', windows, (flows) => {
        maxChannels(2)(flows);
        logReports(flows);
      });
      await c.startAll();
      const reader = await redisReader(redis.url, 'three-conflicts:');
      try {
        const upAt = Math.max(...c.processes.map((p) => p.startedAt));
        // every instance decides the same before the start: its timeline marks the two lowest
        for (const red of c.current) await marksLosers(red, ['p0', 'p1']);
        const reported = await waitFor(
          () => {
            const r = reportsOf(c, 'conflict');
            return r.length >= 2 ? r : undefined;
          },
          'the conflict reports',
          { timeoutMs: 20_000, intervalMs: 100 },
        );
        // the instance that sent a report is stopped (SIGTERM) and started again: it decides again, from its journal
        const reporter = c.indexOf(c.processes[reported[0].process].pid);
        expect(reporter).toBeGreaterThanOrEqual(0);
        const back = await c.restart(reporter);
        await marksLosers(back, ['p0', 'p1']);

        // the highest's recorder is SIGKILLed mid-window: a survivor stops and follows it up
        const top = await recording(c, reader, 'p3', startOf('p3'));
        const victim = c.indexOf(pidOf(top.instance));
        expect(victim).toBeGreaterThanOrEqual(0);
        await c.current[victim]?.kill();
        const killedAt = Date.now();

        const winners = ['p3', 'p2'].map((id) => ({ windowId: id, start: startOf(id) }));
        const jobs = await followedUp(c, winners);
        await sleep(SETTLE_MS);

        const count = (id: string): SlotCount => slotCount(c.sim, id, startOf(id));
        const conflicts = reportsOf(c, 'conflict');
        const reportsByJob = reportsPerJob(c);
        const f: Figures = {
          case: 'conflicts over max_channels',
          upBeforeStartMs: at - upAt,
          restartedUpBeforeStartMs: at - back.startedAt,
          killedAfterStartMs: killedAt - startOf('p3'),
          perSlot: plan.map((p) => {
            const s = count(p.id);
            return [s.key, s.channelPosts, s.channelCreated, s.stopsAccepted, s.submitPosts, s.submitCreated];
          }),
          conflictReports: conflicts.map((r) => [
            r.payload.slot,
            `p${r.process}`,
            r.at - startOf(String(r.payload.window_id)),
          ]),
          jobs: jobs.map((j) => [j.name, reportsByJob.get(j.id) ?? 0]),
        };
        figures.push(f);
        process.stdout.write(`coordination three instances: ${JSON.stringify(f)}\n`);
        await c.stopAll();

        // the two highest: one channel each, stopped once, followed up once, the job reported once
        for (const id of ['p3', 'p2']) {
          const s = count(id);
          expect([id, s.channelCreated, s.stopsAccepted, s.submitCreated]).toEqual([id, 1, 1, 1]);
        }
        for (const j of jobs) expect([j.name, reportsByJob.get(j.id)]).toEqual([j.name, 1]);
        // the two lowest: never sent to the service
        for (const id of ['p1', 'p0']) {
          const s = count(id);
          expect([id, s.channelPosts, s.stopPosts, s.submitPosts]).toEqual([id, 0, 0, 0]);
        }
        expect(
          c.sim
            .requests()
            .filter((r) => r.idempotency_key?.startsWith(key('p1')) || r.idempotency_key?.startsWith(key('p0'))),
        ).toEqual([]);
        // each loser reported once over the three instances (the restart included), before its start
        expect(conflicts.map((r) => r.payload.slot).sort()).toEqual([key('p0'), key('p1')]);
        for (const r of conflicts) {
          expect(r.payload).toMatchObject({ lost_to_slots: [key('p3'), key('p2')], limit: 2 });
          expect(r.at).toBeLessThan(startOf(String(r.payload.window_id)));
        }
        // no loser got a channel that freed up: the winners ran to their ends
        expect(reportsOf(c, 'channel_freed')).toEqual([]);
        expect(errorLines(c)).toEqual([]);
      } finally {
        await reader.close();
      }
    },
  );
});

type Reader = Awaited<ReturnType<typeof redisReader>>;

/** A 6-field cron that fires once a year, at this instant (UTC, whole seconds). */
function yearly(ms: number): string {
  const d = new Date(ms);
  return `${d.getUTCSeconds()} ${d.getUTCMinutes()} ${d.getUTCHours()} ${d.getUTCDate()} ${d.getUTCMonth() + 1} *`;
}

/** Waits until an instance's sidebar timeline (the activity route) marks exactly these windows' starts as losing. */
async function marksLosers(red: NodeRedProcess | undefined, windowIds: string[]): Promise<void> {
  if (!red) throw new Error('the instance is not running');
  await waitFor(
    async () => {
      const got = await httpJson(`${red.url}/media-spaces/activity?part=schedules`);
      const { schedules } = got.json as { schedules: { planned: { window: string; conflicts?: number[] }[] }[] };
      const marked = schedules.flatMap((s) => s.planned.filter((r) => r.conflicts?.length).map((r) => r.window));
      return JSON.stringify(marked.sort()) === JSON.stringify([...windowIds].sort());
    },
    `instance ${red.pid} to mark ${windowIds.join(', ')} as losing`,
    { timeoutMs: 20_000, intervalMs: 200 },
  );
}

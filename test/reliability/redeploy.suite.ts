import * as http from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClient } from '../../lib/client';
import { type Simulator, startSimulator } from '../../lib/simulator';
import { CHANNEL_RECORDING_AFTER_MS } from '../../lib/simulator/channels';
import type { RequestLog } from '../../lib/simulator/request-log';
import { runtimeFeed } from '../support/activity-feed';
import { CONFIG_ID, configNode, credentials, DEMO, helper, initRuntime } from '../support/node-red-runtime';
import type { Msg } from './support/outcome-tracker';
import { ProcessWatch } from './support/process-watch';
import { type ResourceCounts, ResourceProbe } from './support/resource-probe';
import { print, table, writeResults } from './support/results';
import { EVERY_NODE, RUNTIME_HOOKS as hooks, onTab } from './support/runtime-nodes';
import { SIZE_NAME, sized } from './support/suite-size';

/**
 * Redeploy: REDEPLOYS deploys of one flow, alternating full and
 * modified-nodes deploys (helper.setFlows(flow, 'full' | 'nodes'); the
 * modified nodes get a new name each time), while
 * - requests are in flight: the simulator answers every request after 200 ms,
 *   and before each deploy the test sends messages into list workflows,
 *   submit job, create channel and delete event;
 * - polls are running: every submitted job goes on to a follow-job node that
 *   follows it (jobs never finish: the simulator's clock stands still), so
 *   the followed set grows deploy after deploy and is handed over each time;
 * - a schedule is running with windows open: a window starts every 2 s and
 *   lasts 5 s; its starts go to create channel and back (the channel is
 *   remembered), its ends refresh the channel through the config node.
 *
 * Asserted, against a baseline taken after a warm-up deploy and removal:
 * - active handles (process._getActiveHandles()): exactly the baseline;
 * - sockets (handles, and to the simulator's port): exactly the baseline;
 * - timers (live Timeout resources by async_hooks, ref'd or not, the test
 *   runner's own excluded): exactly the baseline;
 * - heap after global.gc(): within +10 MB of the baseline;
 * - removing the schedule node stops it: no start message and no
 *   schedule-driven request (create channel, get channel) for 2.5 cron periods
 *   after; removing every node stops all polling: no request at all;
 * - no slot started twice across the redeploys; no unhandled rejection,
 *   uncaught exception or listener-leak warning.
 *
 * Figures: printed and written to test/.tmp/reliability/redeploy.json.
 * Size: 100 redeploys (CI), 500 with RELIABILITY_SIZE=long.
 */

const REDEPLOYS = sized(100, 500);
/** Deploys before the baseline is taken. */
const WARM_UP_DEPLOYS = 6;
const LATENCY_MS = 200;
const HEAP_TOLERANCE_MB = 10;
const CRON_PERIOD_MS = 2_000;
const TAB = 'rd';

const SCHEDULE_YAML = `schedule_id: redeploy
windows:
  - id: every-2s
    name: Redeploy window
    cron: "*/2 * * * * *"
    timezone: UTC
    duration: 5s
    channel:
      name: "Redeploy {{slot.time}}"
    followup:
      workflow_id: ${DEMO.workflows.transcode}
      job_name: "After {{window.name}}"
`;

interface Options {
  /** Deploy number: names the modified nodes, so a 'nodes' deploy restarts them. */
  variant: number;
  schedule?: boolean;
}

function flow(sim: Simulator, { variant, schedule = true }: Options): Record<string, unknown>[] {
  const at = onTab(TAB);
  const ops = [
    'op-list',
    'op-submit',
    'op-channel',
    'op-channel2',
    'op-delete',
    'w-job',
    ...(schedule ? ['sched'] : []),
  ];
  return [
    { id: TAB, type: 'tab', label: 'redeploy' },
    configNode(sim, { timeout: 5_000, retries: 1 }),
    {
      id: 'op-list',
      ...at,
      type: 'media-spaces-list-workflows',
      name: `list ${variant}`,
      server: CONFIG_ID,
      mode: 'page',
      maxResults: '5',
      wires: [['out']],
    },
    {
      id: 'op-submit',
      ...at,
      type: 'media-spaces-submit-job',
      name: `submit ${variant}`,
      server: CONFIG_ID,
      workflowId: DEMO.workflows.transcode,
      workflowIdType: 'str',
      // every job is followed by the follow-job node
      wires: [['w-job', 'out']],
    },
    {
      id: 'op-channel',
      ...at,
      type: 'media-spaces-create-channel',
      name: 'schedule channel',
      server: CONFIG_ID,
      channelName: 'Redeploy studio',
      // the created channel goes back to the schedule (remembered for the window's end)
      wires: [schedule ? ['sched', 'out'] : ['out']],
    },
    {
      id: 'op-channel2',
      ...at,
      type: 'media-spaces-create-channel',
      name: `channel ${variant}`,
      server: CONFIG_ID,
      channelName: 'Redeploy manual',
      wires: [['out']],
    },
    {
      id: 'op-delete',
      ...at,
      type: 'media-spaces-delete-event',
      name: 'delete',
      server: CONFIG_ID,
      eventId: 'event_id',
      eventIdType: 'msg',
      wires: [['out']],
    },
    {
      id: 'w-job',
      ...at,
      type: 'media-spaces-follow-job',
      name: `follow ${variant}`,
      server: CONFIG_ID,
      interval: 100,
      wires: [['out'], ['progress']],
    },
    ...(schedule
      ? [
          {
            id: 'sched',
            ...at,
            type: 'media-spaces-schedule',
            name: `schedule ${variant}`,
            server: CONFIG_ID,
            source: 'yaml',
            yaml: SCHEDULE_YAML,
            catchUp: true,
            wires: [['op-channel', 'starts'], ['ends'], ['ctl']],
          },
        ]
      : []),
    { id: 'out', ...at, type: 'helper' },
    { id: 'progress', ...at, type: 'helper' },
    { id: 'starts', ...at, type: 'helper' },
    { id: 'ends', ...at, type: 'helper' },
    { id: 'ctl', ...at, type: 'helper' },
    { id: 'catcher', ...at, type: 'catch', scope: ops, uncaught: false, wires: [['caught']] },
    { id: 'caught', ...at, type: 'helper' },
  ];
}

const EMPTY_FLOW = [{ id: TAB, type: 'tab', label: 'redeploy' }];

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** GET on the simulator's admin API over a connection of its own, closed after the answer. */
function adminGet<T>(sim: Simulator, path: string): Promise<T> {
  return new Promise((resolve, reject) => {
    http
      .get(`${sim.adminUrl}${path}`, { agent: false }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          try {
            resolve(JSON.parse(Buffer.concat(chunks).toString('utf8')) as T);
          } catch (error) {
            reject(error);
          }
        });
      })
      .on('error', reject);
  });
}

/** What the test keeps of a message: little, so that the test itself does not grow the heap it measures. */
interface Seen {
  slotKey?: string;
  replay?: boolean;
  idempotencyKey?: string;
  error?: string;
  message?: string;
}

function seen(m: Msg): Seen {
  const rec = (m.error?.cause ?? {}) as { code?: string; status?: number };
  return {
    slotKey:
      typeof (m.window as { slotKey?: unknown })?.slotKey === 'string'
        ? (m.window as { slotKey: string }).slotKey
        : undefined,
    replay: m.replay === true,
    idempotencyKey: typeof m.idempotency_key === 'string' ? m.idempotency_key : undefined,
    error: m.error ? (rec.status === undefined ? String(rec.code) : `${rec.status} ${rec.code}`) : undefined,
    message: m.error ? String((rec as { message?: unknown }).message).slice(0, 300) : undefined,
  };
}

/**
 * Taps on what the helper nodes receive, through the runtime's onReceive hook: it stays in place
 * across deploys (a full deploy recreates the helper nodes, and a listener on the new node would
 * come too late for a schedule's first start, sent as soon as the flow starts).
 */
class Taps {
  readonly starts: Seen[] = [];
  readonly ends: Seen[] = [];
  readonly outputs: Seen[] = [];
  readonly caught: Seen[] = [];

  start(): void {
    const lists: Record<string, Seen[]> = {
      starts: this.starts,
      ends: this.ends,
      out: this.outputs,
      caught: this.caught,
    };
    hooks.add('onReceive.reliabilityRedeploy', (event: { msg: Msg; destination: { id: string } }) => {
      lists[event.destination.id]?.push(seen(event.msg));
    });
  }

  stop(): void {
    hooks.remove('*.reliabilityRedeploy');
  }
}

/**
 * node-red-node-test-helper spies on Node.prototype (send, status, log, warn, error, ...) and on the
 * runtime log, and its spies keep every call with its arguments and node: every message and every
 * node ever deployed stays reachable. That is the harness, not the nodes; its record is emptied
 * before each measurement (and every few deploys).
 */
function forgetHelperSpyCalls(): void {
  (helper as unknown as { _sandbox?: { resetHistory(): void } })._sandbox?.resetHistory();
}

let sim: Simulator;
let simPort: number;
const probe = new ResourceProbe();
const watch = new ProcessWatch();

beforeAll(async () => {
  probe.start();
  initRuntime();
  sim = await startSimulator({ manualClock: true });
  simPort = Number(new URL(sim.workflowUrl).port);
});

afterAll(async () => {
  hooks.remove('*.reliabilityRedeploy');
  watch.stop();
  probe.stop();
  await helper.unload();
  await sim.close();
});

describe(`redeploy (${SIZE_NAME}: ${REDEPLOYS} deploys with requests, polls and a schedule in flight)`, () => {
  it('handles, sockets and timers return to the baseline, the heap stays within 10 MB, removed schedules stop', async () => {
    // ---------------------------------------------------------------- events to delete
    const channelsNeeded = Math.ceil((REDEPLOYS + WARM_UP_DEPLOYS + 10) / 2);
    const createEvents = async (): Promise<string[]> => {
      const client = createClient({
        workflowUrl: sim.workflowUrl,
        liveCaptureUrl: sim.liveCaptureUrl,
        spaceId: DEMO.space,
        apiKey: DEMO.keys.admin,
        accessToken: DEMO.token,
      });
      for (let i = 0; i < channelsNeeded; i += 25) {
        await Promise.all(
          Array.from({ length: Math.min(25, channelsNeeded - i) }, (_, j) =>
            client.createChannel({ name: `ev-${i + j}` }),
          ),
        );
      }
      await client.close();
      sim.advance(CHANNEL_RECORDING_AFTER_MS + 1_000);
      // read without keep-alive, so that no pooled connection of the test's own lingers into the baseline
      const body = await adminGet<{ events: Array<{ id: string }> }>(sim, `/spaces/${DEMO.space}/events`);
      return body.events.map((e) => e.id);
    };
    let eventIds = await createEvents();
    let nextEvent = 0;

    const taps = new Taps();
    taps.start();
    let msgCount = 0;
    const fire = () => {
      const send = (id: string, msg: Msg) => helper.getNode(id).receive({ ...msg, _msgid: `rd-${msgCount++}` });
      send('op-list', {});
      send('op-list', { max_results: 2 });
      send('op-submit', { payload: {}, idempotency_key: `rd-submit-${msgCount}` });
      send('op-submit', { payload: {}, idempotency_key: `rd-submit-${msgCount}` });
      send('op-channel2', { payload: { name: `manual ${msgCount}` } });
      if (nextEvent < eventIds.length) send('op-delete', { event_id: eventIds[nextEvent++] });
    };

    // ---------------------------------------------------------------- warm-up and baseline
    // a few deploys of everything first, so that what is loaded and compiled once (modules, schemas,
    // the runtime's caches) is part of the baseline, then every node removed
    sim.addFault({ route: '*', kind: 'latency', latency_ms: LATENCY_MS });
    await helper.load(EVERY_NODE, flow(sim, { variant: -1 }), credentials());
    for (let i = 0; i < WARM_UP_DEPLOYS; i++) {
      fire();
      await sleep(i % 2 === 0 ? 60 : LATENCY_MS * 2);
      await helper.setFlows(flow(sim, { variant: -2 - i }), i % 2 === 0 ? 'full' : 'nodes', credentials());
    }
    await sleep(1_500);
    await helper.setFlows(EMPTY_FLOW, 'full', credentials());
    await sleep(1_000);
    sim.reset();
    forgetHelperSpyCalls();
    const baseline = await probe.measure({ port: simPort, gc: true });
    const warmUpStarts = taps.starts.length;
    taps.starts.length = 0;
    taps.ends.length = 0;
    // fresh events for the deletes (the reset removed them), the latency back on
    eventIds = await createEvents();
    nextEvent = 0;
    sim.addFault({ route: '*', kind: 'latency', latency_ms: LATENCY_MS });

    // ---------------------------------------------------------------- the redeploys
    watch.start();
    await helper.setFlows(flow(sim, { variant: 0 }), 'full', credentials());
    const trend: Array<{ deploy: number } & Pick<ResourceCounts, 'handles' | 'sockets' | 'timers' | 'heapUsedMB'>> = [];
    const deployMs: number[] = [];
    let requestsInFlightAtDeploy = 0;
    const feedSchedulesAtDeploy: number[] = [];
    const started = Date.now();
    for (let i = 1; i <= REDEPLOYS; i++) {
      fire();
      // every other deploy comes while the requests are in flight; the others after they were answered
      // (so that jobs reach the follow-job node and channels the schedule)
      await sleep(i % 2 === 1 ? 20 + ((i * 37) % 100) : LATENCY_MS + 150);
      const before = sim.requests().length;
      const type = i % 2 === 0 ? 'full' : 'nodes';
      const t0 = Date.now();
      await helper.setFlows(flow(sim, { variant: i }), type, credentials());
      deployMs.push(Date.now() - t0);
      // the sidebar's feed: exactly the one deployed schedule, whatever was handed over
      feedSchedulesAtDeploy.push(runtimeFeed().snapshot().schedules.length);
      // requests answered while the deploy ran (and so still in flight when it began)
      requestsInFlightAtDeploy += sim.requests().length - before;
      await sleep(30 + ((i * 53) % 120));
      if (i % 10 === 0) forgetHelperSpyCalls();
      if (i % Math.max(1, Math.floor(REDEPLOYS / 10)) === 0) {
        const m = await probe.measure({ port: simPort, gc: true });
        trend.push({ deploy: i, handles: m.handles, sockets: m.sockets, timers: m.timers, heapUsedMB: m.heapUsedMB });
      }
    }
    const loopMs = Date.now() - started;
    await sleep(1_000);

    // ---------------------------------------------------------------- remove the schedule node
    const log = (sim as unknown as { log: RequestLog }).log;
    await helper.setFlows(flow(sim, { variant: REDEPLOYS, schedule: false }), 'nodes', credentials());
    await sleep(LATENCY_MS * 3);
    const startsAtRemoval = taps.starts.length;
    const endsAtRemoval = taps.ends.length;
    log.clear();
    await sleep(CRON_PERIOD_MS * 2.5);
    const afterScheduleRemoval = log.entries();
    const scheduleRequests = afterScheduleRemoval.filter((r) => r.route === 'create_channel' || r.route === 'channel');
    const startsAfterRemoval = taps.starts.length - startsAtRemoval;
    const endsAfterRemoval = taps.ends.length - endsAtRemoval;
    const pollsWhileWatchAlive = afterScheduleRemoval.filter((r) => r.route === 'job').length;
    const feedSchedulesAfterScheduleRemoval = runtimeFeed().snapshot().schedules.length;

    // ---------------------------------------------------------------- remove everything
    await helper.setFlows(EMPTY_FLOW, 'full', credentials());
    await sleep(LATENCY_MS * 3);
    log.clear();
    await sleep(2_000);
    const requestsAfterRemoval = log.entries().length;
    // the feed after every node is gone: no schedule registered, no job still shown as followed
    const feedAfterRemoval = runtimeFeed().snapshot();
    const feedLeft = {
      schedules: feedAfterRemoval.schedules.map((x) => x.nodeId),
      followedJobs: feedAfterRemoval.jobs.filter((j) => !j.terminal).map((j) => `${j.nodeId}/${j.jobId}`),
    };
    sim.clearFaults();
    await sleep(500);
    const scheduleChannels = (
      await adminGet<{ channels: Array<{ name: string }> }>(sim, `/spaces/${DEMO.space}/channels`)
    ).channels.filter((c) => c.name.startsWith('Redeploy ') && !c.name.startsWith('Redeploy manual')).length;
    // the simulator's own state (every job, channel and idempotency record of the run) is not the nodes'
    const simCounts = sim.counts();
    sim.reset();
    forgetHelperSpyCalls();
    // node's http server keeps a one-second timer for its cached Date header after each response
    // (the admin reads above); it is not the nodes', so let it lapse before counting
    await sleep(1_200);
    const final = await probe.measure({ port: simPort, gc: true });
    watch.stop();

    // ---------------------------------------------------------------- figures
    // a start is emitted once per slot; after a redeploy the schedule may send the start of a slot in
    // progress again, flagged msg.replay, with the first one's idempotency key (create channel dedupes it)
    const slotOf = (m: Seen) => String(m.slotKey);
    const firstStarts = taps.starts.filter((m) => m.replay !== true);
    const replays = taps.starts.filter((m) => m.replay === true);
    const firstByKey = new Map(firstStarts.map((m) => [slotOf(m), m]));
    const duplicateSlots = firstStarts.length - firstByKey.size;
    const badReplays = replays.filter((m) => firstByKey.get(slotOf(m))?.idempotencyKey !== m.idempotencyKey);
    const errorCodes: Record<string, number> = {};
    for (const m of taps.caught) errorCodes[String(m.error)] = (errorCodes[String(m.error)] ?? 0) + 1;
    const leakWarnings = watch.warnings.filter((w) => /MaxListeners|leak/i.test(w));
    const sorted = [...deployMs].sort((a, b) => a - b);
    const results = {
      size: SIZE_NAME,
      redeploys: REDEPLOYS,
      latency_ms: LATENCY_MS,
      loop_ms: loopMs,
      deploy_ms: { median: sorted[Math.floor(sorted.length / 2)], max: sorted.at(-1) },
      messages_sent: msgCount,
      outputs: taps.outputs.length,
      catch_errors: taps.caught.length,
      catch_error_codes: errorCodes,
      catch_error_samples: [...new Set(taps.caught.map((m) => m.message))].slice(0, 10),
      requests_answered_during_deploys: requestsInFlightAtDeploy,
      schedule_starts: firstStarts.length,
      schedule_start_replays: replays.length,
      replays_without_their_first_start: badReplays.length,
      schedule_channels_created: scheduleChannels,
      simulator_state_before_reset: simCounts,
      warm_up_starts: warmUpStarts,
      schedule_ends: taps.ends.length,
      duplicate_slot_starts: duplicateSlots,
      after_schedule_removal: {
        waited_ms: CRON_PERIOD_MS * 2.5,
        start_messages: startsAfterRemoval,
        end_messages: endsAfterRemoval,
        schedule_requests: scheduleRequests.length,
        job_polls_meanwhile: pollsWhileWatchAlive,
      },
      requests_after_removing_everything: requestsAfterRemoval,
      feed: {
        schedules_registered_at_deploys: [...new Set(feedSchedulesAtDeploy)],
        schedules_after_schedule_removal: feedSchedulesAfterScheduleRemoval,
        left_after_removing_everything: feedLeft,
      },
      baseline,
      final,
      trend,
      unhandled_rejections: watch.unhandledRejections.length,
      uncaught_exceptions: watch.uncaughtExceptions.length,
      process_warnings: watch.warnings,
    };
    const file = writeResults('redeploy', results);
    print(
      [
        '',
        `redeploy suite (${SIZE_NAME}): ${REDEPLOYS} deploys in ${(loopMs / 1000).toFixed(1)} s ` +
          `(median ${results.deploy_ms.median} ms, max ${results.deploy_ms.max} ms), ${msgCount} messages, ` +
          `${taps.starts.length} schedule starts, ${requestsInFlightAtDeploy} requests answered during deploys`,
        table([
          ['resource', 'baseline', 'final', 'tolerance'],
          ['active handles', baseline.handles, final.handles, 'exact'],
          ['sockets (all)', baseline.sockets, final.sockets, 'exact'],
          ['sockets to the simulator', baseline.socketsToPort, final.socketsToPort, 'exact'],
          ['timers (async_hooks, product + runtime)', baseline.timers, final.timers, 'exact'],
          ['TCP resources (async_hooks)', baseline.live.TCPWRAP ?? 0, final.live.TCPWRAP ?? 0, 'exact'],
          ['heap used MB (after gc)', baseline.heapUsedMB, final.heapUsedMB, `+${HEAP_TOLERANCE_MB}`],
        ]),
        table([
          ['deploy', 'handles', 'sockets', 'timers', 'heap MB'],
          ...trend.map((t) => [t.deploy, t.handles, t.sockets, t.timers, t.heapUsedMB]),
        ]),
        table([
          ['check', 'value'],
          ['start messages after removing the schedule', startsAfterRemoval],
          ['schedule requests after removing it', scheduleRequests.length],
          ['job polls meanwhile (watch still deployed)', pollsWhileWatchAlive],
          ['requests after removing every node', requestsAfterRemoval],
          ['sidebar feed: schedules registered at each deploy', [...new Set(feedSchedulesAtDeploy)].join(', ')],
          [
            'sidebar feed after removing every node (schedules / followed jobs)',
            `${feedLeft.schedules.length} / ${feedLeft.followedJobs.length}`,
          ],
          ['slots started twice (not counting flagged replays)', duplicateSlots],
          ['start replays / without a matching first start', `${replays.length} / ${badReplays.length}`],
          ['channels the schedule created / distinct slots', `${scheduleChannels} / ${firstByKey.size}`],
          ['Catch errors', JSON.stringify(errorCodes)],
          [
            'unhandled rejections / uncaught exceptions',
            `${watch.unhandledRejections.length} / ${watch.uncaughtExceptions.length}`,
          ],
        ]),
        `written to ${file}`,
      ].join('\n'),
    );

    // ---------------------------------------------------------------- assertions
    // the load was real: requests in flight at deploys, jobs polled, windows open
    expect(requestsInFlightAtDeploy).toBeGreaterThan(0);
    expect(taps.starts.length).toBeGreaterThan(2);
    expect(pollsWhileWatchAlive).toBeGreaterThan(0);

    expect(final.handles, JSON.stringify({ baseline: baseline.handlesByType, final: final.handlesByType })).toBe(
      baseline.handles,
    );
    expect(final.sockets).toBe(baseline.sockets);
    expect(final.socketsToPort).toBe(baseline.socketsToPort);
    const newTimers = Object.entries(final.timerOrigins).filter(([id]) => !(id in baseline.timerOrigins));
    expect(final.timers, `timers made after the baseline: ${JSON.stringify(newTimers)}`).toBe(baseline.timers);
    expect(final.live.TCPWRAP ?? 0).toBe(baseline.live.TCPWRAP ?? 0);
    expect(final.heapUsedMB).toBeLessThanOrEqual(baseline.heapUsedMB + HEAP_TOLERANCE_MB);

    expect(startsAfterRemoval, 'start messages after the schedule node was removed').toBe(0);
    expect(endsAfterRemoval, 'end messages after the schedule node was removed').toBe(0);
    expect(scheduleRequests.map((r) => `${r.method} ${r.path}`)).toEqual([]);
    expect(requestsAfterRemoval, 'requests after every node was removed').toBe(0);
    expect([...new Set(feedSchedulesAtDeploy)], 'schedules in the sidebar feed after each deploy').toEqual([1]);
    expect(feedSchedulesAfterScheduleRemoval, 'schedules in the feed after removing the schedule').toBe(0);
    expect(feedLeft, 'the sidebar feed after every node was removed').toEqual({ schedules: [], followedJobs: [] });

    expect(duplicateSlots, 'slots started twice').toBe(0);
    expect(badReplays.map(slotOf), 'replayed starts without the first start and its key').toEqual([]);
    expect(scheduleChannels, 'channels the schedule created').toBeLessThanOrEqual(firstByKey.size);
    expect(watch.describe()).toEqual([]);
    expect(leakWarnings).toEqual([]);
  });
});

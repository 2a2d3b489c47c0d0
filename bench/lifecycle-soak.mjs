// Soak of the recording lifecycle: many short windows (channel, stop at the
// end, follow-up job followed to its end) in a real Node-RED runtime with the
// demo's wiring, against the simulator, once alone and once with a
// media-spaces-coordination node on a real redis-server. After each batch of
// slots, once all of them have finished: the heap after a full collection,
// live timers and handles, slot-starts listeners, the per-slot stores, and
// (with Redis) every key left with its TTL. Checks that each slot had exactly
// one channel, one accepted stop and one follow-up, none missed, no error.
//
//   npm run bench:soak                      # 500 windows, both runs, about 7 minutes
//   npm run bench:soak -- --windows 200     # fewer windows
//   options: --lanes N (slots starting each second, 4), --duration S (window, 3),
//            --every N (slots per batch, 100), --gap S (quiet after a batch, 12),
//            --no-redis, --redis-only, --out FILE (default bench/results-soak.json)
import { writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { BENCH_DIR, fmt, forkWorker, round, sleep } from './lib/common.mjs';
import { redisCensus } from './lib/redis-census.mjs';
import { startRedis } from './lib/redis-server.mjs';
import { planSlots, scheduleYaml } from './lib/soak-plan.mjs';

const { values: opt } = parseArgs({
  options: {
    windows: { type: 'string', default: '500' },
    lanes: { type: 'string', default: '4' },
    duration: { type: 'string', default: '3' },
    every: { type: 'string', default: '100' },
    gap: { type: 'string', default: '12' },
    lead: { type: 'string', default: '15' },
    'no-redis': { type: 'boolean', default: false },
    'redis-only': { type: 'boolean', default: false },
    out: { type: 'string', default: path.join(BENCH_DIR, 'results-soak.json') },
  },
});
const N = Number(opt.windows);
const LANES = Number(opt.lanes);
const DURATION_S = Number(opt.duration);
const EVERY = Math.min(Number(opt.every), N);
const GAP_S = Number(opt.gap);
const LEAD_S = Number(opt.lead);
const KEY_PREFIX = 'media-spaces:';
const FOLLOW_INTERVAL_MS = 500;
/** Past its last slot's end, how long a batch may take to finish before the run fails. */
const FINISH_WITHIN_MS = 60_000;
/** After a batch finished: the follow-job's last interval and the sockets' last writes settle. */
const SETTLE_MS = 1500;
/** lib/transport.ts pools at most 64 connections per origin (the simulator serves both areas on one) */
const SOCKET_BOUND = 64;

const t0 = Date.now();
const log = (line) =>
  process.stderr.write(`[soak ${String(Math.round((Date.now() - t0) / 1000)).padStart(3)}s] ${line}\n`);

/** Tallies of the taps' events, per slot where the message names one. */
function tally() {
  const bySlot = (m, slot) => m.set(slot, (m.get(slot) ?? 0) + 1);
  const t = {
    channels: new Map(),
    ends: new Map(),
    jobs: new Map(),
    missed: [],
    caught: [],
    control: 0,
    endsNotFinished: [],
    jobStates: {},
    finished: 0,
    onEvent(e) {
      if (e.kind === 'channel') bySlot(t.channels, e.slot);
      else if (e.kind === 'end') {
        bySlot(t.ends, e.slot);
        if (e.state !== 'INACTIVE' || !(e.outputs > 0)) t.endsNotFinished.push(e);
      } else if (e.kind === 'job') {
        bySlot(t.jobs, e.slot);
        t.jobStates[e.state] = (t.jobStates[e.state] ?? 0) + 1;
        t.finished++;
      } else if (e.kind === 'missed') {
        t.missed.push(e);
        t.finished++;
      } else if (e.kind === 'caught') t.caught.push(e);
      else t.control++;
    },
  };
  return t;
}

const exactlyOnce = (map) => [...map.values()].filter((n) => n === 1).length;
const moreThanOnce = (map) => [...map.values()].filter((n) => n > 1).length;

async function runPhase(name, sim, simInfo, redis) {
  const firstAt = Math.ceil(Date.now() / 1000) * 1000 + LEAD_S * 1000;
  const plan = planSlots({ windows: N, lanes: LANES, every: EVERY, gapS: GAP_S, firstAt });
  const { yaml, windowCount } = scheduleYaml({
    slots: plan.slots,
    durationS: DURATION_S,
    followupWorkflow: simInfo.followupWorkflow,
  });
  const events = tally();
  const host = forkWorker(path.join(BENCH_DIR, 'workers/soak-host.mjs'), { onEvent: (e) => events.onEvent(e) });
  const checkpoints = [];
  try {
    const started = await host.call('start', {
      info: simInfo.info,
      spaceId: simInfo.spaceId,
      keys: simInfo.keys,
      yaml,
      redisUrl: redis?.url,
      followIntervalMs: FOLLOW_INTERVAL_MS,
    });
    const lateBy = Date.now() - firstAt;
    if (lateBy > 0) throw new Error(`Node-RED started ${lateBy} ms after the first slot; raise --lead`);
    log(
      `${name}: Node-RED ${started.nodeRed}, ${windowCount} windows, ${N} slots from ${new Date(firstAt).toISOString()}`,
    );
    const baseline = await host.call('snapshot');
    checkpoints.push({ finished: 0, ...baseline });
    for (const target of plan.batchEnds) {
      const lastSlot = plan.slots[target - 1].at;
      const deadline = lastSlot + DURATION_S * 1000 + FINISH_WITHIN_MS;
      while (events.finished < target && Date.now() < deadline) await sleep(100);
      if (events.finished < target) {
        throw new Error(
          `${name}: ${events.finished} of ${target} slots finished by ${FINISH_WITHIN_MS / 1000} s past the end (channels ${events.channels.size}, ends ${events.ends.size}, control messages ${events.control}, first error ${JSON.stringify(events.caught[0] ?? null)})`,
        );
      }
      await sleep(SETTLE_MS);
      const snap = await host.call('snapshot');
      const inFlight = events.channels.size - events.finished;
      const keys = redis ? await redisCensus(redis.url, KEY_PREFIX) : undefined;
      checkpoints.push({ finished: events.finished, inFlight, ...snap, ...(keys ? { redis: keys } : {}) });
      log(
        `${name}: ${events.finished} finished, heap ${fmt(snap.heapUsed / 1048576)} MB, timers ${snap.active.Timeout ?? 0} (live ${snap.live.Timeout ?? 0}), listeners ${snap.listenedStarts}${keys ? `, redis keys ${keys.keys} (${keys.withoutTtl} without TTL)` : ''}`,
      );
    }
    checkpoints.at(-1).feedShare = await host.call('feedShare');
  } finally {
    await host.call('stop').catch(() => undefined);
    await host.stop();
  }
  const service = await sim.call('counts');
  return { name, plan: { windows: N, lanes: LANES, durationS: DURATION_S, windowCount }, checkpoints, events, service };
}

/** The run's verdict: per-slot counts from the simulator and from the taps. */
function correctness(phase) {
  const slots = Object.values(phase.service.slots);
  const { events } = phase;
  return {
    slotsPlanned: N,
    channelsCreated: slots.filter((s) => s.created === 1).length,
    channelsCreatedTwice: slots.filter((s) => s.created > 1).length,
    stopsAccepted: slots.filter((s) => s.stopsAccepted === 1).length,
    stopPosts: slots.reduce((n, s) => n + s.stopPosts, 0),
    followupsSubmitted: slots.filter((s) => s.submitted === 1).length,
    followupsSubmittedTwice: slots.filter((s) => s.submitted > 1).length,
    channelsRoutedBack: exactlyOnce(events.channels),
    endsOnFinishedRecording: exactlyOnce(events.ends) - events.endsNotFinished.length,
    endsTwice: moreThanOnce(events.ends),
    followupsDone: exactlyOnce(events.jobs),
    followupsDoneTwice: moreThanOnce(events.jobs),
    jobStates: events.jobStates,
    missed: events.missed.length,
    errors: events.caught.length,
    channelsStillRecording: (phase.service.channelStates.RECORDING ?? 0) + (phase.service.channelStates.ACTIVE ?? 0),
    channelStates: phase.service.channelStates,
    requests: phase.service.routes,
    firstMissed: events.missed[0],
    firstError: events.caught[0],
  };
}

function correct(c) {
  return (
    c.channelsCreated === N &&
    c.channelsCreatedTwice === 0 &&
    c.stopsAccepted === N &&
    c.followupsSubmitted === N &&
    c.followupsSubmittedTwice === 0 &&
    c.channelsRoutedBack === N &&
    c.endsOnFinishedRecording === N &&
    c.endsTwice === 0 &&
    c.followupsDone === N &&
    c.followupsDoneTwice === 0 &&
    c.missed === 0 &&
    c.errors === 0 &&
    c.channelsStillRecording === 0
  );
}

/** Growth from the first batch's checkpoint to the last, per slot finished in between. */
function growth(phase) {
  const points = phase.checkpoints.slice(1);
  const first = points[0];
  const last = points.at(-1);
  const slots = last.finished - first.finished;
  const per = (a, b) => (slots > 0 ? (b - a) / slots : 0);
  const types = new Set([...Object.keys(first.active), ...Object.keys(last.active)]);
  const liveTypes = new Set([...Object.keys(first.live), ...Object.keys(last.live)]);
  const otherTimers = (c) => (c.live.Timeout ?? 0) - c.socketTimers;
  const feed = last.feedShare;
  return {
    from: first.finished,
    to: last.finished,
    heapFrom: first.heapUsed,
    heapTo: last.heapUsed,
    heapRatio: last.heapUsed / first.heapUsed,
    heapPerSlot: per(first.heapUsed, last.heapUsed),
    // the feed holds one slot row and one finished job per slot (up to its bounds): its share, per slot
    feedBytesPerSlot: feed ? (feed.heapBefore - feed.heapWithoutFeed) / last.finished : undefined,
    schedulerStateBytesPerSlot: per(first.scheduler?.stateBytes ?? 0, last.scheduler?.stateBytes ?? 0),
    timersBeyondSockets: [otherTimers(first), otherTimers(last)],
    sockets: [first.live.TCPWRAP ?? 0, last.live.TCPWRAP ?? 0],
    warnings: last.warnings,
    firstWarning: last.firstWarning,
    active: Object.fromEntries([...types].map((t) => [t, [first.active[t] ?? 0, last.active[t] ?? 0]])),
    live: Object.fromEntries([...liveTypes].map((t) => [t, [first.live[t] ?? 0, last.live[t] ?? 0]])),
    listenedStarts: [first.listenedStarts, last.listenedStarts],
    redis: first.redis
      ? {
          keys: [first.redis.keys, last.redis.keys],
          withoutTtl: [first.redis.withoutTtl, last.redis.withoutTtl],
          keysPerSlot: per(first.redis.keys, last.redis.keys),
          shapes: last.redis.shapes,
          jobsHashFields: [first.redis.jobsHashFields, last.redis.jobsHashFields],
        }
      : undefined,
  };
}

function table(rows) {
  const widths = rows[0].map((_, i) => Math.max(...rows.map((r) => String(r[i]).length)));
  const line = (cells) => `| ${cells.map((c, i) => String(c).padEnd(widths[i])).join(' | ')} |`;
  return [line(rows[0]), `| ${widths.map((w) => '-'.repeat(w)).join(' | ')} |`, ...rows.slice(1).map(line)].join('\n');
}

const sum = (o) => Object.values(o).reduce((n, x) => n + x, 0);

function report(phase) {
  const rows = [
    [
      'finished',
      'in flight',
      'heap MB',
      'rss MB',
      'timers (ref)',
      'timers (live)',
      "of which sockets'",
      'sockets',
      'handles',
      'listeners',
      'sched emitted/ended',
      'feed slots/jobs',
      'redis keys (no TTL)',
      'warnings',
    ],
  ];
  for (const c of phase.checkpoints) {
    const handles = sum(c.active) - (c.active.Timeout ?? 0);
    rows.push([
      c.finished,
      c.inFlight ?? '-',
      fmt(c.heapUsed / 1048576),
      fmt(c.rss / 1048576),
      c.active.Timeout ?? 0,
      c.live.Timeout ?? 0,
      c.socketTimers,
      c.live.TCPWRAP ?? 0,
      handles,
      c.listenedStarts,
      c.scheduler ? `${c.scheduler.emitted}/${c.scheduler.ended}` : '-',
      `${c.feed.slots}/${c.feed.jobs}`,
      c.redis ? `${c.redis.keys} (${c.redis.withoutTtl})` : '-',
      c.warnings,
    ]);
  }
  return table(rows);
}

// ------------------------------------------------------------------ run

const phases = [];
const sim = forkWorker(path.join(BENCH_DIR, 'workers/soak-sim.mjs'));
let redis;
try {
  const simInfo = await sim.call('start');
  if (!opt['redis-only']) phases.push(await runPhase('alone', sim, simInfo));
  if (!opt['no-redis']) {
    await sim.call('reset');
    redis = await startRedis();
    phases.push(await runPhase('redis', sim, simInfo, redis));
  }
} finally {
  await sim.call('stop').catch(() => undefined);
  await sim.stop();
  await redis?.stop();
}

const out = {
  env: {
    node: process.version,
    cpus: os.cpus().length,
    cpuModel: os.cpus()[0]?.model,
    loadavgEnd: os.loadavg().map((x) => round(x, 2)),
    seconds: Math.round((Date.now() - t0) / 1000),
  },
  settings: {
    windows: N,
    lanes: LANES,
    durationS: DURATION_S,
    every: EVERY,
    gapS: GAP_S,
    followIntervalMs: FOLLOW_INTERVAL_MS,
  },
  phases: [],
};
let ok = true;
for (const phase of phases) {
  const c = correctness(phase);
  const g = growth(phase);
  const passed = correct(c);
  const leakFree =
    g.listenedStarts[1] <= g.listenedStarts[0] &&
    (g.active.Timeout?.[1] ?? 0) <= (g.active.Timeout?.[0] ?? 0) + 2 &&
    g.timersBeyondSockets[1] <= g.timersBeyondSockets[0] + 2 &&
    g.sockets[1] <= SOCKET_BOUND &&
    g.warnings === 0 &&
    (!g.redis || g.redis.withoutTtl[1] <= g.redis.withoutTtl[0]);
  ok &&= passed && leakFree;
  console.log(
    `\nLifecycle soak, ${phase.name === 'redis' ? 'with coordination on redis-server' : 'one instance, no coordination'}: ${N} windows of ${DURATION_S} s, ${LANES} starting each second, ${phase.plan.windowCount} schedule windows\n`,
  );
  console.log(report(phase));
  console.log(
    `\ncorrectness: ${c.channelsCreated} channels created (${c.channelsCreatedTwice} twice), ${c.stopsAccepted} stops accepted (${c.stopPosts} stop requests), ${c.followupsSubmitted} follow-ups submitted, ${c.endsOnFinishedRecording} ends on an INACTIVE recording with outputs, ${c.followupsDone} follow-up jobs followed to the end ${JSON.stringify(c.jobStates)}, ${c.missed} missed, ${c.errors} errors, ${c.channelsStillRecording} channels still recording -> ${passed ? 'OK' : 'FAILED'}`,
  );
  if (c.firstMissed) console.log(`  first missed: ${JSON.stringify(c.firstMissed)}`);
  if (c.firstError) console.log(`  first error: ${JSON.stringify(c.firstError)}`);
  console.log(
    `growth from slot ${g.from} to ${g.to}: heap ${fmt(g.heapFrom / 1048576)} -> ${fmt(g.heapTo / 1048576)} MB (ratio ${g.heapRatio.toFixed(3)}, +${fmt((g.heapTo - g.heapFrom) / 1048576)} MB, ${fmt(g.heapPerSlot)} bytes per slot; of it the sidebar feed ${fmt(g.feedBytesPerSlot)} and the scheduler state ~${fmt(g.schedulerStateBytesPerSlot)} as JSON); ref'd timers ${JSON.stringify(g.active.Timeout ?? [0, 0])}, live timers beyond the sockets' own ${JSON.stringify(g.timersBeyondSockets)}, pooled sockets ${JSON.stringify(g.sockets)} (at most ${SOCKET_BOUND}), slot-starts listeners ${JSON.stringify(g.listenedStarts)}, warnings ${g.warnings} -> ${leakFree ? 'no growth per slot' : 'GROWS'}`,
  );
  if (g.firstWarning) console.log(`  first warning: ${g.firstWarning}`);
  if (g.redis) {
    console.log(
      `redis: ${g.redis.keys.join(' -> ')} keys (${fmt(g.redis.keysPerSlot)} per slot), without TTL ${g.redis.withoutTtl.join(' -> ')}; jobs hash fields ${g.redis.jobsHashFields.join(' -> ')}`,
    );
    for (const [shape, s] of Object.entries(g.redis.shapes)) {
      console.log(
        `  ${shape.padEnd(24)} ${String(s.keys).padStart(5)} keys, TTL ${s.minTtlS === null ? 'none' : `${s.minTtlS}..${s.maxTtlS} s`}${s.withoutTtl ? `, ${s.withoutTtl} without TTL` : ''}`,
      );
    }
  }
  const { events: _events, service: _service, ...rest } = phase;
  out.phases.push({ ...rest, correctness: c, passed, growth: g, leakFree });
}
writeFileSync(opt.out, `${JSON.stringify(out, null, 1)}\n`);
console.log(`\nwritten to ${path.relative(process.cwd(), opt.out)} in ${out.env.seconds} s`);
process.exitCode = ok ? 0 : 1;

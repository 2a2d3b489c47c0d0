// The top of the hour: N schedule nodes (50) whose windows all start at the
// same second, each with the demo's wiring (schedule -> create channel -> back
// into the schedule; the schedule's end stops the channel; the follow-up goes
// to submit job), in a real Node-RED runtime against the simulator over real
// HTTP. A proxy in this process, in front of the live-capture area, notes when
// each request arrives. Per burst: the spread from the start instant to the
// first and the last channel request, of the stops after the end, and the
// Node-RED process's CPU and heap around it. Bursts: the first after deploy, a
// second one later, then (one or two) with the simulator answering 429 with
// Retry-After: 2 to one request in three: every channel still created before
// its window's end, and the most any one schedule waited for its channel.
//
//   npm run build && node bench/top-of-hour.mjs [--schedules 50] [--quick] [--json] [--profile]
//   --package-root DIR: Node-RED loads the package built in DIR (another commit, to compare) instead of this checkout
//   --no-journal: settings.js mediaSpaces.journal false (what the schedules' write-ahead state file costs)
//   --profile: the Node-RED process runs with --cpu-prof (bench/profiles/top-of-hour-*.cpuprofile, and beside it
//   *.cpuprofile.json: its clock anchor and the bursts, for bench/profile-burst.mjs)
// Goal: without faults, every channel request within 100 ms of the start instant.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { admin, BENCH_DIR, fmt, forkWorker, median, round, sleep } from './lib/common.mjs';
import { profileWindow } from './lib/profile-window.mjs';

const { values: opt } = parseArgs({
  options: {
    schedules: { type: 'string' },
    quick: { type: 'boolean', default: false },
    json: { type: 'boolean', default: false },
    profile: { type: 'boolean', default: false },
    'no-journal': { type: 'boolean', default: false },
    'package-root': { type: 'string' },
  },
});
const QUICK = opt.quick;
const N = Number(opt.schedules ?? (QUICK ? 20 : 50));
/**
 * Window length: a clean burst's, long enough for a channel to be RECORDING before its stop. A burst
 * with faults has longer windows: a start rejected with 429 and Retry-After: 2 is tried again every 2 s
 * until its window's end, so a 10 s window allows 5 attempts, and with one request in three rejected
 * some schedule of the 16 rejected at first is rejected on all 5 about one burst in five (16 × 3^-4).
 * That is arithmetic, not a starved schedule; 20 s allows 10 attempts (16 × 3^-9: one burst in 1,200).
 */
const DURATION_S = { clean: 10, faults: 20 };
/** after a window's end, before the next burst: the follow-ups have gone */
const GAP_AFTER_END_S = QUICK ? 8 : 15;
/** Node-RED's start with N schedules comes first */
const LEAD_S = QUICK ? 8 : 12;
const BURSTS = QUICK ? ['clean', 'faults'] : ['clean', 'clean', 'faults', 'faults'];
const GOAL_MS = 100;
const FAULT = { kind: 'status', status: 429, retry_after: 2, every: 3 };
/** past a window's end, how long its follow-up may take before the run fails */
const FINISH_WITHIN_MS = 40_000;

const nowMs = () => performance.timeOrigin + performance.now();
const t0 = Date.now();
const log = (line) => {
  if (!opt.json)
    process.stderr.write(`[top-of-hour ${String(Math.round((Date.now() - t0) / 1000)).padStart(3)}s] ${line}\n`);
};

/** A pass-through proxy that notes each request's arrival (epoch ms, sub-ms) and its answer's status. */
function startProxy(target) {
  const upstream = new URL(target);
  const agent = new http.Agent({ keepAlive: true, maxSockets: 256 });
  const seen = [];
  const server = http.createServer((req, res) => {
    const entry = { at: nowMs(), method: req.method, path: req.url, key: req.headers['idempotency-key'], status: 0 };
    seen.push(entry);
    const out = http.request(
      { host: upstream.hostname, port: upstream.port, method: req.method, path: req.url, headers: req.headers, agent },
      (answer) => {
        entry.status = answer.statusCode;
        res.writeHead(answer.statusCode, answer.headers);
        answer.pipe(res);
      },
    );
    out.on('error', () => res.destroy());
    req.pipe(out);
  });
  return new Promise((resolve) => {
    server.listen(0, '127.0.0.1', () =>
      resolve({
        url: `http://127.0.0.1:${server.address().port}`,
        seen,
        close() {
          server.closeAllConnections();
          server.close();
          agent.destroy();
        },
      }),
    );
  });
}

/** Each schedule i: one window per burst, `b<k>`, a 6-field cron that fires once, at the burst's second. */
function scheduleYaml(i, instants, followupWorkflow) {
  const lines = ['timezone: UTC', 'windows:'];
  instants.forEach((at, k) => {
    const durationS = DURATION_S[BURSTS[k]];
    const d = new Date(at);
    lines.push(
      `  - id: b${k + 1}`,
      `    name: Burst ${k + 1} of ${i}`,
      `    cron: "${d.getUTCSeconds()} ${d.getUTCMinutes()} ${d.getUTCHours()} ${d.getUTCDate()} ${d.getUTCMonth() + 1} *"`,
      `    duration: ${durationS}s`,
      '    channel:',
      '      name: "{{window.name}} {{slot.local_start}}"',
      '      continuous_recording: false',
      '      recording_duration: 1',
      '    followup:',
      `      workflow_id: ${followupWorkflow}`,
      '      job_name: "Proxy of {{channel.name}}"',
      '      media_nicknames:',
      '        recording: "{{channel.recording.outputs[0].location_url}}"',
    );
  });
  return `${lines.join('\n')}\n`;
}

/** `s<i>:b<k>:<iso>` -> schedule i */
const scheduleOf = (key) => Number(/^s(\d+):/.exec(key ?? '')?.[1] ?? Number.NaN);
const isCreate = (r) => r.method === 'POST' && /\/channels$/.test(r.path.split('?')[0]);
const isStop = (r) => r.method === 'POST' && /\/channels\/[^/]+\/stop$/.test(r.path.split('?')[0]);

function spread(values) {
  if (values.length === 0) return { first: null, last: null, median: null };
  return {
    first: round(Math.min(...values), 1),
    median: round(median(values), 1),
    last: round(Math.max(...values), 1),
  };
}

/** The figures of one burst, from the proxy's log, the host's events and its samples. */
function figures({ burst, k, at, seen, events, host }) {
  const tag = `:b${k + 1}:`;
  const end = at + DURATION_S[burst] * 1000;
  const creates = seen.filter((r) => isCreate(r) && r.key?.includes(tag));
  const firstTry = new Map();
  const created = new Map();
  for (const r of creates) {
    const i = scheduleOf(r.key);
    if (!firstTry.has(i)) firstTry.set(i, r.at);
    if (r.status >= 200 && r.status < 300 && !created.has(i)) created.set(i, r.at);
  }
  const stops = seen.filter((r) => isStop(r) && r.key?.includes(tag));
  const firstStop = new Map();
  // by slot: a stop tried again after a conflict has a key of its own (`<slot>:stop:<n>`)
  for (const r of stops) {
    const slot = r.key.replace(/:stop(:\d+)?$/, '');
    if (!firstStop.has(slot)) firstStop.set(slot, r.at);
  }
  const starts = events.filter((e) => e.kind === 'start' && e.slot?.includes(tag)).map((e) => e.at - at);
  const ends = events.filter((e) => e.kind === 'end' && e.slot?.includes(tag));
  const delays = [...created.values()].map((t) => t - at);
  const missedSlots = events
    .filter((e) => e.kind === 'missed' && e.slot?.includes(tag))
    .map((e) => ({
      slot: e.slot,
      reason: e.reason,
      attempts: creates
        .filter((r) => r.key === e.slot)
        .map((r) => `${Math.round(r.at - at)}: ${r.status}`)
        .join(', '),
    }));
  const peak = host.samples.filter((s) => s.at >= at - 200 && s.at <= at + 1000);
  const before = host.samples.filter((s) => s.at >= at - 1200 && s.at < at - 200);
  return {
    burst,
    faults: burst === 'faults',
    startInstant: new Date(at).toISOString(),
    schedules: N,
    startMessageAtCreateChannelMs: spread(starts),
    channelRequestMs: spread([...firstTry.values()].map((t) => t - at)),
    channelRequests: creates.length,
    channelRequests429: creates.filter((r) => r.status === 429).length,
    channelsCreated: created.size,
    createdBeforeWindowEnd: [...created.values()].filter((t) => t < end).length,
    perScheduleDelayMs: spread(delays),
    stopMs: spread([...firstStop.values()].map((t) => t - end)),
    stops: firstStop.size,
    stopRequests: stops.length,
    followups: ends.length,
    missed: missedSlots.length,
    missedSlots,
    peakCpuShare: round(Math.max(0, ...peak.map((s) => s.cpuShare)), 2),
    cpuShareFirst500ms: round(median(peak.filter((s) => s.at >= at && s.at < at + 500).map((s) => s.cpuShare)), 2),
    heapBeforeMB: round(median(before.map((s) => s.heapUsed)) / 1048576, 1),
    peakHeapMB: round(Math.max(0, ...peak.map((s) => s.heapUsed)) / 1048576, 1),
    loopDelayMaxMs: round(host.loopDelay.maxMs, 1),
  };
}

const profileFile = path.join(BENCH_DIR, 'profiles', `top-of-hour-${Date.now()}.cpuprofile`);
let anchor;
const sim = forkWorker(path.join(BENCH_DIR, 'workers/soak-sim.mjs'));
let proxy;
let host;
const results = [];
let nodeRed;
try {
  const simInfo = await sim.call('start');
  const live = new URL(simInfo.info.livecapture_url);
  proxy = await startProxy(live.origin);
  const liveCaptureUrl = `${proxy.url}${live.pathname === '/' ? '' : live.pathname}`;
  const firstAt = Math.ceil(Date.now() / 1000) * 1000 + LEAD_S * 1000;
  const instants = [];
  for (let k = 0; k < BURSTS.length; k++) {
    instants.push(k === 0 ? firstAt : instants[k - 1] + (DURATION_S[BURSTS[k - 1]] + GAP_AFTER_END_S) * 1000);
  }
  const yamls = Array.from({ length: N }, (_, i) => scheduleYaml(i, instants, simInfo.followupWorkflow));
  const events = [];
  const profileDir = path.join(BENCH_DIR, 'profiles');
  if (opt.profile) mkdirSync(profileDir, { recursive: true });
  host = forkWorker(path.join(BENCH_DIR, 'workers/burst-host.mjs'), {
    execArgv: opt.profile
      ? ['--cpu-prof', '--cpu-prof-dir', profileDir, '--cpu-prof-name', path.basename(profileFile)]
      : [],
    onEvent: (e) => events.push(e),
  });
  ({ nodeRed, anchor } = await host.call('start', {
    info: simInfo.info,
    liveCaptureUrl,
    spaceId: simInfo.spaceId,
    keys: simInfo.keys,
    yamls,
    journal: !opt['no-journal'],
    packageRoot: opt['package-root'] && path.resolve(opt['package-root']),
  }));
  if (Date.now() > firstAt - 1000) throw new Error('Node-RED started less than 1 s before the first burst');
  log(
    `Node-RED ${nodeRed} up, ${N} schedules, bursts at ${instants.map((t) => new Date(t).toISOString().slice(11, 19)).join(', ')}`,
  );
  for (const [k, burst] of BURSTS.entries()) {
    const at = instants[k];
    const faulted = burst === 'faults';
    if (faulted) {
      await sleep(Math.max(0, at - 2000 - Date.now()));
      await admin(simInfo.info, 'POST', '/faults', FAULT);
    }
    const tag = `:b${k + 1}:`;
    const deadline = at + DURATION_S[burst] * 1000 + FINISH_WITHIN_MS;
    // a window whose channel never came is reported missed (output 3) instead of followed up
    const done = () =>
      events.filter((e) => (e.kind === 'end' || e.kind === 'missed') && e.slot?.includes(tag)).length >= N;
    while (!done() && Date.now() < deadline) await sleep(100);
    if (faulted) await admin(simInfo.info, 'DELETE', '/faults');
    const hostWindow = await host.call('window', { from: at - 1500, to: at + DURATION_S[burst] * 1000 });
    const f = figures({ burst, k, at, seen: proxy.seen, events, host: hostWindow });
    results.push(f);
    log(
      `burst ${k + 1} (${burst}): channel requests ${f.channelRequestMs.first}..${f.channelRequestMs.last} ms after the start, ` +
        `created ${f.channelsCreated}/${N} (${f.createdBeforeWindowEnd} before the end), stops ${f.stopMs.first}..${f.stopMs.last} ms after the end, follow-ups ${f.followups}`,
    );
    if (!done())
      throw new Error(`burst ${k + 1}: ${f.followups} of ${N} follow-ups by ${FINISH_WITHIN_MS / 1000} s past the end`);
    for (const m of f.missedSlots)
      log(`  missed ${m.slot}: ${m.reason}; its channel requests (ms from the start: status) ${m.attempts}`);
  }
  const caught = events.filter((e) => e.kind === 'caught');
  if (caught.length) log(`${caught.length} errors at the Catch node, first: ${JSON.stringify(caught[0])}`);
  results.errors = caught.length;
} finally {
  await host?.call('stop').catch(() => undefined);
  await host?.stop();
  proxy?.close();
  await sim.call('stop').catch(() => undefined);
  await sim.stop();
}

if (opt.profile && existsSync(profileFile)) {
  const profile = JSON.parse(readFileSync(profileFile, 'utf8'));
  // beside the profile: its clock anchor and the bursts, to read other windows of it later (bench/profile-burst.mjs)
  writeFileSync(`${profileFile}.json`, JSON.stringify({ anchor, bursts: results }));
  // from the start instant to the last start message at create channel, then to the last channel request
  for (const [k, r] of results.entries()) {
    const at = Date.parse(r.startInstant);
    const phases = [
      ['start instant -> last start message at create channel', at, at + r.startMessageAtCreateChannelMs.last + 1],
      [
        'last start message -> last channel request',
        at + r.startMessageAtCreateChannelMs.last,
        at + r.channelRequestMs.last + 1,
      ],
    ];
    for (const [label, fromMs, toMs] of phases) {
      const w = profileWindow(profile, { fromMs, toMs, anchor, top: 25 });
      r.profile = { ...(r.profile ?? {}), [label]: w };
      if (opt.json) continue;
      console.log(
        `\nburst ${k + 1} (${r.burst}), ${label}: ${fmt(w.windowMs)} ms, ${fmt(w.sampledMs)} ms sampled, idle ${fmt(w.idleMs)} ms`,
      );
      console.log(`  by area: ${w.areas.map((a) => `${a.area} ${fmt(a.ms)}`).join(', ')}`);
      console.log(`  inclusive: ${w.inclusive.map((f) => `${f.fn} ${fmt(f.ms)}`).join('\n             ')}`);
      console.log(
        `  self: ${w.self
          .slice(0, 12)
          .map((f) => `${f.fn} ${fmt(f.ms)}`)
          .join('\n        ')}`,
      );
    }
  }
  console.log(`\nprofile: ${profileFile}`);
}

const clean = results.filter((r) => !r.faults);
const faulted = results.filter((r) => r.faults);
const verdict = {
  goalMet: clean.every((r) => r.channelRequestMs.last !== null && r.channelRequestMs.last <= GOAL_MS),
  allCreatedInTime: results.every((r) => r.createdBeforeWindowEnd === N),
  allStoppedAndFollowedUp: results.every((r) => r.stops === N && r.followups === N),
  missed: results.reduce((n, r) => n + r.missed, 0),
  maxPerScheduleDelayWithFaultsMs: faulted.length ? Math.max(...faulted.map((r) => r.perScheduleDelayMs.last)) : null,
  errors: results.errors ?? 0,
};
if (opt.json) {
  process.stdout.write(`${JSON.stringify({ schedules: N, nodeRed, bursts: results, verdict })}\n`);
} else {
  console.log(
    `Top of the hour: ${N} schedules starting at the same second (Node-RED ${nodeRed}, Node ${process.version}); times in ms from the start instant (stops: from the end)`,
  );
  console.log(
    '| burst | start msg at create channel first/median/last | channel request first/median/last | created before end | channel per schedule (max) | stop first/median/last | follow-ups | peak CPU (core share) | heap before -> peak MB | loop delay max |',
  );
  console.log('|---|---|---|---|---|---|---|---|---|---|');
  const s = (x) => `${fmt(x.first)} / ${fmt(x.median)} / ${fmt(x.last)}`;
  results.forEach((r, k) => {
    console.log(
      `| ${k + 1} ${r.burst}${r.faults ? ` (429 to 1 in 3: ${r.channelRequests429} of ${r.channelRequests} channel requests)` : ''} | ${s(r.startMessageAtCreateChannelMs)} | ${s(r.channelRequestMs)} | ${r.createdBeforeWindowEnd}/${N} | ${fmt(r.perScheduleDelayMs.last)} | ${s(r.stopMs)} | ${r.followups}/${N} | ${fmt(r.peakCpuShare)} | ${fmt(r.heapBeforeMB)} -> ${fmt(r.peakHeapMB)} | ${fmt(r.loopDelayMaxMs)} |`,
    );
  });
  console.log(
    `Goal: every channel request within ${GOAL_MS} ms of the start without faults: ${verdict.goalMet ? 'met' : 'NOT met'}; ` +
      `every channel created before its window's end: ${verdict.allCreatedInTime ? 'yes' : 'NO'}; every window stopped and followed up: ${verdict.allStoppedAndFollowedUp ? 'yes' : 'NO'}; ` +
      `with faults the longest any schedule waited for its channel: ${fmt(verdict.maxPerScheduleDelayWithFaultsMs)} ms; missed windows: ${verdict.missed}; errors at the Catch node: ${verdict.errors}`,
  );
}
process.exitCode = verdict.allCreatedInTime && verdict.allStoppedAndFollowedUp && verdict.errors === 0 ? 0 : 1;

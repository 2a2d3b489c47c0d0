// A real Node-RED runtime embedded in this process (require('node-red'), or
// the one at $BENCH_NODE_RED: another version, e.g. 4.1 on Node.js 20;
// RED.init + RED.start), loading @media-spaces/node-red from a user
// directory the way an installed package is loaded, with the bench flows:
//   ours:  [driver] -> media-spaces-submit-job -> counter (function)
//   core:  [driver] -> function (build request) -> http request -> json -> counter
//   thin:  [driver] -> bench-thin-submit (raw undici in a bare node) -> counter
//   list:  [driver] -> media-spaces-list-workflows (mode all) -> counter
//   watch: [driver] -> media-spaces-follow-job -> counter
// Each flow has a Catch node feeding a failure counter, so no message is lost.
// Driven over IPC by bench/run.mjs.
import { randomUUID } from 'node:crypto';
import diagnostics from 'node:diagnostics_channel';
import { rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import { createRequire } from 'node:module';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import {
  AllocationMeter,
  BENCH_DIR,
  cpuMs,
  embeddedSettings,
  gc,
  installedUserDir,
  PeakHeap,
  ROOT,
  serveRpc,
  sleep,
  startHeapSampling,
  startProfile,
} from '../lib/common.mjs';

const require = createRequire(import.meta.url);

let RED;
let userDir;
let server;
/** Callbacks the counter function nodes call through the global context. */
const sinks = { done: {}, failed: {} };

function settings(extra) {
  return {
    ...embeddedSettings(userDir),
    functionGlobalContext: { randomUUID },
    nodesDir: [path.join(BENCH_DIR, 'fixtures', 'thin-node')],
    ...extra,
  };
}

/**
 * The counter at the end of a flow: a core change node with no rules (the
 * cheapest core node that takes input). The harness adds its own input
 * listener to it: the callback that counts and feeds the next message.
 */
function counter(id, z, flow) {
  counters.set(id, flow);
  return {
    id,
    z,
    type: 'change',
    name: `count ${flow}`,
    rules: [],
    x: 500,
    y: 100,
    wires: [],
  };
}
const counters = new Map();
const failCounters = new Map();

function catcher(id, z, flow, scope) {
  failCounters.set(`${id}-count`, flow);
  return [
    { id, z, type: 'catch', name: '', scope, uncaught: false, x: 100, y: 300, wires: [[`${id}-count`]] },
    { ...counter(`${id}-count`, z, flow), name: `failed ${flow}` },
  ];
}

function flows({ info, ids, watch }) {
  const z = 'bench-tab';
  const at = { z, x: 200, y: 100 };
  const submitUrl = `${info.workflow_url}/workflow/v1/${ids.benchSpace}/workflows/${ids.submitWorkflow}/jobs`;
  return [
    { id: z, type: 'tab', label: 'bench' },
    {
      id: 'cfg',
      type: 'media-spaces-config',
      name: 'bench',
      workflowUrl: info.workflow_url,
      liveCaptureUrl: info.livecapture_url,
      spaceId: ids.benchSpace,
      workflowPrefix: '/workflow/v1',
      timeout: 30000,
      retries: 0,
    },
    {
      id: 'cfg-pages',
      type: 'media-spaces-config',
      name: 'pages',
      workflowUrl: info.workflow_url,
      liveCaptureUrl: info.livecapture_url,
      spaceId: ids.pagesSpace,
      workflowPrefix: '/workflow/v1',
      timeout: 30000,
      retries: 0,
    },
    // ours
    {
      id: 'ms-submit',
      ...at,
      type: 'media-spaces-submit-job',
      name: '',
      server: 'cfg',
      workflowId: ids.submitWorkflow,
      workflowIdType: 'str',
      jobName: '',
      inputs: '',
      inputsType: 'json',
      wires: [['ms-count']],
    },
    counter('ms-count', z, 'ours'),
    ...catcher('ms-catch', z, 'ours', ['ms-submit']),
    // core
    {
      id: 'core-build',
      ...at,
      type: 'function',
      name: 'build request',
      func: [
        `msg.url = ${JSON.stringify(submitUrl)};`,
        `msg.method = 'POST';`,
        'msg.headers = {',
        `  accept: 'application/json',`,
        `  authorization: 'Bearer ${ids.keys.admin}',`,
        `  'content-type': 'application/json',`,
        `  'idempotency-key': global.get('randomUUID')(),`,
        '};',
        'return msg;',
      ].join('\n'),
      outputs: 1,
      noerr: 0,
      initialize: '',
      finalize: '',
      libs: [],
      wires: [['core-http']],
    },
    {
      id: 'core-http',
      ...at,
      type: 'http request',
      name: '',
      method: 'use',
      ret: 'txt',
      paytoqs: 'ignore',
      url: '',
      tls: '',
      persist: true,
      proxy: '',
      insecureHTTPParser: false,
      authType: '',
      senderr: false,
      headers: [],
      wires: [['core-json']],
    },
    {
      id: 'core-json',
      ...at,
      type: 'json',
      name: '',
      property: 'payload',
      action: 'obj',
      pretty: false,
      wires: [['core-count']],
    },
    counter('core-count', z, 'core'),
    ...catcher('core-catch', z, 'core', ['core-build', 'core-http', 'core-json']),
    // thin: raw undici in the thinnest possible node (bench/fixtures/thin-node)
    {
      id: 'thin-submit',
      ...at,
      type: 'bench-thin-submit',
      name: '',
      url: submitUrl,
      apiKey: ids.keys.admin,
      wires: [['thin-count']],
    },
    counter('thin-count', z, 'thin'),
    ...catcher('thin-catch', z, 'thin', ['thin-submit']),
    // list
    {
      id: 'ms-list',
      ...at,
      type: 'media-spaces-list-workflows',
      name: '',
      server: 'cfg-pages',
      mode: 'all',
      status: '',
      maxResults: '100',
      wires: [['list-count']],
    },
    counter('list-count', z, 'list'),
    ...catcher('list-catch', z, 'list', ['ms-list']),
    // watch
    {
      id: 'ms-watch',
      ...at,
      type: 'media-spaces-follow-job',
      name: '',
      server: 'cfg',
      interval: String(watch.intervalMs),
      backoffMax: '',
      concurrency: String(watch.concurrency),
      timeout: '',
      wires: [['watch-count'], ['watch-progress']],
    },
    counter('watch-count', z, 'watch'),
    counter('watch-progress', z, 'watch-progress'),
    ...catcher('watch-catch', z, 'watch', ['ms-watch']),
  ];
}

async function start(args) {
  // packageRoot: another build of the package (to measure a candidate fix); default this checkout
  userDir = installedUserDir('ms-bench-nr-', args.packageRoot ?? ROOT);
  writeFileSync(path.join(userDir, 'flows.json'), JSON.stringify(flows(args)));
  writeFileSync(
    path.join(userDir, 'flows_cred.json'),
    JSON.stringify({
      cfg: { apiKey: args.ids.keys.admin, accessToken: args.ids.keys.token },
      'cfg-pages': { apiKey: args.ids.pageKeys.admin, accessToken: args.ids.pageKeys.token },
    }),
  );
  RED = require(process.env.BENCH_NODE_RED || 'node-red');
  server = http.createServer();
  RED.init(server, settings());
  await RED.start();
  // flows start asynchronously after start() resolves
  for (let i = 0; i < 200 && !RED.nodes.getNode('ms-watch'); i++) await sleep(25);
  const missing = ['ms-submit', 'core-http', 'thin-submit', 'ms-list', 'ms-watch'].filter(
    (id) => !RED.nodes.getNode(id),
  );
  if (missing.length > 0) throw new Error(`flows did not start; missing ${missing.join(', ')}`);
  for (const [id, flow] of counters) {
    if (failCounters.has(id)) continue;
    RED.nodes.getNode(id).on('input', (msg) => sinks.done[flow]?.(msg));
  }
  for (const [id, flow] of failCounters) RED.nodes.getNode(id).on('input', (msg) => sinks.failed[flow]?.(msg));
  return { nodeRed: RED.version() };
}

function submitBody(i) {
  return {
    job_name: `bench job ${i}`,
    usage: { input: { variables: [{ name: 'Priority', typecode: 'Byte', value: '5' }] } },
  };
}

/**
 * Sends `n` messages into the flow's first node, keeping exactly
 * `concurrency` in flight: `concurrency` at once, then one more each time the
 * counter (or the Catch) at the end of the flow sees one finish.
 */
function drive(flow, entryId, n, concurrency, makeMsg) {
  const entry = RED.nodes.getNode(entryId);
  return new Promise((resolve) => {
    let sent = 0;
    let finished = 0;
    let failed = 0;
    let firstError;
    const cpu0 = process.cpuUsage();
    const t0 = performance.now();
    const next = () => {
      sent++;
      entry.receive(makeMsg(sent));
    };
    const end = () => {
      finished++;
      if (sent < n) next();
      else if (finished === n) {
        const elapsedMs = performance.now() - t0;
        const cpu = cpuMs(cpu0);
        sinks.done[flow] = undefined;
        sinks.failed[flow] = undefined;
        resolve({ n, elapsedMs, rps: (n * 1000) / elapsedMs, cpuMs: cpu, failed, firstError });
      }
    };
    sinks.done[flow] = (msg) => {
      if (msg.statusCode !== 200) {
        failed++;
        firstError ??= `status ${msg.statusCode}: ${String(msg.payload).slice(0, 200)}`;
      }
      end();
    };
    sinks.failed[flow] = (msg) => {
      failed++;
      firstError ??= JSON.stringify(msg.error ?? msg._error ?? null).slice(0, 300);
      end();
    };
    for (let i = 0; i < Math.min(concurrency, n); i++) next();
  });
}

async function throughput({ flow, n, concurrency, warmup = 0, allocations = true, profile, heapProfile }) {
  const entryId = { ours: 'ms-submit', core: 'core-build', thin: 'thin-submit' }[flow];
  const makeMsg = (i) => ({ payload: submitBody(i) });
  if (warmup > 0) await drive(flow, entryId, warmup, concurrency, makeMsg);
  const meter = new AllocationMeter();
  if (allocations) meter.start();
  const stopProfile = profile ? await startProfile() : undefined;
  const stopHeap = heapProfile ? await startHeapSampling() : undefined;
  // the run's bounds on the clock of a --cpu-prof profile (microseconds), to cut the profile to it
  const fromUs = Number(process.hrtime.bigint() / 1000n);
  const result = await drive(flow, entryId, n, concurrency, makeMsg);
  result.window = { fromUs, toUs: Number(process.hrtime.bigint() / 1000n) };
  if (stopProfile) result.profile = await stopProfile(profile);
  if (stopHeap) result.heapProfile = await stopHeap(heapProfile);
  if (allocations) Object.assign(result, meter.stop());
  return result;
}

/**
 * One input to the list-workflows node (mode all). Memory: the heap held when
 * the output message arrives (a full collection first, with the message
 * still referenced), and the peak seen on the way (garbage included).
 */
async function listAll({ profile } = {}) {
  let count = 0;
  let liveAtEnd = Number.NaN;
  const requests = countRequests();
  gc();
  const base = process.memoryUsage().heapUsed;
  const peak = new PeakHeap();
  peak.start();
  const stopProfile = profile ? await startProfile() : undefined;
  const t0 = performance.now();
  const cpu0 = process.cpuUsage();
  const result = await new Promise((resolve) => {
    const entry = RED.nodes.getNode('ms-list');
    sinks.done.list = (msg) => {
      const elapsedMs = performance.now() - t0;
      const cpu = cpuMs(cpu0);
      count = Array.isArray(msg.payload) ? msg.payload.length : -1;
      gc();
      liveAtEnd = process.memoryUsage().heapUsed - base;
      resolve({ statusCode: msg.statusCode, elapsedMs, cpuMs: cpu, held: msg.payload });
    };
    sinks.failed.list = (msg) => resolve({ error: JSON.stringify(msg.error ?? null).slice(0, 300) });
    entry.receive({ payload: null });
  });
  if (stopProfile) await stopProfile(profile);
  const mem = peak.stop();
  const req = requests.stop();
  sinks.done.list = undefined;
  sinks.failed.list = undefined;
  const { held: _held, ...rest } = result;
  return { ...rest, workflows: count, requests: req.total, liveAtEnd, ...mem };
}

/** Counts this process's undici requests (any dispatcher) through undici's diagnostics channel. */
function countRequests({ record = true } = {}) {
  const channel = diagnostics.channel('undici:request:create');
  let total = 0;
  const byPath = new Map();
  const onCreate = ({ request }) => {
    total++;
    if (!record) return;
    // the follower's own clock (Date.now(), whole ms), so that gaps compare like for like
    const at = Date.now();
    const list = byPath.get(request.path);
    if (list) list.push(at);
    else byPath.set(request.path, [at]);
  };
  channel.subscribe(onCreate);
  return {
    get total() {
      return total;
    },
    byPath,
    stop() {
      channel.unsubscribe(onCreate);
      return { total, byPath };
    },
  };
}

/**
 * The most requests any one job got inside any window of `windowMs`, and the
 * shortest gap between two requests for the same job. Times are whole
 * milliseconds (Date.now(), the follower's clock) read when undici creates
 * the request, a little after the follower's own reading (it starts up to
 * `concurrency` requests per reading): a gap can look a few ms short, so a
 * window is `windowMs` less max(5 ms, 0.5 %).
 */
function pollSpacing(byPath, windowMs, from, to) {
  const slack = Math.max(5, windowMs * 0.005);
  let max = 0;
  let minGap = Number.POSITIVE_INFINITY;
  for (const times of byPath.values()) {
    const ts = times.filter((t) => t >= from && t < to);
    let lo = 0;
    for (let hi = 0; hi < ts.length; hi++) {
      if (hi > 0) minGap = Math.min(minGap, ts[hi] - ts[hi - 1]);
      while (ts[hi] - ts[lo] >= windowMs - slack) lo++;
      max = Math.max(max, hi - lo + 1);
    }
  }
  return { max, minGap };
}

/**
 * Follows `jobs` with the follow-job node: all messages at once, then
 * measures `intervals` whole intervals after the first round of reads.
 */
async function watch({ jobs, warmupJobs = [], intervalMs, intervals, profile, heapProfile }) {
  const entry = RED.nodes.getNode('ms-watch');
  let done = 0;
  let failed = 0;
  let progress = 0;
  let firstError;
  sinks.done.watch = () => done++;
  sinks.done['watch-progress'] = () => progress++;
  sinks.failed.watch = (msg) => {
    failed++;
    firstError ??= JSON.stringify(msg.error ?? null).slice(0, 300);
  };
  // warm-up: a few jobs that end on their first read, so that one-off lazy loads
  // (modules, compiled code) are not counted as the followed jobs' heap
  for (const j of warmupJobs) entry.receive({ payload: { id: j.id, workflow_id: j.workflow_id, state: 'created' } });
  const warmDeadline = performance.now() + 15_000;
  while (done + failed < warmupJobs.length && performance.now() < warmDeadline) await sleep(10);
  if (done < warmupJobs.length) throw new Error(`watch warm-up: ${done} of ${warmupJobs.length} jobs done`);
  done = 0;
  const messages = jobs.map((j) => ({ payload: { id: j.id, workflow_id: j.workflow_id, state: 'created' } }));
  // the messages exist before the baseline: what is measured is what following them adds
  gc();
  const heapBefore = process.memoryUsage().heapUsed;
  const firstRound = countRequests({ record: false });
  const stopHeap = heapProfile ? await startHeapSampling(512, { liveOnly: true }) : undefined;
  const tFollow = performance.now();
  const cpu0 = process.cpuUsage();
  for (const msg of messages) entry.receive(msg);
  const followCpuMs = cpuMs(cpu0);
  // let the first round of reads finish (they start at once, `concurrency` at a time)
  const firstRoundDeadline = tFollow + intervalMs;
  while (firstRound.total < jobs.length && performance.now() < firstRoundDeadline + 30_000) await sleep(20);
  const firstRoundMs = performance.now() - tFollow;
  firstRound.stop();
  gc();
  const heapFollowing = process.memoryUsage().heapUsed;
  if (stopHeap) await stopHeap(heapProfile);
  // measure from the next interval boundary on
  const startAt = Math.max(performance.now(), tFollow + intervalMs);
  await sleep(startAt - performance.now());
  const requests = countRequests();
  const reqStart = requests.total;
  const stopProfile = profile ? await startProfile() : undefined;
  const c0 = process.cpuUsage();
  const w0 = performance.now();
  const wallStart = Date.now();
  await sleep(intervalMs * intervals);
  const windowCpu = process.cpuUsage(c0);
  const windowCpuMs = (windowCpu.user + windowCpu.system) / 1000;
  if (stopProfile) await stopProfile(profile);
  const windowMs = performance.now() - w0;
  const reqs = requests.total - reqStart;
  const spacing = pollSpacing(requests.byPath, intervalMs, wallStart, wallStart + windowMs);
  requests.stop();
  const memory = process.memoryUsage();
  // the jobs stay followed until stop() closes the runtime
  return {
    jobs: jobs.length,
    heapPerJob: (heapFollowing - heapBefore) / jobs.length,
    followCpuMs,
    firstRoundMs,
    windowMs,
    windowCpuMs,
    windowSystemMs: windowCpu.system / 1000,
    requests: reqs,
    requestsPerJobPerInterval: reqs / jobs.length / (windowMs / intervalMs),
    maxInInterval: spacing.max,
    minGapMs: spacing.minGap,
    done,
    failed,
    progress,
    firstError,
    rss: memory.rss,
  };
}

/** Heap taken by the messages alone (the same shape the watch bench sends), per message. */
function messageHeap({ jobs }) {
  gc();
  const before = process.memoryUsage().heapUsed;
  // a JSON round trip gives each message its own strings, as messages from a flow have
  const held = JSON.parse(
    JSON.stringify(
      jobs.map((j) => ({
        payload: { id: j.id, workflow_id: j.workflow_id, state: 'created' },
        _msgid: randomUUID().slice(0, 16),
      })),
    ),
  );
  gc();
  const after = process.memoryUsage().heapUsed;
  return { perMessage: (after - before) / held.length, kept: held.length };
}

async function stop() {
  try {
    await RED?.stop();
  } finally {
    server?.close();
    if (userDir) rmSync(userDir, { recursive: true, force: true });
  }
  return true;
}

serveRpc({ start, throughput, listAll, watch, messageHeap, stop });

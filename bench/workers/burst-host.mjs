// A real Node-RED runtime embedded in this process for bench/top-of-hour.mjs:
// N schedule nodes, each with the demo's wiring
//   schedule -1-> create-channel -1-> schedule (the channel routed back)
//   schedule -2-> submit-job                  (the end: stop, then follow-up)
// and a Catch node for the tab. The harness is told over IPC when each start
// message reaches its create-channel node and when each end and follow-up
// leaves, with the time read here (same machine, same wall clock). CPU and
// heap are sampled every 10 ms into a ring that the harness reads around a
// burst.
import { rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import { createRequire } from 'node:module';
import path from 'node:path';
import { monitorEventLoopDelay, performance } from 'node:perf_hooks';
import { embeddedSettings, installedUserDir, serveRpc, sleep } from '../lib/common.mjs';

const require = createRequire(import.meta.url);
const nowMs = () => performance.timeOrigin + performance.now();

let RED;
let userDir;
let server;
let sampler;
const samples = [];
const SAMPLE_MS = 10;
const SAMPLES_KEPT = 12_000;
const loopDelay = monitorEventLoopDelay({ resolution: 1 });

function startSampler() {
  let last = process.cpuUsage();
  let lastAt = nowMs();
  sampler = setInterval(() => {
    const cpu = process.cpuUsage();
    const at = nowMs();
    const usedUs = cpu.user - last.user + (cpu.system - last.system);
    samples.push({ at, cpuShare: usedUs / 1000 / (at - lastAt), heapUsed: process.memoryUsage().heapUsed });
    if (samples.length > SAMPLES_KEPT) samples.splice(0, samples.length - SAMPLES_KEPT);
    last = cpu;
    lastAt = at;
  }, SAMPLE_MS);
  sampler.unref();
}

const Z = 'burst-tab';
const at = { z: Z, x: 200, y: 100 };

function flows({ info, liveCaptureUrl, spaceId, yamls }) {
  const nodes = [
    { id: Z, type: 'tab', label: 'top of the hour' },
    {
      id: 'burst-cfg',
      type: 'media-spaces-config',
      name: 'burst space',
      workflowUrl: info.workflow_url,
      liveCaptureUrl,
      spaceId,
      workflowPrefix: '/workflow/v1',
      timeout: 30000,
      retries: 3,
      rejectUnauthorized: true,
    },
    { id: 'burst-catch', ...at, type: 'catch', name: '', scope: null, uncaught: false, wires: [['tap-caught']] },
    { id: 'tap-caught', ...at, type: 'change', name: '', rules: [], wires: [] },
    { id: 'tap-control', ...at, type: 'change', name: '', rules: [], wires: [] },
  ];
  yamls.forEach((yaml, i) => {
    nodes.push(
      {
        id: `sched-${i}`,
        ...at,
        type: 'media-spaces-schedule',
        name: `schedule ${i}`,
        source: 'yaml',
        yaml,
        scheduleId: `s${i}`,
        catchUp: false,
        server: 'burst-cfg',
        coordination: '',
        wires: [[`cc-${i}`], [`submit-${i}`], ['tap-control']],
      },
      {
        id: `cc-${i}`,
        ...at,
        type: 'media-spaces-create-channel',
        name: '',
        server: 'burst-cfg',
        watchState: true,
        wires: [[`sched-${i}`], []],
      },
      {
        id: `submit-${i}`,
        ...at,
        type: 'media-spaces-submit-job',
        name: '',
        server: 'burst-cfg',
        workflowId: '',
        workflowIdType: 'str',
        wires: [[]],
      },
    );
  });
  return nodes;
}

const emit = (event) => process.send({ event });
const slotOf = (msg) => (typeof msg?.window?.slotKey === 'string' ? msg.window.slotKey : undefined);

async function start(args) {
  // packageRoot: another build of the package (to compare two commits); default this checkout
  userDir = installedUserDir('ms-burst-nr-', args.packageRoot);
  writeFileSync(path.join(userDir, 'flows.json'), JSON.stringify(flows(args)));
  writeFileSync(
    path.join(userDir, 'flows_cred.json'),
    JSON.stringify({ 'burst-cfg': { apiKey: args.keys.admin, accessToken: args.keys.token } }),
  );
  RED = require('node-red');
  server = http.createServer();
  // journal: false only to measure what the schedules' synchronous state journal costs the start path
  RED.init(server, {
    ...embeddedSettings(userDir),
    ...(args.journal === false ? { mediaSpaces: { journal: false } } : {}),
  });
  await RED.start();
  const n = args.yamls.length;
  for (let i = 0; i < 400 && !RED.nodes.getNode(`submit-${n - 1}`); i++) await sleep(25);
  for (let i = 0; i < n; i++) {
    const cc = RED.nodes.getNode(`cc-${i}`);
    const schedule = RED.nodes.getNode(`sched-${i}`);
    const submit = RED.nodes.getNode(`submit-${i}`);
    if (!cc || !schedule || !submit) throw new Error(`flows did not start: schedule ${i} incomplete`);
    // the start message reaching create channel (not the channel coming back, which carries payload.id)
    cc.on('input', (msg) => {
      if (msg?.payload?.id === undefined) emit({ kind: 'start', schedule: i, slot: slotOf(msg), at: nowMs() });
    });
    submit.on('input', (msg) => emit({ kind: 'end', schedule: i, slot: slotOf(msg), at: nowMs() }));
  }
  RED.nodes.getNode('tap-control').on('input', (msg) => {
    if (msg.topic === 'missed')
      emit({ kind: 'missed', slot: msg.payload?.slot, reason: msg.payload?.reason, at: nowMs() });
  });
  RED.nodes.getNode('tap-caught').on('input', (msg) =>
    emit({
      kind: 'caught',
      source: msg.error?.source?.type,
      message: String(msg.error?.message ?? '').slice(0, 300),
    }),
  );
  startSampler();
  loopDelay.enable();
  // the clock of --cpu-prof's timestamps, read with the wall clock, for bench/lib/profile-window.mjs
  const anchor = { hrtimeUs: Number(process.hrtime.bigint() / 1000n), epochMs: nowMs() };
  return { nodeRed: RED.version(), anchor };
}

/** CPU share (of one core) and heap sampled between `from` and `to` (epoch ms), and the loop's worst delay since the last call. */
function window({ from, to }) {
  const inRange = samples.filter((s) => s.at >= from && s.at <= to);
  const delay = { maxMs: loopDelay.max / 1e6, p99Ms: loopDelay.percentile(99) / 1e6 };
  loopDelay.reset();
  return { samples: inRange, loopDelay: delay };
}

async function stop() {
  clearInterval(sampler);
  if (RED) {
    await RED.stop();
    server?.close();
  }
  if (userDir) rmSync(userDir, { recursive: true, force: true });
  return true;
}

serveRpc({ start, window, stop });

// Shared helpers of the benchmark: statistics, the simulator child, the
// fixture, child-process RPC and an allocation meter. Plain ESM, Node 20.
import { fork, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import inspector from 'node:inspector';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import v8 from 'node:v8';

export const BENCH_DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
export const ROOT = path.resolve(BENCH_DIR, '..');
export const DIST = path.join(ROOT, 'dist');

// ------------------------------------------------------------------ numbers

export function median(values) {
  const xs = values.filter((v) => Number.isFinite(v)).sort((a, b) => a - b);
  if (xs.length === 0) return Number.NaN;
  const mid = Math.floor(xs.length / 2);
  return xs.length % 2 ? xs[mid] : (xs[mid - 1] + xs[mid]) / 2;
}

export function round(value, digits = 3) {
  if (!Number.isFinite(value)) return value;
  const f = 10 ** digits;
  return Math.round(value * f) / f;
}

/** A number for the table: 3 significant digits, thousands kept whole. */
export function fmt(value) {
  if (value === null || value === undefined) return '-';
  if (typeof value !== 'number') return String(value);
  if (!Number.isFinite(value)) return String(value);
  const abs = Math.abs(value);
  if (abs >= 1000) return Math.round(value).toLocaleString('en-US');
  if (abs >= 100) return value.toFixed(0);
  if (abs >= 10) return value.toFixed(1);
  if (abs >= 1) return value.toFixed(2);
  if (abs === 0) return '0';
  return value.toPrecision(2);
}

export const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

// ------------------------------------------------------------------ fixture

/** Ids derived the same way as lib/simulator's fixture builders (so workers can recompute them). */
export async function fixtureIds() {
  const sim = await import(path.join(DIST, 'lib/simulator/index.js'));
  const mod = sim.default ?? sim;
  return {
    benchSpace: mod.spaceIdFor('bench'),
    pagesSpace: mod.spaceIdFor('pages'),
    keys: mod.credentialsFor('bench'),
    pageKeys: mod.credentialsFor('pages'),
    submitWorkflow: mod.workflowIdFor('bench-submit'),
    followWorkflow: mod.workflowIdFor('bench-follow'),
    quickWorkflow: mod.workflowIdFor('bench-quick'),
  };
}

/**
 * Two spaces: "bench" with an active workflow taking one Byte variable (the
 * submit target), one whose jobs run for 10 minutes (followed jobs stay in
 * progress while measured) and one whose jobs end at once (warm-up of the
 * follow-job node); and "pages" with exactly `pageWorkflows` generated workflows
 * for the paging figure.
 */
export async function writeFixture(pageWorkflows) {
  const sim = await import(path.join(DIST, 'lib/simulator/index.js'));
  const mod = sim.default ?? sim;
  const doc = mod.fixtureDocument(
    mod.fixtureSpace('bench', {
      workflows: [
        mod.fixtureWorkflow('bench-submit', {
          job_duration_ms: 600_000,
          inputs: { variables: [{ name: 'Priority', typecode: 'Byte', default: '5' }] },
        }),
        mod.fixtureWorkflow('bench-follow', { job_duration_ms: 600_000 }),
        mod.fixtureWorkflow('bench-quick', { job_duration_ms: 0 }),
      ],
    }),
    mod.fixtureSpace('pages', { generate: { count: pageWorkflows, seed: 7 } }),
  );
  const dir = mkdtempSync(path.join(tmpdir(), 'ms-bench-'));
  const file = path.join(dir, 'fixture.yaml');
  // JSON is YAML
  writeFileSync(file, JSON.stringify(doc, null, 1));
  return { dir, file };
}

// ------------------------------------------------------------------ embedded Node-RED

/**
 * A fresh Node-RED user directory with the package installed the way
 * `npm install @media-spaces/node-red` would (userDir/node_modules/<name>, here a link to
 * `packageRoot`, this checkout unless another build is measured).
 */
export function installedUserDir(prefix, packageRoot = ROOT) {
  const userDir = mkdtempSync(path.join(tmpdir(), prefix));
  mkdirSync(path.join(userDir, 'node_modules', '@media-spaces'), { recursive: true });
  symlinkSync(packageRoot, path.join(userDir, 'node_modules', '@media-spaces', 'node-red'), 'dir');
  writeFileSync(
    path.join(userDir, 'package.json'),
    JSON.stringify({ name: 'bench-user', dependencies: { '@media-spaces/node-red': '*' } }),
  );
  return userDir;
}

/** Settings of an embedded Node-RED for measuring: no editor, no telemetry, quiet logs. */
export function embeddedSettings(userDir) {
  return {
    userDir,
    flowFile: 'flows.json',
    credentialSecret: false,
    httpAdminRoot: '/admin',
    httpNodeRoot: false,
    disableEditor: true,
    uiPort: 0,
    logging: { console: { level: 'warn', metrics: false, audit: false } },
    editorTheme: { tours: false },
    diagnostics: { enabled: false },
    runtimeState: { enabled: false },
    telemetry: { enabled: false },
    externalModules: { autoInstall: false, palette: { allowInstall: false }, modules: { allowInstall: false } },
  };
}

// ------------------------------------------------------------------ simulator child

/** `node dist/lib/simulator/cli.js --port 0 --json --fixture FILE` in its own process. */
export function startSimulatorProcess(fixtureFile) {
  const child = spawn(
    process.execPath,
    [path.join(DIST, 'lib/simulator/cli.js'), '--port', '0', '--json', '--fixture', fixtureFile],
    { stdio: ['ignore', 'pipe', 'inherit'] },
  );
  return new Promise((resolve, reject) => {
    let buf = '';
    const onData = (chunk) => {
      buf += chunk;
      const nl = buf.indexOf('\n');
      if (nl < 0) return;
      child.stdout.off('data', onData);
      child.stdout.resume();
      try {
        const info = JSON.parse(buf.slice(0, nl));
        resolve({
          info,
          pid: child.pid,
          child,
          async stop() {
            if (child.exitCode !== null) return;
            const exited = new Promise((r) => child.once('exit', r));
            child.kill('SIGTERM');
            await Promise.race([exited, sleep(3000)]);
            if (child.exitCode === null) child.kill('SIGKILL');
          },
        });
      } catch (err) {
        reject(new Error(`simulator printed no JSON line: ${buf.slice(0, 200)} (${err.message})`));
      }
    };
    child.stdout.setEncoding('utf8');
    child.stdout.on('data', onData);
    child.once('exit', (code) => reject(new Error(`simulator exited with ${code} before starting`)));
  });
}

/** bench/fixtures/bare-server.mjs in its own process: the ceiling of node:http on this machine. */
export function startBareServer() {
  const child = spawn(process.execPath, [path.join(BENCH_DIR, 'fixtures/bare-server.mjs')], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  return new Promise((resolve, reject) => {
    child.stdout.setEncoding('utf8');
    child.stdout.once('data', (line) => {
      try {
        const { port } = JSON.parse(line);
        resolve({ url: `http://127.0.0.1:${port}`, pid: child.pid, stop: () => child.kill('SIGTERM') });
      } catch (err) {
        reject(new Error(`bare server printed no port: ${line.slice(0, 200)} (${err.message})`));
      }
    });
    child.once('exit', (code) => reject(new Error(`bare server exited with ${code} before starting`)));
  });
}

/** CPU time (user+system, ms) of a process, from /proc (Linux). */
export function processCpuMs(pid) {
  try {
    const stat = readProcStat(pid);
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    // utime, stime are fields 14 and 15 (1-based) of /proc/PID/stat; after the comm field, indices 11, 12
    const ticks = Number(fields[11]) + Number(fields[12]);
    return (ticks * 1000) / CLOCK_TICKS;
  } catch {
    return Number.NaN;
  }
}
const CLOCK_TICKS = 100;
function readProcStat(pid) {
  return readFileSync(`/proc/${pid}/stat`, 'utf8');
}

// ------------------------------------------------------------------ admin API of the simulator

export async function admin(info, method, route, body) {
  const res = await fetch(`${info.admin_url}${route}`, {
    method,
    headers: body === undefined ? {} : { 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  if (res.status >= 400) throw new Error(`admin ${method} ${route}: ${res.status} ${text.slice(0, 200)}`);
  return text ? JSON.parse(text) : undefined;
}

// ------------------------------------------------------------------ child RPC

/**
 * Forks a worker script that answers `{id, cmd, args}` with `{id, result}` or
 * `{id, error}` (see serveRpc), and passes `{event}` messages the worker sends
 * on its own to `onEvent`. Returns call(cmd, args) and stop().
 */
export function forkWorker(script, { execArgv = [], env = {}, args = [], onEvent } = {}) {
  const child = fork(script, args, {
    execArgv: ['--expose-gc', ...execArgv],
    env: { ...process.env, ...env },
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  let seq = 0;
  const pending = new Map();
  child.on('message', (m) => {
    if (m?.event !== undefined) return onEvent?.(m.event);
    const p = pending.get(m?.id);
    if (!p) return;
    pending.delete(m.id);
    if (m.error) p.reject(new Error(`${path.basename(script)}: ${m.error}`));
    else p.resolve(m.result);
  });
  child.on('exit', (code, signal) => {
    for (const p of pending.values()) p.reject(new Error(`${path.basename(script)} exited (${code ?? signal})`));
    pending.clear();
  });
  return {
    pid: child.pid,
    call(cmd, callArgs = {}) {
      const id = ++seq;
      return new Promise((resolve, reject) => {
        pending.set(id, { resolve, reject });
        child.send({ id, cmd, args: callArgs });
      });
    },
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = new Promise((r) => child.once('exit', r));
      // a worker exits on disconnect (and writes its --cpu-prof profile); signals only if it hangs
      if (child.connected) child.disconnect();
      await Promise.race([exited, sleep(10_000)]);
      if (child.exitCode === null && child.signalCode === null) {
        child.kill('SIGTERM');
        await Promise.race([exited, sleep(3000)]);
      }
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    },
  };
}

/** Worker side of forkWorker: handlers[cmd](args) -> result. */
export function serveRpc(handlers) {
  process.on('message', async (m) => {
    const { id, cmd, args } = m ?? {};
    try {
      const handler = handlers[cmd];
      if (!handler) throw new Error(`unknown command ${cmd}`);
      const result = await handler(args ?? {});
      process.send({ id, result });
    } catch (err) {
      process.send({ id, error: err?.stack ?? String(err) });
    }
  });
  process.on('disconnect', () => process.exit(0));
}

// ------------------------------------------------------------------ memory meters

export function gc() {
  if (typeof globalThis.gc === 'function') {
    globalThis.gc();
    globalThis.gc();
  }
}

/**
 * Bytes allocated on the JS heap between start() and stop(): the heap's
 * growth plus everything the collector freed in between (v8.GCProfiler
 * reports the heap before and after each collection). Per-message heap
 * churn is this divided by the messages handled.
 */
export class AllocationMeter {
  start() {
    gc();
    this.profiler = new v8.GCProfiler();
    this.profiler.start();
    this.startUsed = v8.getHeapStatistics().used_heap_size;
  }

  stop() {
    const endUsed = v8.getHeapStatistics().used_heap_size;
    const data = this.profiler.stop();
    gc();
    const retained = v8.getHeapStatistics().used_heap_size - this.startUsed;
    let freed = 0;
    let peak = Math.max(this.startUsed, endUsed);
    const gcMs = {};
    for (const s of data?.statistics ?? []) {
      const before = s.beforeGC.heapStatistics.usedHeapSize;
      const after = s.afterGC.heapStatistics.usedHeapSize;
      freed += Math.max(0, before - after);
      peak = Math.max(peak, before);
      gcMs[s.gcType] = (gcMs[s.gcType] ?? 0) + s.cost / 1000;
    }
    return {
      allocated: endUsed - this.startUsed + freed,
      peakGrowth: peak - this.startUsed,
      retained,
      gcs: data?.statistics?.length ?? 0,
      gcMs,
    };
  }
}

/**
 * Peak heap growth over a baseline taken after a full collection: sampled
 * every few ms, and from the heap size seen before every collection.
 */
export class PeakHeap {
  start(intervalMs = 2) {
    gc();
    this.base = process.memoryUsage().heapUsed;
    this.baseRss = process.memoryUsage().rss;
    this.peak = this.base;
    this.peakRss = this.baseRss;
    this.profiler = new v8.GCProfiler();
    this.profiler.start();
    this.timer = setInterval(() => this.sample(), intervalMs);
  }

  sample() {
    const m = process.memoryUsage();
    if (m.heapUsed > this.peak) this.peak = m.heapUsed;
    if (m.rss > this.peakRss) this.peakRss = m.rss;
  }

  stop() {
    this.sample();
    clearInterval(this.timer);
    const data = this.profiler.stop();
    for (const s of data?.statistics ?? []) {
      this.peak = Math.max(this.peak, s.beforeGC.heapStatistics.usedHeapSize);
    }
    return { heapGrowth: this.peak - this.base, rssGrowth: this.peakRss - this.baseRss };
  }
}

/** process.cpuUsage() in ms since `since` (a previous cpuUsage value). */
export function cpuMs(since) {
  const d = process.cpuUsage(since);
  return (d.user + d.system) / 1000;
}

// ------------------------------------------------------------------ CPU profiles of one measured window

let session;

/** Starts the V8 CPU profiler in this process (node:inspector), for the measured window only. */
export async function startProfile() {
  session ??= new inspector.Session();
  session.connect?.();
  const post = (method, params) =>
    new Promise((resolve, reject) => session.post(method, params, (err, res) => (err ? reject(err) : resolve(res))));
  await post('Profiler.enable');
  await post('Profiler.setSamplingInterval', { interval: 200 });
  await post('Profiler.start');
  return async (file) => {
    const { profile } = await post('Profiler.stop');
    writeFileSync(file, JSON.stringify(profile));
    session.disconnect();
    session = undefined;
    return file;
  };
}

/**
 * Starts V8's sampling heap profiler (every allocation of about `interval`
 * bytes is recorded with its stack, including objects already collected).
 */
export async function startHeapSampling(interval = 4096, { liveOnly = false } = {}) {
  const s = new inspector.Session();
  s.connect();
  const post = (method, params) =>
    new Promise((resolve, reject) => s.post(method, params, (err, res) => (err ? reject(err) : resolve(res))));
  await post('HeapProfiler.enable');
  await post('HeapProfiler.startSampling', {
    samplingInterval: interval,
    includeObjectsCollectedByMajorGC: !liveOnly,
    includeObjectsCollectedByMinorGC: !liveOnly,
  });
  return async (file) => {
    const { profile } = await post('HeapProfiler.stopSampling');
    writeFileSync(file, JSON.stringify(profile));
    s.disconnect();
    return file;
  };
}

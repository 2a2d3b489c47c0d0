// Baselines in a plain Node.js process: raw undici.request with a keep-alive
// Agent (the same pool settings as lib/transport.ts), plus the typed
// client's page iterator. Driven over IPC by bench/run.mjs.
import { randomUUID } from 'node:crypto';
import { createRequire } from 'node:module';
import { performance } from 'node:perf_hooks';
import { Agent, request } from 'undici';
import {
  AllocationMeter,
  cpuMs,
  DIST,
  gc,
  PeakHeap,
  serveRpc,
  sleep,
  startHeapSampling,
  startProfile,
} from '../lib/common.mjs';

const require = createRequire(import.meta.url);

let ctx;

function setup({ info, ids }) {
  const agent = new Agent({ keepAliveTimeout: 10_000, keepAliveMaxTimeout: 60_000, connections: 64, pipelining: 1 });
  const base = `${info.workflow_url}/workflow/v1`;
  ctx = { info, ids, agent, base };
  return true;
}

function submitBody(i) {
  return {
    job_name: `bench job ${i}`,
    usage: { input: { variables: [{ name: 'Priority', typecode: 'Byte', value: '5' }] } },
  };
}

/** One submission, as a hand-written script would do it: the same headers and body as the node sends. */
async function rawSubmit(i) {
  const { ids, agent, base } = ctx;
  const res = await request(`${base}/${ids.benchSpace}/workflows/${ids.submitWorkflow}/jobs`, {
    method: 'POST',
    dispatcher: agent,
    headers: {
      accept: 'application/json',
      'user-agent': 'bench-raw-undici',
      authorization: `Bearer ${ids.keys.admin}`,
      'idempotency-key': randomUUID(),
      'content-type': 'application/json',
    },
    body: JSON.stringify(submitBody(i)),
  });
  const body = await res.body.json();
  return { status: res.statusCode, body };
}

/** `n` calls of `fn`, `concurrency` in flight. */
async function pool(n, concurrency, fn) {
  let next = 0;
  let failed = 0;
  let firstError;
  const worker = async () => {
    while (next < n) {
      const i = ++next;
      try {
        const r = await fn(i);
        if (r.status !== 200) {
          failed++;
          firstError ??= `status ${r.status}: ${JSON.stringify(r.body).slice(0, 200)}`;
        }
      } catch (err) {
        failed++;
        firstError ??= String(err);
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, n) }, worker));
  return { failed, firstError };
}

async function submit({ n, concurrency, warmup = 0, allocations = true, profile, heapProfile }) {
  if (warmup > 0) await pool(warmup, concurrency, rawSubmit);
  const meter = new AllocationMeter();
  if (allocations) meter.start();
  const stopProfile = profile ? await startProfile() : undefined;
  const stopHeap = heapProfile ? await startHeapSampling() : undefined;
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  const r = await pool(n, concurrency, rawSubmit);
  const elapsedMs = performance.now() - t0;
  const cpu = cpuMs(cpu0);
  if (stopProfile) r.profile = await stopProfile(profile);
  if (stopHeap) r.heapProfile = await stopHeap(heapProfile);
  const alloc = allocations ? meter.stop() : {};
  return { n, elapsedMs, rps: (n * 1000) / elapsedMs, cpuMs: cpu, ...r, ...alloc };
}

let submitClient;
/** The same submission through the typed client (lib/), without Node-RED. */
async function clientSubmit({ n, concurrency, warmup = 0, allocations = true, profile, heapProfile }) {
  const { info, ids } = ctx;
  const { createClient } = require(`${DIST}/lib/index.js`);
  submitClient ??= createClient({
    workflowUrl: info.workflow_url,
    spaceId: ids.benchSpace,
    apiKey: ids.keys.admin,
    retries: 0,
  });
  const one = async (i) => {
    const r = await submitClient.submitJob(ids.submitWorkflow, submitBody(i));
    return { status: r.status, body: r.data };
  };
  if (warmup > 0) await pool(warmup, concurrency, one);
  const meter = new AllocationMeter();
  if (allocations) meter.start();
  const stopProfile = profile ? await startProfile() : undefined;
  const stopHeap = heapProfile ? await startHeapSampling() : undefined;
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  const r = await pool(n, concurrency, one);
  const elapsedMs = performance.now() - t0;
  const cpu = cpuMs(cpu0);
  if (stopProfile) r.profile = await stopProfile(profile);
  if (stopHeap) r.heapProfile = await stopHeap(heapProfile);
  const alloc = allocations ? meter.stop() : {};
  return { n, elapsedMs, rps: (n * 1000) / elapsedMs, cpuMs: cpu, ...r, ...alloc };
}

/** Creates `n` jobs (for the watch figure) and returns their ids. */
async function createJobs({ n, workflow }) {
  const { ids, agent, base } = ctx;
  const jobs = [];
  await pool(n, 32, async () => {
    const res = await request(`${base}/${ids.benchSpace}/workflows/${workflow ?? ids.followWorkflow}/jobs`, {
      method: 'POST',
      dispatcher: agent,
      headers: {
        authorization: `Bearer ${ids.keys.admin}`,
        'idempotency-key': randomUUID(),
        'content-type': 'application/json',
      },
      body: '{}',
    });
    const body = await res.body.json();
    if (res.statusCode === 200)
      jobs.push({ id: body.id, workflow_id: body.workflow_id ?? workflow ?? ids.followWorkflow });
    return { status: res.statusCode, body };
  });
  return jobs;
}

/**
 * Every page of the pages space with raw undici: follow next_page_token, keep
 * (or drop) the workflows. Live heap: with everything kept, at the end; with
 * nothing kept, half way through (a full collection first).
 */
async function rawPages({ maxResults = 100, keep = true, total = 10_000 }) {
  const { ids, agent, base } = ctx;
  const all = [];
  let seen = 0;
  let requests = 0;
  let token;
  let live = Number.NaN;
  const pause = { ms: 0, cpuMs: 0 };
  gc();
  const heap0 = process.memoryUsage().heapUsed;
  const peak = new PeakHeap();
  peak.start();
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  do {
    const qs = new URLSearchParams({ max_results: String(maxResults) });
    if (token) qs.set('page_token', token);
    const res = await request(`${base}/${ids.pagesSpace}/workflows?${qs}`, {
      method: 'GET',
      dispatcher: agent,
      headers: { accept: 'application/json', authorization: `Bearer ${ids.pageKeys.admin}` },
    });
    requests++;
    const page = await res.body.json();
    if (res.statusCode !== 200) throw new Error(`list answered ${res.statusCode}`);
    seen += page.workflows.length;
    if (keep) all.push(...page.workflows);
    else if (requests === Math.ceil(total / maxResults / 2)) live = liveHeap(heap0, pause);
    token = page.next_page_token ?? undefined;
  } while (token);
  const elapsedMs = performance.now() - t0 - pause.ms;
  const cpu = cpuMs(cpu0) - pause.cpuMs;
  if (keep) {
    gc();
    live = process.memoryUsage().heapUsed - heap0;
  }
  const mem = peak.stop();
  return { workflows: seen, kept: all.length, requests, elapsedMs, cpuMs: cpu, liveAtEnd: live, ...mem };
}

/** Heap held now (after a full collection) over `heap0`; the collection's time goes to `pause`, not to the figure. */
function liveHeap(heap0, pause) {
  const t = performance.now();
  const c = process.cpuUsage();
  gc();
  const live = process.memoryUsage().heapUsed - heap0;
  pause.ms += performance.now() - t;
  pause.cpuMs += cpuMs(c);
  return live;
}

let libClient;
/** The typed client's workflows() iterator over every page (nothing kept but a count). */
async function clientIterator({ maxResults = 100, total = 10_000 }) {
  const { info, ids } = ctx;
  const { createClient } = require(`${DIST}/lib/index.js`);
  libClient ??= createClient({
    workflowUrl: info.workflow_url,
    spaceId: ids.pagesSpace,
    apiKey: ids.pageKeys.admin,
    retries: 0,
  });
  let seen = 0;
  let live = Number.NaN;
  const pause = { ms: 0, cpuMs: 0 };
  gc();
  const heap0 = process.memoryUsage().heapUsed;
  const peak = new PeakHeap();
  peak.start();
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  for await (const w of libClient.workflows({ maxResults })) {
    if (w.id) seen++;
    // half way: what the iteration holds
    if (seen === Math.floor(total / 2)) live = liveHeap(heap0, pause);
  }
  const elapsedMs = performance.now() - t0 - pause.ms;
  const cpu = cpuMs(cpu0) - pause.cpuMs;
  const mem = peak.stop();
  return { workflows: seen, elapsedMs, cpuMs: cpu, liveAtEnd: live, ...mem };
}

/**
 * The least a poller can do: every interval, GET each job once with raw
 * undici (`concurrency` in flight). Measures CPU over `intervals` intervals.
 */
async function pollJobs({ jobs, intervalMs, intervals, concurrency, profile }) {
  const { ids, agent, base } = ctx;
  const get = async (j) => {
    const res = await request(`${base}/${ids.benchSpace}/workflows/${j.workflow_id}/jobs/${j.id}`, {
      method: 'GET',
      dispatcher: agent,
      headers: { accept: 'application/json', authorization: `Bearer ${ids.keys.admin}` },
    });
    const body = await res.body.json();
    return { status: res.statusCode, body };
  };
  const round = () => pool(jobs.length, concurrency, (i) => get(jobs[i - 1]));
  // first round outside the window, as for the follow-job node
  const tStart = performance.now();
  await round();
  await sleep(Math.max(0, tStart + intervalMs - performance.now()));
  const stopProfile = profile ? await startProfile() : undefined;
  const c0 = process.cpuUsage();
  const w0 = performance.now();
  let requests = 0;
  let failed = 0;
  for (let k = 0; k < intervals; k++) {
    const roundStart = performance.now();
    const r = await round();
    requests += jobs.length;
    failed += r.failed;
    await sleep(Math.max(0, roundStart + intervalMs - performance.now()));
  }
  const cpu = process.cpuUsage(c0);
  if (stopProfile) await stopProfile(profile);
  return {
    windowMs: performance.now() - w0,
    windowCpuMs: (cpu.user + cpu.system) / 1000,
    windowSystemMs: cpu.system / 1000,
    requests,
    failed,
  };
}

serveRpc({ setup, submit, clientSubmit, createJobs, rawPages, clientIterator, pollJobs });

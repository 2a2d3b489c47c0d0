// A real Node-RED runtime embedded in this process for bench/day-at-scale.mjs,
// on a fake clock: the schedule node takes no clock of its own (the scheduler
// runs on lib/clock.ts's systemClock, which looks the global timers up at call
// time), so @sinonjs/fake-timers replaces Date, setTimeout and setInterval
// before Node-RED loads, and nothing else (setImmediate, process.nextTick and
// I/O stay real). Time moves in steps: wait until no HTTP request is in flight
// (undici's diagnostics channels) and the message queue is idle, move the
// simulator's manual clock (its own process) to the next timer's instant,
// then fire the timers due then. The demo's wiring, per schedule:
//   schedule -1-> create-channel -1-> schedule (the channel routed back)
//   schedule -2-> submit-job -> tap                   (the end: stop, then follow-up)
//   schedule -3-> tap                                 (missed reports)
// and a Catch node for the tab.
import diagnostics from 'node:diagnostics_channel';
import { rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import { createRequire } from 'node:module';
import path from 'node:path';
import { embeddedSettings, gc, installedUserDir, ROOT, serveRpc } from '../lib/common.mjs';

const require = createRequire(import.meta.url);
// a dev dependency of the tests (node-red-node-test-helper's sinon); vitest's fake timers are the same code
const FakeTimers = require('@sinonjs/fake-timers');

const realSetTimeout = globalThis.setTimeout;
const realSleep = (ms) => new Promise((resolve) => realSetTimeout(resolve, ms));
const immediate = () => new Promise((resolve) => setImmediate(resolve));

let clock;
let RED;
let userDir;
let server;
let simAdmin;
let adminBase;

/** HTTP requests of this process in flight (the client's undici and any other). */
let inFlight = 0;
diagnostics.subscribe('undici:request:create', () => inFlight++);
diagnostics.subscribe('undici:request:trailers', () => inFlight--);
diagnostics.subscribe('undici:request:error', () => inFlight--);

const counts = { starts: 0, channels: 0, ends: 0, followups: 0, missed: 0, caught: 0, control: 0, firstError: null };
const perSlot = new Map();
function slotSeen(key, field) {
  if (typeof key !== 'string') return;
  let c = perSlot.get(key);
  if (!c) {
    c = { starts: 0, channels: 0, ends: 0, followups: 0 };
    perSlot.set(key, c);
  }
  c[field]++;
}
const slotOf = (msg) => (typeof msg?.window?.slotKey === 'string' ? msg.window.slotKey : undefined);

const Z = 'day-tab';
const at = { z: Z, x: 200, y: 100 };
const tap = (id) => ({ id, ...at, type: 'change', name: id, rules: [], wires: [] });

function flows({ info, spaceId, yamls }) {
  const nodes = [
    { id: Z, type: 'tab', label: 'a day at scale' },
    {
      id: 'day-cfg',
      type: 'media-spaces-config',
      name: 'day space',
      workflowUrl: info.workflow_url,
      liveCaptureUrl: info.livecapture_url,
      spaceId,
      workflowPrefix: '/workflow/v1',
      timeout: 30000,
      retries: 3,
      rejectUnauthorized: true,
    },
    { id: 'day-catch', ...at, type: 'catch', name: '', scope: null, uncaught: false, wires: [['tap-caught']] },
    ...['tap-caught', 'tap-control', 'tap-job'].map(tap),
  ];
  yamls.forEach((yaml, i) => {
    nodes.push(
      {
        id: `sched-${i}`,
        ...at,
        type: 'media-spaces-schedule',
        name: `Programme ${i}`,
        source: 'yaml',
        yaml,
        scheduleId: `s${i}`,
        catchUp: false,
        server: 'day-cfg',
        coordination: '',
        wires: [[`cc-${i}`], [`submit-${i}`], ['tap-control']],
      },
      {
        id: `cc-${i}`,
        ...at,
        type: 'media-spaces-create-channel',
        name: '',
        server: 'day-cfg',
        // the state on the node's badge is not part of the lifecycle; it would read every channel every 10 s
        watchState: false,
        wires: [[`sched-${i}`], []],
      },
      {
        id: `submit-${i}`,
        ...at,
        type: 'media-spaces-submit-job',
        name: '',
        server: 'day-cfg',
        workflowId: '',
        workflowIdType: 'str',
        wires: [['tap-job']],
      },
    );
  });
  return nodes;
}

function adminCall(method, route, body) {
  const text = body === undefined ? undefined : JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const req = http.request(
      `${simAdmin}${route}`,
      {
        method,
        headers: text ? { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) } : {},
      },
      (res) => {
        let data = '';
        res.setEncoding('utf8');
        res.on('data', (c) => {
          data += c;
        });
        res.on('end', () => (res.statusCode >= 400 ? reject(new Error(`${route}: ${res.statusCode}`)) : resolve(data)));
      },
    );
    req.on('error', reject);
    req.end(text);
  });
}

/** Until nothing is in flight and a few turns of the loop passed with nothing new: messages travel by setImmediate. */
async function quiet(limitMs = 60_000) {
  const until = performance.now() + limitMs;
  let calm = 0;
  while (calm < 6) {
    await immediate();
    if (inFlight === 0) calm++;
    else {
      calm = 0;
      await realSleep(1);
    }
    if (performance.now() > until) throw new Error(`${inFlight} requests still in flight after ${limitMs} ms`);
  }
}

/** The earliest instant a fake timer is due, or Infinity. */
function nextTimerAt() {
  let next = Number.POSITIVE_INFINITY;
  for (const t of Object.values(clock.timers ?? {})) if (t.callAt < next) next = t.callAt;
  return next;
}

let steps = 0;
/** Moves the runtime and the simulator to `target` (epoch ms), timer by timer. */
async function advanceTo(target) {
  let still = 0;
  while (clock.now < target) {
    await quiet();
    const to = Math.min(nextTimerAt(), target);
    const delta = Math.max(0, to - clock.now);
    if (delta > 0) {
      await adminCall('POST', '/clock/advance', { ms: delta });
      still = 0;
    } else if (++still > 100_000) throw new Error('timers keep falling due without time moving');
    await clock.tickAsync(delta);
    steps++;
  }
  await quiet();
}

async function start(args) {
  simAdmin = args.info.admin_url;
  clock = FakeTimers.install({
    now: args.startAt,
    toFake: ['setTimeout', 'clearTimeout', 'setInterval', 'clearInterval', 'Date'],
  });
  userDir = installedUserDir('ms-day-nr-');
  writeFileSync(path.join(userDir, 'flows.json'), JSON.stringify(flows(args)));
  writeFileSync(
    path.join(userDir, 'flows_cred.json'),
    JSON.stringify({ 'day-cfg': { apiKey: args.keys.admin, accessToken: args.keys.token } }),
  );
  RED = require('node-red');
  // embedded: the embedding app serves the admin routes and (for bench/day-at-scale.mjs's Chromium) the editor
  const app = require('express')();
  server = http.createServer(app);
  RED.init(server, { ...embeddedSettings(userDir), disableEditor: false });
  app.use('/admin', RED.httpAdmin);
  // Node-RED's start may wait on timers: the fake clock follows the real one until the flows run
  let starting = true;
  const pump = (async () => {
    let last = performance.now();
    while (starting) {
      await realSleep(5);
      const now = performance.now();
      clock.tick(Math.round(now - last));
      last = now;
    }
  })();
  await RED.start();
  const n = args.yamls.length;
  for (let i = 0; i < 400 && !RED.nodes.getNode(`submit-${n - 1}`); i++) await realSleep(25);
  starting = false;
  await pump;
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  adminBase = `http://127.0.0.1:${server.address().port}/admin`;
  for (let i = 0; i < n; i++) {
    const cc = RED.nodes.getNode(`cc-${i}`);
    const submit = RED.nodes.getNode(`submit-${i}`);
    if (!cc || !submit) throw new Error(`flows did not start: schedule ${i} incomplete`);
    cc.on('input', (msg) => {
      counts.starts++;
      slotSeen(slotOf(msg), 'starts');
    });
    submit.on('input', (msg) => {
      counts.ends++;
      slotSeen(slotOf(msg), 'ends');
    });
  }
  RED.nodes.getNode('tap-job').on('input', (msg) => {
    counts.followups++;
    slotSeen(slotOf(msg), 'followups');
  });
  RED.nodes.getNode('tap-control').on('input', (msg) => {
    if (msg.topic === 'missed') counts.missed++;
    else counts.control++;
  });
  RED.nodes.getNode('tap-caught').on('input', (msg) => {
    counts.caught++;
    counts.firstError ??= String(msg.error?.message ?? '').slice(0, 300);
  });
  return { nodeRed: RED.version(), editor: `${adminBase}/`, now: clock.now };
}

/** The heap after a full collection, timers and handles, the per-slot stores. */
function snapshot() {
  gc();
  const memory = process.memoryUsage();
  const active = {};
  for (const type of process.getActiveResourcesInfo()) active[type] = (active[type] ?? 0) + 1;
  const kinds = {};
  for (const t of Object.values(clock.timers ?? {})) {
    const kind = `${t.func?.name || 'anonymous'}/${t.delay ?? 0}${t.interval ? ' repeat' : ''}`;
    kinds[kind] = (kinds[kind] ?? 0) + 1;
  }
  const state = RED.nodes.getNode('sched-0')?.context().get('mediaSpacesSchedule');
  return {
    now: clock.now,
    heapUsed: memory.heapUsed,
    rss: memory.rss,
    fakeTimers: clock.countTimers(),
    fakeTimerKinds: kinds,
    active,
    steps,
    counts: { ...counts },
    scheduler0: state
      ? {
          active: state.active?.length ?? 0,
          emitted: Object.keys(state.emitted ?? {}).length,
          ended: state.ended?.length ?? 0,
          stateBytes: JSON.stringify(state).length,
        }
      : undefined,
  };
}

async function runTo({ target }) {
  const t0 = performance.now();
  await advanceTo(target);
  return { realMs: performance.now() - t0, ...snapshot() };
}

/** Per slot: the slots each count saw other than exactly once. */
function slotTally() {
  const tally = { slots: perSlot.size };
  for (const field of ['starts', 'channels', 'ends', 'followups']) {
    let once = 0;
    let more = 0;
    for (const c of perSlot.values()) {
      if (c[field] === 1) once++;
      else if (c[field] > 1) more++;
    }
    tally[field] = { once, more };
  }
  return tally;
}

/**
 * GET the sidebar's activity route `reps` times as the tab asks for it (`ahead` hours of planned starts:
 * 24 for its default view, 168 for the 7-day zoom): its size and time, and the slots it unpacks to; then once
 * more naming the answer held (If-None-Match), as the tab's minute poll does: the 304's time.
 */
async function activity({ reps = 5, ahead = 24 }) {
  const { decodeActivity } = require(path.join(ROOT, 'dist/nodes/sidebar/activity-decode.js'));
  const url = `${adminBase}/media-spaces/activity?part=schedules&ahead=${ahead}`;
  const times = [];
  let bytes = 0;
  let slots = 0;
  let sample;
  let phases;
  let etag;
  for (let i = 0; i < reps; i++) {
    const t0 = performance.now();
    const res = await fetchText(url);
    times.push(performance.now() - t0);
    bytes = Buffer.byteLength(res.body);
    etag = res.headers.etag;
    const body = decodeActivity(JSON.parse(res.body), clock.now);
    slots = body.schedules.reduce((n, s) => n + s.slots.length, 0);
    sample = body.schedules[0]?.slots.slice(-1)[0];
    phases = {};
    for (const s of body.schedules)
      for (const slot of s.slots) phases[slot.phase ?? 'planned'] = (phases[slot.phase ?? 'planned'] ?? 0) + 1;
  }
  const t0 = performance.now();
  const again = await fetchText(url, { 'If-None-Match': etag });
  const unchanged = { status: again.status, ms: performance.now() - t0, bytes: Buffer.byteLength(again.body) };
  return { times, bytes, slots, phases, sample, unchanged };
}

function fetchText(url, headers = {}) {
  return new Promise((resolve, reject) => {
    http
      .get(url, { headers }, (res) => {
        let data = '';
        res.setEncoding('utf8');
        res.on('data', (c) => {
          data += c;
        });
        res.on('end', () => resolve({ status: res.statusCode, headers: res.headers, body: data }));
      })
      .on('error', reject);
  });
}

/** The same module instances the runtime loaded: the sidebar feed's slot rows (what it keeps per slot). */
function feedRows() {
  const feed = require(path.join(ROOT, 'dist/nodes/sidebar/feed-host.js')).activityFeed({ events: RED.events });
  let rows = 0;
  for (const m of feed.reported?.values() ?? []) rows += m.size;
  return { rows, jobs: feed.jobs?.size ?? 0 };
}

/**
 * Destructive, at the end: the heap after a full collection, then again with the sidebar feed's slot
 * rows and finished jobs dropped (bounded at MAX_HISTORY_PER_SCHEDULE rows a schedule, so it grows
 * for the first days of a run).
 */
function feedShare() {
  gc();
  const before = process.memoryUsage().heapUsed;
  const feed = require(path.join(ROOT, 'dist/nodes/sidebar/feed-host.js')).activityFeed({ events: RED.events });
  feed.reported?.clear();
  feed.jobs?.clear();
  gc();
  return { heapBefore: before, heapWithoutFeed: process.memoryUsage().heapUsed };
}

async function stop() {
  if (RED) {
    // the runtime's stop waits on timers too
    let stopping = true;
    const pump = (async () => {
      while (stopping) {
        await realSleep(5);
        clock.tick(5);
      }
    })();
    await RED.stop();
    stopping = false;
    await pump;
    server?.close();
  }
  clock?.uninstall();
  if (userDir) rmSync(userDir, { recursive: true, force: true });
  return true;
}

serveRpc({ start, runTo, slotTally, activity, feedRows, feedShare, stop });

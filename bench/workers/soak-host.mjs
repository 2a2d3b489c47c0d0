// A real Node-RED 4 runtime embedded in this process (require('node-red'),
// RED.init + RED.start), the package loaded from a user directory as an
// installed package is, with the demo's recording wiring:
//   schedule -1-> create-channel -1-> schedule (the channel routed back)
//   schedule -2-> submit-job -> follow-job        (the end: stop, then follow-up)
//   schedule -3-> (missed reports, control replies)
// and a Catch node for the tab. Taps (core change nodes with no rules) on
// create-channel's output 1, the schedule's outputs 2 and 3, follow-job's
// output 1 and the Catch tell bench/lifecycle-soak.mjs of each message over
// IPC, as a few fields, never the message. Driven over IPC (serveRpc); run
// with --expose-gc.
import { createHook } from 'node:async_hooks';
import { rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import { createRequire } from 'node:module';
import path from 'node:path';
import { embeddedSettings, gc, installedUserDir, ROOT, serveRpc, sleep } from '../lib/common.mjs';

const require = createRequire(import.meta.url);

let RED;
let userDir;
let server;

/**
 * Live async resources by type (created and not yet destroyed): unlike
 * process.getActiveResourcesInfo(), which lists only timers that hold the
 * loop open, this counts unref'd timers too. Promises are left out.
 */
const live = new Map();
const typeOf = new Map();
/** live timers by id, to tell what they are: their callback's name and delay */
const timers = new Map();
createHook({
  init(id, type, _trigger, resource) {
    if (type === 'PROMISE') return;
    typeOf.set(id, type);
    live.set(type, (live.get(type) ?? 0) + 1);
    if (type === 'Timeout') timers.set(id, resource);
  },
  destroy(id) {
    const type = typeOf.get(id);
    if (type === undefined) return;
    typeOf.delete(id);
    timers.delete(id);
    live.set(type, live.get(type) - 1);
  },
}).enable();

/** Process warnings (a listener-leak warning, say): each one is a finding. */
const warnings = [];
process.on('warning', (w) => warnings.push(`${w.name}: ${w.message}`.slice(0, 300)));

/** `callback name / delay ms (repeat)` -> how many */
function liveTimers() {
  const kinds = {};
  for (const t of timers.values()) {
    const kind = `${t._onTimeout?.name || 'anonymous'}/${t._idleTimeout}${t._repeat ? ' repeat' : ''}`;
    kinds[kind] = (kinds[kind] ?? 0) + 1;
  }
  return kinds;
}

function settings() {
  return embeddedSettings(userDir);
}

const Z = 'soak-tab';
const at = { z: Z, x: 200, y: 100 };
const tap = (id) => ({ id, ...at, type: 'change', name: id, rules: [], wires: [] });

function flows({ info, spaceId, yaml, redisUrl, followIntervalMs }) {
  const coordination = redisUrl ? 'soak-redis' : '';
  return [
    { id: Z, type: 'tab', label: 'soak' },
    {
      id: 'soak-cfg',
      type: 'media-spaces-config',
      name: 'soak space',
      workflowUrl: info.workflow_url,
      liveCaptureUrl: info.livecapture_url,
      spaceId,
      workflowPrefix: '/workflow/v1',
      timeout: 30000,
      retries: 3,
      rejectUnauthorized: true,
    },
    ...(redisUrl
      ? [
          {
            id: 'soak-redis',
            type: 'media-spaces-coordination',
            name: 'Redis',
            url: redisUrl,
            keyPrefix: 'media-spaces:',
            leaseMs: '30000',
            doneTtlDays: '7',
            whenUnreachable: 'skip',
          },
        ]
      : []),
    {
      id: 'soak-schedule',
      ...at,
      type: 'media-spaces-schedule',
      name: 'soak',
      source: 'yaml',
      yaml,
      scheduleId: 'soak',
      catchUp: false,
      server: 'soak-cfg',
      coordination,
      wires: [['soak-channel'], ['soak-submit', 'tap-end'], ['tap-control']],
    },
    {
      id: 'soak-channel',
      ...at,
      type: 'media-spaces-create-channel',
      name: '',
      server: 'soak-cfg',
      watchState: true,
      wires: [['soak-schedule', 'tap-channel'], []],
    },
    {
      id: 'soak-submit',
      ...at,
      type: 'media-spaces-submit-job',
      name: '',
      server: 'soak-cfg',
      workflowId: '',
      workflowIdType: 'str',
      wires: [['soak-follow']],
    },
    {
      id: 'soak-follow',
      ...at,
      type: 'media-spaces-follow-job',
      name: '',
      server: 'soak-cfg',
      interval: String(followIntervalMs),
      backoffMax: '',
      concurrency: '8',
      timeout: '',
      coordination,
      wires: [['tap-job'], []],
    },
    { id: 'soak-catch', ...at, type: 'catch', name: '', scope: null, uncaught: false, wires: [['tap-caught']] },
    ...['tap-channel', 'tap-end', 'tap-control', 'tap-job', 'tap-caught'].map(tap),
  ];
}

const emit = (event) => process.send({ event });
const slotOf = (msg) => (typeof msg?.window?.slotKey === 'string' ? msg.window.slotKey : undefined);

/** What each tap tells the harness: a few fields of the message. */
const TAPS = {
  'tap-channel': (msg) => ({ kind: 'channel', slot: slotOf(msg), channel: msg.payload?.id }),
  'tap-end': (msg) => ({
    kind: 'end',
    slot: slotOf(msg),
    channel: msg.channel?.id,
    state: msg.channel?.state,
    outputs: Array.isArray(msg.channel?.recording?.outputs) ? msg.channel.recording.outputs.length : 0,
  }),
  'tap-control': (msg) =>
    msg.topic === 'missed'
      ? { kind: 'missed', slot: msg.payload?.slot, why: msg.payload?.why, reason: msg.payload?.reason }
      : { kind: 'control', topic: msg.topic },
  'tap-job': (msg) => ({ kind: 'job', slot: slotOf(msg), job: msg.payload?.id, state: msg.payload?.state }),
  'tap-caught': (msg) => ({
    kind: 'caught',
    source: msg.error?.source?.type,
    message: String(msg.error?.message ?? '').slice(0, 300),
  }),
};

async function start(args) {
  userDir = installedUserDir('ms-soak-nr-');
  writeFileSync(path.join(userDir, 'flows.json'), JSON.stringify(flows(args)));
  writeFileSync(
    path.join(userDir, 'flows_cred.json'),
    JSON.stringify({ 'soak-cfg': { apiKey: args.keys.admin, accessToken: args.keys.token } }),
  );
  RED = require('node-red');
  server = http.createServer();
  RED.init(server, settings());
  await RED.start();
  for (let i = 0; i < 400 && !RED.nodes.getNode('tap-caught'); i++) await sleep(25);
  for (const [id, describe] of Object.entries(TAPS)) {
    const node = RED.nodes.getNode(id);
    if (!node) throw new Error(`flows did not start: no ${id}`);
    node.on('input', (msg) => emit(describe(msg)));
  }
  return { nodeRed: RED.version() };
}

/** The same module instances the runtime loaded (require follows the package link to this checkout). */
function modules() {
  return {
    slotStarts: require(path.join(ROOT, 'dist/lib/schedule/slot-starts.js')),
    feedHost: require(path.join(ROOT, 'dist/nodes/sidebar/feed-host.js')),
  };
}

/**
 * Heap after a full collection, live resources, and the size of each store
 * that keeps something per slot: slot-starts listeners, the scheduler's
 * state (in node context), the sidebar feed's slots and jobs.
 */
function snapshot() {
  gc();
  const kinds = liveTimers();
  // a pooled keep-alive socket has one parser timer (undici's onParserTimeout) until it closes
  let socketTimers = 0;
  for (const [kind, n] of Object.entries(kinds)) if (kind.startsWith('onParserTimeout/')) socketTimers += n;
  const memory = process.memoryUsage();
  const active = {};
  for (const type of process.getActiveResourcesInfo()) active[type] = (active[type] ?? 0) + 1;
  const { slotStarts, feedHost } = modules();
  const schedule = RED.nodes.getNode('soak-schedule');
  const state = schedule?.context().get('mediaSpacesSchedule');
  // the feed's stores are private fields: read here for the measurement only
  const feed = feedHost.activityFeed({ events: RED.events });
  return {
    heapUsed: memory.heapUsed,
    rss: memory.rss,
    external: memory.external,
    active,
    live: Object.fromEntries([...live].filter(([, n]) => n > 0)),
    liveTimers: kinds,
    socketTimers,
    warnings: warnings.length,
    firstWarning: warnings[0],
    listenedStarts: slotStarts.listenedStarts(),
    scheduler: state
      ? {
          active: state.active?.length ?? 0,
          emitted: Object.keys(state.emitted ?? {}).length,
          ended: state.ended?.length ?? 0,
          stateBytes: JSON.stringify(state).length,
        }
      : undefined,
    feed: {
      slots: feed.reported?.get('soak-schedule')?.size ?? 0,
      jobs: feed.jobs?.size ?? 0,
    },
  };
}

/**
 * Destructive, at the end of a run: the heap after a full collection, then
 * again with the sidebar feed's slot history and finished jobs dropped (what
 * the feed keeps, bounded by MAX_HISTORY_PER_SCHEDULE and MAX_JOBS).
 */
function feedShare() {
  gc();
  const before = process.memoryUsage().heapUsed;
  const feed = modules().feedHost.activityFeed({ events: RED.events });
  feed.reported?.clear();
  feed.jobs?.clear();
  gc();
  return { heapBefore: before, heapWithoutFeed: process.memoryUsage().heapUsed };
}

async function stop() {
  if (RED) {
    await RED.stop();
    server?.close();
  }
  if (userDir) rmSync(userDir, { recursive: true, force: true });
  return true;
}

serveRpc({ start, snapshot, feedShare, stop });

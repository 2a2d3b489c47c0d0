// The reference simulator in its own process for bench/lifecycle-soak.mjs,
// counting what the service did per slot. Its request log is a ring of the
// latest 10,000 requests, so it is drained every second (read and cleared in
// one synchronous step: nothing arrives in between) into per-slot counts,
// keyed by the Idempotency-Key the schedule derives from the slot:
// `<slot>` creates the channel, `<slot>:stop…` stops it, `<slot>:end`
// submits the follow-up.
import { createRequire } from 'node:module';
import path from 'node:path';
import { DIST, serveRpc } from '../lib/common.mjs';

const require = createRequire(import.meta.url);
const simulator = require(path.join(DIST, 'lib/simulator/index.js'));

let sim;
let drainTimer;
const routes = new Map();
const perSlot = new Map();

const succeeded = (r) => r.status !== null && r.status >= 200 && r.status < 300 && r.replayed !== true;

function slotCounts(key) {
  let c = perSlot.get(key);
  if (!c) {
    c = { created: 0, stopsAccepted: 0, stopPosts: 0, submitted: 0 };
    perSlot.set(key, c);
  }
  return c;
}

function drain() {
  if (!sim) return;
  const entries = sim.requests();
  // not part of the Simulator interface: the bench empties the ring it has just read
  sim.log.clear();
  for (const r of entries) {
    const route = `${r.route} ${r.status ?? 'dropped'}`;
    routes.set(route, (routes.get(route) ?? 0) + 1);
    const key = r.idempotency_key;
    if (r.method !== 'POST' || !key) continue;
    if (r.route === 'create_channel' && succeeded(r)) slotCounts(key).created++;
    else if (r.route === 'stop_channel') {
      const c = slotCounts(key.replace(/:stop(:\d+)?$/, ''));
      c.stopPosts++;
      if (succeeded(r)) c.stopsAccepted++;
    } else if (r.route === 'submit' && succeeded(r)) slotCounts(key.replace(/:end$/, '')).submitted++;
  }
}

function soakFixture() {
  return simulator.fixtureDocument(
    simulator.fixtureSpace('soak', {
      workflows: [
        simulator.fixtureWorkflow('soak-followup', {
          job_duration_ms: 1000,
          inputs: {
            media_nicknames: [{ name: 'Recording', identifier: 'recording', description: 'The recorded file' }],
          },
        }),
      ],
    }),
  );
}

/** `startTime` (epoch ms): a manual clock from there, moved only by POST /__admin/clock/advance (bench/day-at-scale.mjs). */
async function start({ startTime } = {}) {
  const clock = startTime === undefined ? {} : { manualClock: true, startTime };
  sim = await simulator.startSimulator({ fixture: soakFixture(), ...clock });
  drainTimer = setInterval(drain, 1000);
  return {
    info: sim.info(),
    spaceId: simulator.spaceIdFor('soak'),
    keys: simulator.credentialsFor('soak'),
    followupWorkflow: simulator.workflowIdFor('soak-followup'),
  };
}

/** Requests by route and status, and per-slot counts, since the start or the last reset. */
async function counts() {
  drain();
  const channels = await (
    await fetch(`${sim.info().admin_url}/spaces/${simulator.spaceIdFor('soak')}/channels`)
  ).json();
  const states = {};
  for (const c of channels.channels) states[c.state] = (states[c.state] ?? 0) + 1;
  return {
    routes: Object.fromEntries([...routes].sort()),
    slots: Object.fromEntries(perSlot),
    channelStates: states,
  };
}

/** Back to the fixture: channels, jobs, keys and counts go (between two runs). */
function reset() {
  drain();
  sim.reset();
  routes.clear();
  perSlot.clear();
  return true;
}

async function stop() {
  clearInterval(drainTimer);
  await sim?.close();
  return true;
}

serveRpc({ start, counts, reset, stop });

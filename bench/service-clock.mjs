// What reading the service's clock from every answer costs the client: the CPU of one
// ServiceClock.observe() (the Date header parsed, the bounds narrowed), against the CPU of one
// request made with raw undici to the simulator in this process, in the same run.
//
//   npm run build && node bench/service-clock.mjs [--requests 3000] [--observations 1000000]
import { createRequire } from 'node:module';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { DIST, fmt, median, round } from './lib/common.mjs';

const require = createRequire(import.meta.url);
const { ServiceClock } = require(path.join(DIST, 'lib/service-clock.js'));
const { startSimulator } = require(path.join(DIST, 'lib/simulator/index.js'));
const { Agent, request } = require('undici');

const { values: opt } = parseArgs({
  options: { requests: { type: 'string', default: '3000' }, observations: { type: 'string', default: '1000000' } },
});
const REQUESTS = Number(opt.requests);
const OBSERVATIONS = Number(opt.observations);

const cpuUs = () => {
  const u = process.cpuUsage();
  return u.user + u.system;
};

/** CPU µs per raw undici GET of the simulator's info (one keep-alive connection, one at a time). */
async function rawRequestCpu(url, agent) {
  const before = cpuUs();
  for (let i = 0; i < REQUESTS; i++) {
    const res = await request(url, { dispatcher: agent });
    await res.body.text();
  }
  return (cpuUs() - before) / REQUESTS;
}

/** CPU µs per observe() of answers stamped at every fraction of a second, 10 s ahead. */
function observeCpu() {
  const clock = new ServiceClock('http://127.0.0.1');
  const t0 = Date.now();
  const dates = Array.from({ length: 1000 }, (_, i) => new Date(t0 + 10_000 + i * 37).toUTCString());
  const before = cpuUs();
  for (let i = 0; i < OBSERVATIONS; i++) {
    const sent = t0 + (i % 1000) * 37;
    clock.observe(sent, sent + 2, dates[i % 1000]);
  }
  return { us: (cpuUs() - before) / OBSERVATIONS, reading: clock.reading() };
}

const sim = await startSimulator({ host: '127.0.0.1', port: 0 });
const agent = new Agent({ connections: 1 });
try {
  const url = `${sim.adminUrl}/info`;
  await rawRequestCpu(url, agent); // warm-up
  const raw = [];
  const observe = [];
  let reading;
  for (let rep = 0; rep < 5; rep++) {
    raw.push(await rawRequestCpu(url, agent));
    const o = observeCpu();
    observe.push(o.us);
    reading = o.reading;
  }
  const r = median(raw);
  const o = median(observe);
  console.log(`raw undici request (client CPU, median of 5 x ${REQUESTS}): ${fmt(round(r, 2))} us`);
  console.log(`ServiceClock.observe (median of 5 x ${OBSERVATIONS}): ${fmt(round(o, 3))} us`);
  console.log(`ratio observe / raw request: ${round(o / r, 4)}`);
  console.log(`the estimate it settled on: ${JSON.stringify(reading)} (10,000 ms ahead)`);
} finally {
  await agent.close();
  await sim.close();
}

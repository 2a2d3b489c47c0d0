// CPU profile (node --cpu-prof) of the Node-RED process while submit job, or
// the thinnest node, takes messages at a given concurrency: the self time per
// message by code area and the top functions, for one flow at a time.
//   node bench/profile-submit.mjs [--flow ours|thin] [--n 20000] [--concurrency 32] [--interval 50]
// The profile covers the whole process; the summary keeps only the samples
// taken during the measured run (after start and warm-up).
import { readdirSync, readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { admin, BENCH_DIR, fixtureIds, forkWorker, ROOT, startSimulatorProcess, writeFixture } from './lib/common.mjs';
import { summarise } from './lib/profile-summary.mjs';

const argv = process.argv.slice(2);
const opt = (name, fallback) => {
  const i = argv.indexOf(`--${name}`);
  return i >= 0 ? argv[i + 1] : fallback;
};
const FLOW = opt('flow', 'ours');
const N = Number(opt('n', 20_000));
const WARMUP = Number(opt('warmup', 2000));
const C = Number(opt('concurrency', 32));
const INTERVAL = Number(opt('interval', 50));
const dir = path.join(BENCH_DIR, 'profiles', `${FLOW}-c${C}`);
rmSync(dir, { recursive: true, force: true });

const fixture = await writeFixture(10);
const ids = await fixtureIds();
const sim = await startSimulatorProcess(fixture.file);
const host = forkWorker(path.join(BENCH_DIR, 'workers/node-red-host.mjs'), {
  execArgv: ['--cpu-prof', `--cpu-prof-dir=${dir}`, `--cpu-prof-interval=${INTERVAL}`],
});
let run;
try {
  await host.call('start', { info: sim.info, ids, watch: { intervalMs: 60_000, concurrency: 8 } });
  await admin(sim.info, 'POST', '/reset');
  await host.call('throughput', { flow: FLOW, n: WARMUP, concurrency: C, allocations: false });
  await admin(sim.info, 'POST', '/reset');
  run = await host.call('throughput', { flow: FLOW, n: N, concurrency: C, allocations: false });
  await host.call('stop');
} finally {
  await host.stop();
  await sim.stop();
  rmSync(fixture.dir, { recursive: true, force: true });
}
const file = path.join(
  dir,
  readdirSync(dir).find((f) => f.endsWith('.cpuprofile')),
);
const messages = N;
const s = summarise(within(JSON.parse(readFileSync(file, 'utf8')), run.window), 25);
const us = (ms) => ((ms * 1000) / messages).toFixed(2).padStart(7);
console.log(
  `${FLOW} at c=${C}: ${Math.round(run.rps)} msg/s in the measured run; profile ${path.relative(ROOT, file)} ` +
    `(${messages} messages, ${INTERVAL} us sampling, the measured run only); self time per message:`,
);
for (const a of s.areas.slice(0, 14)) console.log(`${us(a.ms)} us  ${a.area}`);
console.log('top functions:');
for (const f of s.functions) console.log(`${us(f.ms)} us  ${f.fn}`);

/** The profile's samples taken between `fromUs` and `toUs` (the clock of process.hrtime). */
function within(profile, { fromUs, toUs }) {
  const samples = [];
  const timeDeltas = [];
  let t = profile.startTime;
  for (let i = 0; i < profile.samples.length; i++) {
    t += profile.timeDeltas[i];
    if (t < fromUs || t > toUs) continue;
    samples.push(profile.samples[i]);
    timeDeltas.push(profile.timeDeltas[i]);
  }
  if (samples.length === 0) throw new Error('no sample of the profile falls in the measured run (clocks differ?)');
  return { ...profile, samples, timeDeltas };
}

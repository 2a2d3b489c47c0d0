// Three costs of a schedule's start, each alone, in this process: removing a file that is not there
// (what the journal's first write did for the earlier releases' file), a window's next start read for
// the next-start gauge (the timeline's search against the start the timer is armed for, with the
// top-of-hour bench's once-a-year windows, then for a schedule of 2,000 windows), and 50 as-run lines
// written at once.
//   npm run build && node bench/start-path-costs.mjs [--package-root DIR]
//   --package-root DIR: the library built in DIR (another commit) instead of this checkout's dist
import { mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { fmt, ROOT } from './lib/common.mjs';

const { values: opt } = parseArgs({ options: { 'package-root': { type: 'string' } } });
const dist = path.join(path.resolve(opt['package-root'] ?? ROOT), 'dist', 'lib');
const require = createRequire(import.meta.url);
const { Scheduler } = require(path.join(dist, 'schedule', 'scheduler.js'));
const { loadScheduleYaml } = require(path.join(dist, 'schedule', 'config.js'));
const { JsonlAsRunStore } = require(path.join(dist, 'asrun', 'jsonl-store.js'));
const dir = mkdtempSync(path.join(tmpdir(), 'ms-start-costs-'));
const ROUNDS = 3;

for (let r = 1; r <= ROUNDS; r++) {
  const t0 = performance.now();
  for (let i = 0; i < 1000; i++) rmSync(path.join(dir, `missing-${i}.json`), { force: true });
  console.log(`round ${r}: rmSync of a missing file ${fmt(performance.now() - t0)} us`);
}

const windows = [0, 1, 2, 3].flatMap((k) => [
  `  - id: b${k}`,
  `    cron: "${10 + k} 8 2 27 11 *"`,
  '    duration: 10s',
]);
const scheduler = new Scheduler({
  scheduleId: 's',
  config: loadScheduleYaml(['timezone: UTC', 'windows:', ...windows].join('\n')),
  onStart() {},
});
scheduler.start();
const ids = ['b0', 'b1', 'b2', 'b3'];
for (let r = 1; r <= ROUNDS; r++) {
  let t0 = performance.now();
  for (let i = 0; i < 250; i++) for (const id of ids) scheduler.upcoming(1, Date.now(), id, false);
  const searched = performance.now() - t0;
  let armed = '(not in this build)';
  if (typeof scheduler.nextStartsOfWindows === 'function') {
    t0 = performance.now();
    // one pass gives the four windows' next starts: 250 passes are 1,000 windows read
    for (let i = 0; i < 250; i++) scheduler.nextStartsOfWindows();
    armed = `${fmt(performance.now() - t0)} us`;
  }
  console.log(`round ${r}: a window's next start, searched ${fmt(searched)} us, as armed ${armed}`);
}
scheduler.stop();

// a schedule of 2,000 daily windows (a list pasted from a channel's schedule): every window's next start,
// as the gauge reads them at each slot move
const many = Array.from({ length: 2000 }, (_, i) => [
  `  - id: d${i}`,
  `    cron: "${i % 60} ${Math.floor(i / 60) % 24} * * *"`,
  '    duration: 10m',
]).flat();
const large = new Scheduler({
  scheduleId: 'l',
  config: loadScheduleYaml(['timezone: UTC', 'windows:', ...many].join('\n')),
  onStart() {},
});
large.start();
const manyIds = Array.from({ length: 2000 }, (_, i) => `d${i}`);
for (let r = 1; r <= ROUNDS; r++) {
  let t0 = performance.now();
  for (const id of manyIds) large.upcoming(1, Date.now(), id, false);
  const searched = performance.now() - t0;
  let armed = '(not in this build)';
  if (typeof large.nextStartsOfWindows === 'function') {
    t0 = performance.now();
    large.nextStartsOfWindows();
    armed = `${fmt(performance.now() - t0)} ms`;
  }
  console.log(`round ${r}: 2,000 windows' next starts, searched ${fmt(searched)} ms, as armed ${armed}`);
}
large.stop();

const entry = (i) => ({
  kind: 'slot',
  event: {
    slot: `s:w${i}:2026-11-27T18:00:00Z`,
    schedule: 's',
    window: `w${i}`,
    from: 'planned',
    to: 'starting',
    at: new Date().toISOString(),
  },
});
for (let r = 1; r <= ROUNDS + 1; r++) {
  const store = new JsonlAsRunStore(path.join(dir, `as-run-${r}`));
  await store.append(entry(-1)); // the day's file and the retention's pass, outside the measure
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  await Promise.all(Array.from({ length: 50 }, (_, i) => store.append(entry(i))));
  const cpu = process.cpuUsage(cpu0);
  console.log(
    `round ${r}: 50 as-run lines at once ${fmt(performance.now() - t0)} ms, ${fmt((cpu.user + cpu.system) / 1000)} ms of this thread's CPU`,
  );
}
rmSync(dir, { recursive: true, force: true });

// A plan of 10,000 occurrences refreshed: a calendar of 10,000 events within the plan's horizon read
// through the feed's reader (ical.js, in its worker thread as the schedule node reads it), padded, and handed to a running Scheduler as a window's plan, 20
// times over (each time with a few moved and a few cancelled). Prints the time of a read and of a
// re-plan, the longest the event loop was held (perf_hooks.monitorEventLoopDelay), and the timers
// before and after (flat: a plan arms one timer, whatever its size).
//   node bench/plan-refresh.mjs [--occurrences 10000] [--reps 20] [--json]
// Goals: a refresh under 1 s; the timer count flat.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { monitorEventLoopDelay, performance } from 'node:perf_hooks';
import { fmt, median } from './lib/common.mjs';

const require = createRequire(import.meta.url);
const argv = process.argv.slice(2);
const arg = (name, fallback) => (argv.includes(name) ? Number(argv[argv.indexOf(name) + 1]) : fallback);
const N = arg('--occurrences', 10_000);
const REPS = arg('--reps', 20);
const JSON_OUT = argv.includes('--json');

const { Scheduler, loadScheduleYaml } = require('../dist/lib/schedule');
const { Feed, calendarReader, expandCalendarOffThread } = require('../dist/lib/schedule/sources');
const { planned: plannedOf } = require('../dist/lib/schedule/sources/occurrence');

const utc = (ms) => new Date(ms).toISOString().replace(/[-:]/g, '').replace(/\.\d+/, '');

/** `n` events over the next 7 days, 20 minutes each; the `rep`th refresh moves every 97th and drops every 101st. */
function calendar(n, rep, t0) {
  const lines = ['BEGIN:VCALENDAR', 'VERSION:2.0', 'PRODID:-//media-spaces//bench//EN'];
  const step = Math.floor((7 * 86_400_000) / n);
  for (let i = 0; i < n; i++) {
    if (rep > 0 && i % 101 === rep % 101) continue;
    const start = t0 + 3600_000 + i * step + (rep > 0 && i % 97 === 0 ? rep * 60_000 : 0);
    lines.push(
      'BEGIN:VEVENT',
      `UID:event-${i}@bench`,
      'DTSTAMP:20260101T000000Z',
      `SUMMARY:REC Programme ${i}`,
      `DTSTART:${utc(start)}`,
      `DTEND:${utc(start + 20 * 60_000)}`,
      'END:VEVENT',
    );
  }
  lines.push('END:VCALENDAR', '');
  return lines.join('\r\n');
}

const timers = () => process.getActiveResourcesInfo().filter((r) => r === 'Timeout').length;

async function main() {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'plan-refresh-'));
  const file = path.join(dir, 'big.ics');
  const config = loadScheduleYaml(
    `windows:\n  - id: cal\n    ical: ${JSON.stringify(file)}\n    padding: { before: 1m, after: 2m }\n    timezone: Europe/London\n`,
  );
  const window = config.windows[0];
  let starts = 0;
  const scheduler = new Scheduler({ scheduleId: 'bench', config, onStart: () => starts++, onEnd: () => {} });
  await scheduler.start();
  const feed = new Feed({ location: file, label: 'cal', dir: path.join(dir, 'snapshots') });
  const t0 = Date.now();
  const timersBefore = timers();
  const reads = [];
  const plans = [];
  const delays = [];
  let listed = 0;
  for (let rep = 0; rep < REPS; rep++) {
    writeFileSync(file, calendar(N, rep, t0));
    const loop = monitorEventLoopDelay({ resolution: 5 });
    loop.enable();
    const a = performance.now();
    const read = await feed.refresh(
      calendarReader(
        {
          windowId: 'cal',
          zone: window.timezone,
          from: new Date(t0 - 86_400_000),
          to: new Date(t0 + 8 * 86_400_000),
          maxOccurrences: 50_000,
        },
        (text, opts) => expandCalendarOffThread(text, opts, 120_000),
      ),
    );
    const b = performance.now();
    const planned = read.result.occurrences.map((o) => plannedOf(o, window.source.padding));
    const change = scheduler.setOccurrences('cal', planned, t0 + 8 * 86_400_000);
    const c = performance.now();
    loop.disable();
    reads.push(b - a);
    plans.push(c - b);
    delays.push(loop.max / 1e6);
    listed = change.size;
  }
  const timersAfter = timers();
  scheduler.stop();
  rmSync(dir, { recursive: true, force: true });
  const result = {
    occurrences: listed,
    readMs: median(reads),
    planMs: median(plans),
    refreshMs: median(reads.map((r, i) => r + plans[i])),
    maxDelayMs: Math.max(...delays),
    timersBefore,
    timersAfter,
    starts,
  };
  if (JSON_OUT) {
    console.log(JSON.stringify(result));
    return;
  }
  console.log(`plan of ${result.occurrences} occurrences, ${REPS} refreshes (medians):`);
  console.log(`  read the calendar (ical.js, through the feed): ${fmt(result.readMs)} ms`);
  console.log(`  re-plan (pad, compare, hand to the scheduler): ${fmt(result.planMs)} ms`);
  console.log(`  refresh in all: ${fmt(result.refreshMs)} ms (goal < 1000 ms)`);
  console.log(`  longest event-loop delay during a refresh: ${fmt(result.maxDelayMs)} ms`);
  console.log(`  timers: ${result.timersBefore} before, ${result.timersAfter} after (flat)`);
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});

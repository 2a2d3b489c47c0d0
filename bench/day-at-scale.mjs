// A day at scale: N schedules (50) x 40 slots a day (every half hour from
// 04:00 to 23:30 UTC, windows of 30 s, all schedules at the same instants) for
// D days (7: 14,000 slots), with the demo's wiring (create channel routed back,
// stop at the end, follow-up to submit job) in a real Node-RED runtime against
// the simulator over real HTTP, on simulated time: the runtime runs on a fake
// clock (workers/day-host.mjs: the schedule node takes no clock, so the global
// timers and Date are replaced before Node-RED loads) and the simulator on its
// manual clock, moved in step. Reports every slot acted on once (starts,
// channels, ends, follow-ups; the simulator's per-slot counts), the heap after
// a full collection at the end of each day, the runtime's timers, the sidebar
// activity route's size and time with a full day, and (unless --no-browser)
// the sidebar drawing that day in Chromium. The route is asked as the tab asks: planned starts for its
// default 24-hour view, then for its 7-day zoom, then once more naming the answer held (a 304).
//
//   npm run build && node bench/day-at-scale.mjs [--schedules 50] [--days 7] [--quick] [--small] [--no-browser] [--json]
//   --quick: 1 day of 50 x 40 (2,000 slots); --small: the runtime under --max-old-space-size=128
// Goals: route < 100 ms and < 200 KB; a drawn timeline < 200 ms; heap flat from day 2 to the last.
import path from 'node:path';
import { parseArgs } from 'node:util';
import { BENCH_DIR, fmt, forkWorker, median, round } from './lib/common.mjs';
import { sidebarDrawing } from './lib/sidebar-drawing.mjs';

const { values: opt } = parseArgs({
  options: {
    schedules: { type: 'string', default: '50' },
    days: { type: 'string' },
    quick: { type: 'boolean', default: false },
    small: { type: 'boolean', default: false },
    'no-browser': { type: 'boolean', default: false },
    json: { type: 'boolean', default: false },
  },
});
const N = Number(opt.schedules);
const DAYS = Number(opt.days ?? (opt.quick ? 1 : 7));
const SLOTS_PER_DAY = 40;
const DAY_MS = 86_400_000;
/** Monday 2 March 2026, 00:00 UTC: no change of clocks in the week */
const DAY0 = Date.UTC(2026, 2, 2);
const START_AT = DAY0 - 10 * 60_000;
const GOAL_ROUTE_MS = 100;
const GOAL_ROUTE_KB = 200;
const GOAL_DRAW_MS = 200;
const HEAP_MB = 128;
/** what the tab asks for: hours of planned starts of its default view and of its 7-day zoom */
const VIEWS = [
  ['24 h', 24],
  ['7 d', 168],
];

const t0 = Date.now();
const log = (line) => {
  if (!opt.json)
    process.stderr.write(`[day-at-scale ${String(Math.round((Date.now() - t0) / 1000)).padStart(4)}s] ${line}\n`);
};

function scheduleYaml(i, followupWorkflow) {
  return `timezone: UTC
windows:
  - id: w
    name: Programme ${i}
    cron: "0,30 4-23 * * *"
    duration: 30s
    channel:
      name: "Programme ${i} {{slot.local_start}}"
      continuous_recording: false
      recording_duration: 1
    followup:
      workflow_id: ${followupWorkflow}
      job_name: "Proxy of {{channel.name}}"
      media_nicknames:
        recording: "{{channel.recording.outputs[0].location_url}}"
`;
}

const sim = forkWorker(path.join(BENCH_DIR, 'workers/soak-sim.mjs'));
let host;
const days = [];
const routes = [];
let drawing;
let tally;
let service;
let nodeRed;
let failure;
try {
  const simInfo = await sim.call('start', { startTime: START_AT });
  host = forkWorker(path.join(BENCH_DIR, 'workers/day-host.mjs'), {
    execArgv: opt.small ? [`--max-old-space-size=${HEAP_MB}`] : [],
  });
  const started = await host.call('start', {
    info: simInfo.info,
    spaceId: simInfo.spaceId,
    keys: simInfo.keys,
    startAt: START_AT,
    yamls: Array.from({ length: N }, (_, i) => scheduleYaml(i, simInfo.followupWorkflow)),
  });
  nodeRed = started.nodeRed;
  log(
    `Node-RED ${nodeRed} on a fake clock at ${new Date(started.now).toISOString()}, ${N} schedules x ${SLOTS_PER_DAY} slots x ${DAYS} days`,
  );
  days.push({ day: 0, ...(await host.call('runTo', { target: DAY0 })) });
  for (let d = 1; d <= DAYS; d++) {
    const snap = await host.call('runTo', { target: DAY0 + d * DAY_MS });
    days.push({ day: d, ...snap });
    log(
      `day ${d}: ${fmt(snap.realMs / 1000)} s, heap ${fmt(snap.heapUsed / 1048576)} MB, fake timers ${snap.fakeTimers}, ` +
        `starts ${snap.counts.starts}, ends ${snap.counts.ends}, follow-ups ${snap.counts.followups}, missed ${snap.counts.missed}, errors ${snap.counts.caught}`,
    );
    if (d === 1 || d === DAYS) {
      // a full day behind; planned starts for the tab's default 24-hour view, then for its 7-day zoom
      for (const [view, ahead] of VIEWS) {
        const r = await host.call('activity', { reps: 5, ahead });
        routes.push({ day: d, view, ...r, medianMs: median(r.times) });
        log(
          `day ${d}, ${view} view: activity route ${fmt(r.bytes / 1024)} KB, ${r.slots} slots, median ${fmt(median(r.times))} ms; ` +
            `unchanged: ${r.unchanged.status} in ${fmt(r.unchanged.ms)} ms`,
        );
      }
    }
    if (d === 1 && !opt['no-browser']) {
      drawing = await sidebarDrawing(started.editor, N);
      log(
        `day 1 in Chromium: timeline drawn ${fmt(drawing.drawnMs)} ms after the tab was shown (${drawing.rows} rows, ${drawing.bars} bars)`,
      );
    }
  }
  tally = await host.call('slotTally');
  tally.feed = { ...(await host.call('feedRows')), ...(await host.call('feedShare')) };
  service = await sim.call('counts');
} catch (err) {
  failure = err;
} finally {
  await host?.call('stop').catch(() => undefined);
  await host?.stop();
  await sim.call('stop').catch(() => undefined);
  await sim.stop();
}
if (failure) {
  console.error(`day at scale failed: ${failure.stack ?? failure}`);
  process.exit(1);
}

const planned = N * SLOTS_PER_DAY * DAYS;
const slotsOnService = Object.values(service.slots);
const last = days.at(-1);
const verdict = {
  planned,
  startsOnce: tally.starts.once,
  channelsCreated: slotsOnService.filter((s) => s.created === 1).length,
  channelsCreatedTwice: slotsOnService.filter((s) => s.created > 1).length,
  stopsAccepted: slotsOnService.filter((s) => s.stopsAccepted === 1).length,
  followupsSubmitted: slotsOnService.filter((s) => s.submitted === 1).length,
  followupsSubmittedTwice: slotsOnService.filter((s) => s.submitted > 1).length,
  endsOnce: tally.ends.once,
  followupJobsOnce: tally.followups.once,
  missed: last.counts.missed,
  errors: last.counts.caught,
  firstError: last.counts.firstError,
  channelsStillRecording: (service.channelStates.RECORDING ?? 0) + (service.channelStates.ACTIVE ?? 0),
};
verdict.everySlotOnce =
  verdict.startsOnce === planned &&
  verdict.channelsCreated === planned &&
  verdict.channelsCreatedTwice === 0 &&
  verdict.stopsAccepted === planned &&
  verdict.followupsSubmitted === planned &&
  verdict.followupsSubmittedTwice === 0 &&
  verdict.endsOnce === planned &&
  verdict.followupJobsOnce === planned &&
  verdict.missed === 0 &&
  verdict.errors === 0;
const heapMB = days.slice(1).map((d) => round(d.heapUsed / 1048576, 1));
const from2 = days.filter((d) => d.day >= 2);
const heapFlat =
  from2.length >= 2
    ? {
        day2MB: round(from2[0].heapUsed / 1048576, 2),
        lastMB: round(from2.at(-1).heapUsed / 1048576, 2),
        ratio: round(from2.at(-1).heapUsed / from2[0].heapUsed, 3),
      }
    : null;
const result = {
  schedules: N,
  slotsPerDay: SLOTS_PER_DAY,
  days: DAYS,
  maxOldSpaceMB: opt.small ? HEAP_MB : null,
  nodeRed,
  perDay: days.map((d) => ({
    day: d.day,
    heapMB: round(d.heapUsed / 1048576, 2),
    rssMB: round(d.rss / 1048576, 1),
    fakeTimers: d.fakeTimers,
    activeHandles: d.active,
    realS: round(d.realMs / 1000, 1),
    steps: d.steps,
    scheduler0: d.scheduler0,
  })),
  timerKindsLastDay: last.fakeTimerKinds,
  heapFlat,
  routes: routes.map((r) => ({
    day: r.day,
    view: r.view,
    unchanged: { status: r.unchanged.status, ms: round(r.unchanged.ms, 1), bytes: r.unchanged.bytes },
    kb: round(r.bytes / 1024, 1),
    slots: r.slots,
    medianMs: round(r.medianMs, 1),
    maxMs: round(Math.max(...r.times), 1),
  })),
  drawing,
  feed: { ...tally.feed, heapMB: round((tally.feed.heapBefore - tally.feed.heapWithoutFeed) / 1048576, 2) },
  requests: service.routes,
  verdict,
};
if (opt.json) process.stdout.write(`${JSON.stringify(result)}\n`);
else {
  console.log(
    `A day at scale: ${N} schedules x ${SLOTS_PER_DAY} slots x ${DAYS} days = ${planned} slots (Node-RED ${nodeRed}, Node ${process.version}${opt.small ? `, --max-old-space-size=${HEAP_MB}` : ''}), simulated time`,
  );
  console.log('| day | heap after GC MB | RSS MB | runtime timers (fake clock) | handles | real s | steps |');
  console.log('|---|---|---|---|---|---|---|');
  for (const d of result.perDay) {
    console.log(
      `| ${d.day} | ${fmt(d.heapMB)} | ${fmt(d.rssMB)} | ${d.fakeTimers} | ${JSON.stringify(d.activeHandles)} | ${fmt(d.realS)} | ${d.steps} |`,
    );
  }
  console.log(`timers at the end: ${JSON.stringify(result.timerKindsLastDay)}`);
  if (heapFlat)
    console.log(`heap day 2 -> day ${DAYS}: ${heapFlat.day2MB} -> ${heapFlat.lastMB} MB (ratio ${heapFlat.ratio})`);
  console.log(
    `heap per day (MB): ${heapMB.join(', ')}; sidebar feed at the end: ${tally.feed.rows} slot rows, ${tally.feed.jobs} jobs, ` +
      `${fmt((tally.feed.heapBefore - tally.feed.heapWithoutFeed) / 1048576)} MB of the heap after GC`,
  );
  for (const r of result.routes) {
    const met = r.medianMs < GOAL_ROUTE_MS && r.kb < GOAL_ROUTE_KB ? 'met' : 'NOT met';
    console.log(
      `activity route after day ${r.day}, ${r.view} view: ${fmt(r.kb)} KB, ${r.slots} slots, median ${fmt(r.medianMs)} ms (max ${fmt(r.maxMs)}) [goal < ${GOAL_ROUTE_MS} ms, < ${GOAL_ROUTE_KB} KB: ${met}]; ` +
        `polled again unchanged: ${r.unchanged.status}, ${r.unchanged.bytes} bytes, ${fmt(r.unchanged.ms)} ms`,
    );
  }
  if (drawing) {
    console.log(
      `sidebar in Chromium after day 1: timeline drawn ${fmt(drawing.drawnMs)} ms after the tab was shown (its activity fetch ${fmt(drawing.fetchMs)} ms, ${fmt(drawing.fetchKB)} KB on the wire${drawing.fetchedBeforeShown ? ', made as the editor loaded' : ''}), ${drawing.rows} rows, ${drawing.bars} bars [goal < ${GOAL_DRAW_MS} ms: ${drawing.drawnMs < GOAL_DRAW_MS ? 'met' : 'NOT met'}]`,
    );
  }
  console.log(`every slot acted on once: ${verdict.everySlotOnce ? 'yes' : 'NO'} ${JSON.stringify(verdict)}`);
}
process.exitCode = verdict.everySlotOnce ? 0 : 1;

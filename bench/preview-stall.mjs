// Does the editor's schedule preview hold up the runtime? A real Node-RED
// runtime (embedded, the package loaded as installed, one schedule node
// deployed whose windows open every minute, so that a schedule records while
// the previews run) answers POST /media-spaces/schedule/preview for large
// documents, while perf_hooks.monitorEventLoopDelay watches its event loop: the
// longest the loop was held during each answer (the schedule's timers wait
// that long), the time to the answer and its size.
//   node bench/preview-stall.mjs [--reps 3] [--json] [--profile 'list model'] [--nothing-deployed] [--first-only]
// --profile TEXT: CPU profile of the runs of the cases whose label holds TEXT, and what ran in the longest
// stretch without a turn of the event loop (bench/profiles/preview-*.cpuprofile).
// --nothing-deployed: an empty flow instead (the first preview then loads the schedule's code);
// --first-only: the first preview after start alone.
// Goals: the loop never held over 50 ms at a time; an answer under 200 ms.
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import { createRequire } from 'node:module';
import path from 'node:path';
import { monitorEventLoopDelay, performance } from 'node:perf_hooks';
import { BENCH_DIR, embeddedSettings, fmt, installedUserDir, median, sleep, startProfile } from './lib/common.mjs';
import { longestBusy } from './lib/profile-busy.mjs';

const require = createRequire(import.meta.url);
const argv = process.argv.slice(2);
const repsAt = argv.indexOf('--reps');
const REPS = repsAt >= 0 ? Number(argv[repsAt + 1]) : 3;
const JSON_OUT = argv.includes('--json');
const profileAt = argv.indexOf('--profile');
const PROFILE = profileAt >= 0 ? argv[profileAt + 1] : undefined;
const NOTHING_DEPLOYED = argv.includes('--nothing-deployed');
const FIRST_ONLY = argv.includes('--first-only');
const GOAL_DELAY_MS = 50;
const GOAL_ANSWER_MS = 200;

/** `n` windows, each with a channel template, as the editor's YAML or model. */
function documentOf(n, cronOf) {
  const windows = [];
  for (let i = 0; i < n; i++) {
    windows.push({
      id: `w${i}`,
      name: `Programme ${i}`,
      cron: cronOf(i),
      duration: '30m',
      channel: { name: 'Recording {{window.id}} {{slot.local_start}}' },
    });
  }
  return { schedule_id: 'big', timezone: 'Europe/London', windows };
}
const daily = (i) => `${i % 60} ${Math.floor(i / 60) % 24} * * *`;
const everySecond = () => '* * * * * *';

/**
 * One schedule whose windows open every minute and last 50 s: most of the time a slot is recording and the
 * next start's timer is armed. No server and nothing wired: its starts go nowhere, as in a flow being built.
 */
function recordingSchedule() {
  const yaml = 'windows:\n  - id: every-minute\n    cron: "* * * * *"\n    duration: 50s\n    timezone: UTC\n';
  return [
    { id: 'bench-tab', type: 'tab', label: 'bench' },
    {
      id: 'bench-schedule',
      z: 'bench-tab',
      type: 'media-spaces-schedule',
      name: 'recording',
      source: 'yaml',
      yaml,
      scheduleId: 'bench',
      catchUp: true,
      server: '',
      coordination: '',
      x: 200,
      y: 100,
      wires: [[], [], []],
    },
  ];
}

async function startNodeRed() {
  const userDir = installedUserDir('ms-bench-preview-');
  writeFileSync(path.join(userDir, 'flows.json'), JSON.stringify(NOTHING_DEPLOYED ? [] : recordingSchedule()));
  const RED = require('node-red');
  // embedded: the admin routes are served by the embedding app, mounted at httpAdminRoot
  const app = require('express')();
  const server = http.createServer(app);
  RED.init(server, embeddedSettings(userDir));
  app.use('/admin', RED.httpAdmin);
  await RED.start();
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${server.address().port}/admin/media-spaces/schedule/preview`;
  return {
    url,
    async stop() {
      await RED.stop();
      server.close();
      rmSync(userDir, { recursive: true, force: true });
    },
  };
}

/** One preview over HTTP: the longest loop delay while it ran, its time and size. */
async function preview(url, body) {
  const histogram = monitorEventLoopDelay({ resolution: 1 });
  const text = JSON.stringify(body);
  histogram.enable();
  const t0 = performance.now();
  const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: text });
  const answer = await res.text();
  const answerMs = performance.now() - t0;
  histogram.disable();
  const parsed = JSON.parse(answer);
  return {
    status: res.status,
    answerMs,
    maxDelayMs: histogram.max / 1e6,
    bytes: Buffer.byteLength(answer),
    requestBytes: Buffer.byteLength(text),
    ok: parsed.ok,
    windows: parsed.windows?.length,
    total: parsed.total_windows,
    omitted: parsed.omitted,
  };
}

const { stringify } = require('yaml');
const cases = [
  ['2,000 daily windows', documentOf(2000, daily)],
  ['2,000 every-second windows', documentOf(2000, everySecond)],
  ['20,000 windows', documentOf(20000, daily)],
].flatMap(([label, doc]) => [
  { label: `${label}, YAML`, body: { yaml: stringify(doc), count: 5 } },
  { label: `${label}, list model`, body: { model: doc, count: 5 } },
  // what the editor sends of a long list: the windows the preview reads, and the list's length
  {
    label: `${label}, list as the editor sends it`,
    body: { model: { ...doc, windows: doc.windows.slice(0, 50) }, total: doc.windows.length, count: 5 },
  },
]);

const red = await startNodeRed();
const rows = [];
try {
  // with nothing deployed, the first preview loads yaml, zod and the cron code; a deployed schedule has
  await sleep(1500); // the schedule's monitoring starts a second after its deploy
  const first = await preview(red.url, { yaml: 'windows:\n  - id: a\n    cron: "0 6 * * *"\n    duration: 1h\n' });
  rows.push({
    label: NOTHING_DEPLOYED
      ? 'first preview after start, nothing deployed (loads the schedule code)'
      : 'first preview after start, a schedule recording',
    runs: [first],
  });
  for (const c of FIRST_ONLY ? [] : cases) {
    const runs = [];
    const stopProfile = PROFILE !== undefined && c.label.includes(PROFILE) ? await startProfile() : undefined;
    for (let rep = 0; rep < REPS; rep++) {
      runs.push(await preview(red.url, c.body));
      await sleep(50);
    }
    rows.push({ label: c.label, runs });
    if (stopProfile) {
      mkdirSync(path.join(BENCH_DIR, 'profiles'), { recursive: true });
      const file = await stopProfile(path.join(BENCH_DIR, 'profiles', `preview-${Date.now()}.cpuprofile`));
      const busy = longestBusy(JSON.parse(readFileSync(file, 'utf8')), 20);
      console.error(
        `${c.label}: profile ${path.relative(BENCH_DIR, file)}; longest stretch without idle: ${fmt(busy.ms)} ms`,
      );
      for (const f of busy.functions) console.error(`  ${fmt(f.ms).padStart(7)} ms self  ${f.fn}`);
      for (const f of busy.inclusive) console.error(`  ${fmt(f.ms).padStart(7)} ms incl  ${f.fn}`);
    }
  }
} finally {
  await red.stop();
}

const out = rows.map(({ label, runs }) => {
  const last = runs.at(-1);
  return {
    label,
    status: last.status,
    requestKB: last.requestBytes / 1024,
    maxDelayMs: Math.max(...runs.map((r) => r.maxDelayMs)),
    medianMaxDelayMs: median(runs.map((r) => r.maxDelayMs)),
    answerMs: median(runs.map((r) => r.answerMs)),
    answerKB: last.bytes / 1024,
    listed: last.windows,
    total: last.total,
    omitted: last.omitted,
  };
});
if (JSON_OUT) {
  process.stdout.write(`${JSON.stringify(out)}\n`);
} else {
  console.log(
    `Preview stall (Node ${process.version}, ${REPS} runs each; loop delay: perf_hooks.monitorEventLoopDelay, 1 ms resolution)`,
  );
  for (const r of out) {
    const met = r.maxDelayMs < GOAL_DELAY_MS && r.answerMs < GOAL_ANSWER_MS ? 'met' : 'NOT met';
    console.log(
      `- ${r.label}: request ${fmt(r.requestKB)} KB; loop held at most ${fmt(r.maxDelayMs)} ms (median of runs ${fmt(r.medianMaxDelayMs)} ms); ` +
        `answer ${fmt(r.answerMs)} ms, ${fmt(r.answerKB)} KB, ${r.listed ?? 0} of ${r.total ?? '?'} windows listed` +
        `${r.omitted ? `; left out: ${JSON.stringify(r.omitted)}` : ''} [goal < ${GOAL_DELAY_MS} ms held, < ${GOAL_ANSWER_MS} ms answer: ${met}]`,
    );
  }
}

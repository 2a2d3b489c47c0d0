// Guides, bounded: what reading a 200 MB XMLTV guide costs in time and resident memory, through the
// guide reader a schedule uses (guideReader from readers.js: since issue 38 in a worker thread).
//   stops     500 channels x 14 days (207 MB), every programme with its stop; a rule keeping two channels' news
//   nostops   the same guide without stop attributes (each ends where its channel's next one starts)
//   whole     the guide with stops, no rule, the whole 14 days in range: every programme matches
//   whole-nostops  the same without stops
// Each case runs in a fresh child; resident memory (RSS: the process, worker threads included) is sampled
// every 5 ms and at every 64 KB chunk, from the RSS just before the read. With --baseline <dir> each case
// also runs against another build's dist/lib/schedule/sources (the code before a change), the two taking
// turns, and the ratios after/before are printed.
// Usage: npm run build && node bench/guide-bounds.mjs [--only stops,nostops,whole] [--baseline <sources dir>]
//        [--runs 1] [--channels 500] [--days 14]
// With --runs n each figure is the median of n runs (the builds taking turns in each).
// The guides are written to a temporary folder and removed at the end. Prints figures; asserts nothing.
import { fork } from 'node:child_process';
import { createReadStream, createWriteStream, mkdtempSync, rmSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Readable, Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

const require = createRequire(import.meta.url);
const HERE = fileURLToPath(import.meta.url);
const DIST = path.join(path.dirname(HERE), '..', 'dist', 'lib', 'schedule', 'sources');

const { values } = parseArgs({
  options: {
    only: { type: 'string', default: 'stops,nostops,whole' },
    baseline: { type: 'string' },
    runs: { type: 'string', default: '1' },
    channels: { type: 'string', default: '500' },
    days: { type: 'string', default: '14' },
    child: { type: 'string' },
    file: { type: 'string' },
    dist: { type: 'string' },
  },
});

const MB = 1024 * 1024;
const mb = (bytes) => `${(bytes / MB).toFixed(0)} MB`;
const s = (t) => `${(t / 1000).toFixed(2)} s`;
const START = Date.UTC(2026, 9, 1);
const WORDS = 'news weather sport drama studio live report story music film science history travel food nature'.split(
  ' ',
);

// ------------------------------------------------------------------ generation (as bench/feeds.mjs)

function channelDay(channel, day, stops) {
  let out = '';
  for (let slot = 0; slot < 48; slot++) {
    const start = START + day * 86_400_000 + slot * 1_800_000;
    const title = slot % 12 === 0 ? 'News' : `${WORDS[(channel + slot) % WORDS.length]} ${slot % 7}`;
    const desc = Array.from({ length: 48 }, (_, i) => WORDS[(channel * 7 + slot * 3 + i) % WORDS.length]).join(' ');
    const stop = stops ? ` stop="${xmltvTime(start + 1_800_000)}"` : '';
    out +=
      `  <programme start="${xmltvTime(start)}"${stop} channel="ch${channel}.example">\n` +
      `    <title lang="en">${title}</title>\n    <sub-title lang="en">Part ${slot}</sub-title>\n` +
      `    <desc lang="en">${desc}</desc>\n    <category lang="en">${WORDS[slot % WORDS.length]}</category>\n` +
      `    <episode-num system="xmltv_ns">${day}.${slot}.0/1</episode-num>\n` +
      `${slot % 3 === 0 ? '    <new />\n' : '    <previously-shown />\n'}  </programme>\n`;
  }
  return out;
}

function xmltvTime(t) {
  const d = new Date(t);
  const p = (n) => String(n).padStart(2, '0');
  return `${d.getUTCFullYear()}${p(d.getUTCMonth() + 1)}${p(d.getUTCDate())}${p(d.getUTCHours())}${p(d.getUTCMinutes())}00 +0000`;
}

async function generateGuide(file, channels, days, stops) {
  function* parts() {
    yield '<?xml version="1.0" encoding="UTF-8"?>\n<!DOCTYPE tv SYSTEM "xmltv.dtd">\n<tv generator-info-name="bench">\n';
    for (let c = 0; c < channels; c++)
      yield `  <channel id="ch${c}.example"><display-name>Channel ${c}</display-name></channel>\n`;
    // a channel's last programme of the guide, past its end, ends the one before it when there are no stops
    for (let day = 0; day < days + (stops ? 0 : 1); day++)
      for (let c = 0; c < channels; c++) yield day < days ? channelDay(c, day, stops) : lastStart(c, day);
    yield '</tv>\n';
  }
  await pipeline(Readable.from(parts()), createWriteStream(file));
}

const lastStart = (c, day) =>
  `  <programme start="${xmltvTime(START + day * 86_400_000)}" channel="ch${c}.example"><title>Close</title></programme>\n`;

// ------------------------------------------------------------------ children

const CASES = {
  stops: { stops: true, whole: false },
  nostops: { stops: false, whole: false },
  whole: { stops: true, whole: true },
  'whole-nostops': { stops: false, whole: true },
};

function options(kind, days) {
  const range = {
    windowId: 'bench',
    zone: 'Europe/London',
    from: new Date(START),
    to: new Date(START + days * 86_400_000),
  };
  if (CASES[kind].whole) return range;
  return {
    ...range,
    match: { channel: ['ch42.example', 'ch314.example'], title: '^News$', duplicates: 'once' },
    sources: { 'ch42.example': 'source-42' },
  };
}

async function child(kind, file, days, dist) {
  const { guideReader } = require(path.join(dist, 'readers.js'));
  const read = guideReader(options(kind, days));
  const rss0 = process.memoryUsage.rss();
  let peak = rss0;
  const sample = () => {
    const rss = process.memoryUsage.rss();
    if (rss > peak) peak = rss;
  };
  const timer = setInterval(sample, 5);
  const t = performance.now();
  const result = await read(() =>
    createReadStream(file, { highWaterMark: 64 * 1024 }).pipe(
      new Transform({
        transform(chunk, _e, done) {
          sample();
          done(null, chunk);
        },
      }),
    ),
  );
  const time = performance.now() - t;
  clearInterval(timer);
  sample();
  return {
    time,
    rss0,
    above: peak - rss0,
    kept: result.occurrences.length,
    problems: result.problems.length,
    firstProblem: result.problems[0],
    error: result.error,
  };
}

function runChild(kind, file, days, dist) {
  return new Promise((resolve, reject) => {
    const p = fork(HERE, ['--child', kind, '--file', file, '--days', String(days), '--dist', dist], {
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    });
    p.once('message', resolve);
    p.once('error', reject);
    p.once('exit', (code) => code !== 0 && reject(new Error(`${kind} child exited with ${code}`)));
  });
}

// ------------------------------------------------------------------ main

if (values.child) {
  const result = await child(values.child, values.file, Number(values.days), values.dist);
  process.send(result);
  process.exit(0);
}

const only = values.only.split(',');
const channels = Number(values.channels);
const days = Number(values.days);
const builds = [['after', DIST], ...(values.baseline ? [['before', path.resolve(values.baseline)]] : [])];
const scratch = mkdtempSync(path.join(tmpdir(), 'bench-guide-bounds-'));
console.log(`guide bounds benchmark (node ${process.version}, ${new Date().toISOString()})`);
const line = (name, r, spread = '') =>
  `  ${name.padEnd(7)} ${s(r.time).padStart(8)}  peak RSS +${mb(r.above)} (from ${mb(r.rss0)})  kept ${r.kept}  problems ${r.problems}` +
  `${r.error ? `  ERROR ${r.error}` : ''}${spread}${r.firstProblem ? `\n          first problem: ${r.firstProblem.slice(0, 160)}` : ''}`;
try {
  const files = {};
  for (const stops of [true, false]) {
    if (!only.some((k) => CASES[k].stops === stops)) continue;
    const file = path.join(scratch, stops ? 'guide.xml' : 'guide-nostops.xml');
    const t = performance.now();
    await generateGuide(file, channels, days, stops);
    files[stops] = file;
    console.log(
      `guide ${stops ? 'with stops' : 'without stops'}: ${channels} channels x ${days} days, ${mb(statSync(file).size)}, generated in ${s(performance.now() - t)}`,
    );
  }
  for (const kind of only) {
    console.log(`${kind}:`);
    const runs = Object.fromEntries(builds.map(([name]) => [name, []]));
    // the builds take turns within each repetition, so a change in load falls on both alike
    for (let r = 0; r < Number(values.runs); r++) {
      for (const [name, dist] of builds) runs[name].push(await runChild(kind, files[CASES[kind].stops], days, dist));
    }
    const got = {};
    for (const [name] of builds) {
      const list = runs[name];
      const median = (key) => list.map((x) => x[key]).sort((a, b) => a - b)[Math.floor(list.length / 2)];
      got[name] = { ...list[0], time: median('time'), above: median('above') };
      const spread =
        list.length > 1
          ? `  (runs: ${list.map((x) => `${(x.time / 1000).toFixed(1)} s +${(x.above / MB).toFixed(0)} MB`).join(', ')})`
          : '';
      console.log(line(name, got[name], spread));
    }
    if (got.before) {
      console.log(
        `  after/before: time ${(got.after.time / got.before.time).toFixed(2)}, peak RSS growth ${(got.after.above / got.before.above).toFixed(2)}`,
      );
    }
  }
} finally {
  rmSync(scratch, { recursive: true, force: true });
}

// Feeds: what reading a calendar or a programme guide costs.
//   guide     a generated XMLTV guide (500 channels x 14 days, about 200 MB, written streaming to a
//             temporary file) read with readGuide: time, and peak heap above the idle heap
//             (goal: under 64 MB), gzip too
//   dom       on a smaller guide (50 channels), the same read streaming and non-streaming
//             (the whole file read into one string and handed to saxes in one write): time and peak heap
//   calendar  a calendar expanded to 10,000 occurrences (100 daily series in Europe/London over
//             100 days, with EXDATEs and overrides): time, first run and median of the next 5
// Each case runs in a fresh `node --expose-gc` child, so that one case's heap is not another's.
// Usage: npm run build && node bench/feeds.mjs [--only guide,dom,calendar] [--channels 500] [--days 14]
// Prints figures; asserts nothing about time.
import { execFileSync, fork } from 'node:child_process';
import { createReadStream, createWriteStream, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Readable, Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { createGzip } from 'node:zlib';

const require = createRequire(import.meta.url);
const HERE = fileURLToPath(import.meta.url);
const DIST = path.join(path.dirname(HERE), '..', 'dist', 'lib', 'schedule', 'sources');

const { values } = parseArgs({
  options: {
    only: { type: 'string', default: 'guide,dom,calendar' },
    channels: { type: 'string', default: '500' },
    days: { type: 'string', default: '14' },
    child: { type: 'string' },
    file: { type: 'string' },
  },
});

const MB = 1024 * 1024;
const mb = (bytes) => `${(bytes / MB).toFixed(1)} MB`;
const ms = (t) => `${t.toFixed(0)} ms`;
const START = Date.UTC(2026, 9, 1);
const WORDS = 'news weather sport drama studio live report story music film science history travel food nature'.split(
  ' ',
);

// ------------------------------------------------------------------ generation

/** One channel-day of programmes: 48 half-hour slots, each about 600 bytes. */
function channelDay(channel, day) {
  let out = '';
  for (let slot = 0; slot < 48; slot++) {
    const start = START + day * 86_400_000 + slot * 1_800_000;
    const title = slot % 12 === 0 ? 'News' : `${WORDS[(channel + slot) % WORDS.length]} ${slot % 7}`;
    const desc = Array.from({ length: 48 }, (_, i) => WORDS[(channel * 7 + slot * 3 + i) % WORDS.length]).join(' ');
    out +=
      `  <programme start="${xmltvTime(start)}" stop="${xmltvTime(start + 1_800_000)}" channel="ch${channel}.example">\n` +
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

/** Writes the guide streaming: it is never held whole here either. */
async function generateGuide(file, channels, days) {
  function* parts() {
    yield '<?xml version="1.0" encoding="UTF-8"?>\n<!DOCTYPE tv SYSTEM "xmltv.dtd">\n<tv generator-info-name="bench">\n';
    for (let c = 0; c < channels; c++)
      yield `  <channel id="ch${c}.example"><display-name>Channel ${c}</display-name></channel>\n`;
    for (let day = 0; day < days; day++) for (let c = 0; c < channels; c++) yield channelDay(c, day);
    yield '</tv>\n';
  }
  await pipeline(Readable.from(parts()), createWriteStream(file));
}

// ------------------------------------------------------------------ children

const guideOptions = (days) => ({
  windowId: 'bench',
  zone: 'Europe/London',
  from: new Date(START),
  to: new Date(START + days * 86_400_000),
  match: { channel: ['ch42.example', 'ch314.example'], title: '^News$', duplicates: 'once' },
  sources: { 'ch42.example': 'source-42' },
});

/** Samples the heap at every chunk that goes by, and on a timer, from an idle baseline after a full GC. */
function heapMeter() {
  global.gc();
  const idle = process.memoryUsage().heapUsed;
  let peak = idle;
  const sample = () => {
    const used = process.memoryUsage().heapUsed;
    if (used > peak) peak = used;
  };
  const timer = setInterval(sample, 5);
  return {
    idle,
    sample,
    tap: () =>
      new Transform({
        transform(chunk, _e, done) {
          sample();
          done(null, chunk);
        },
      }),
    stop() {
      clearInterval(timer);
      sample();
      return { idle, peak, above: peak - idle };
    },
  };
}

async function child(kind, file, days) {
  const { readGuide } = require(path.join(DIST, 'xmltv.js'));
  const opts = guideOptions(days);
  if (kind === 'stream') {
    const meter = heapMeter();
    const t = performance.now();
    const input = createReadStream(file, { highWaterMark: 64 * 1024 }).pipe(meter.tap());
    const result = await readGuide(input, opts);
    const time = performance.now() - t;
    return { time, heap: meter.stop(), kept: result.occurrences.length, error: result.error };
  }
  if (kind === 'whole') {
    // the parser's non-streaming use: the whole text in memory, handed over in one write
    const meter = heapMeter();
    const t = performance.now();
    const text = readFileSync(file, 'utf8');
    meter.sample();
    const result = await readGuide(Readable.from([text]), opts);
    const time = performance.now() - t;
    return { time, heap: meter.stop(), kept: result.occurrences.length, error: result.error };
  }
  if (kind === 'calendar') {
    const { expandCalendar } = require(path.join(DIST, 'ical.js'));
    const text = calendarText(100, 100);
    // every instance of the 100 x 100 in range (the series start on 1 March)
    const from = new Date(Date.UTC(2026, 1, 28));
    const range = { windowId: 'bench', zone: 'Europe/London', from, to: new Date(from.getTime() + 110 * 86_400_000) };
    const runs = [];
    let count = 0;
    for (let i = 0; i < 6; i++) {
      const t = performance.now();
      const result = expandCalendar(text, range);
      runs.push(performance.now() - t);
      count = result.occurrences.length;
      if (result.error || result.problems.length > 0) throw new Error(result.error ?? result.problems[0]);
    }
    const warm = runs.slice(1).sort((a, b) => a - b)[2];
    return { first: runs[0], warm, count, bytes: Buffer.byteLength(text) };
  }
  throw new Error(`unknown case ${kind}`);
}

/** `events` daily series over `days` days, each with two EXDATEs and one moved instance: 10,000 occurrences for 100 x 100. */
function calendarText(events, days) {
  const lines = ['BEGIN:VCALENDAR', 'VERSION:2.0', 'PRODID:-//media-spaces//bench//EN'];
  const date = (d, h, m) =>
    `2026${String(3 + Math.floor(d / 31)).padStart(2, '0')}${String((d % 31) + 1).padStart(2, '0')}T${String(h).padStart(2, '0')}${String(m).padStart(2, '0')}00`;
  for (let e = 0; e < events; e++) {
    const h = e % 24;
    const m = (e * 7) % 60;
    lines.push(
      'BEGIN:VEVENT',
      `UID:series-${e}@bench`,
      'DTSTAMP:20260101T000000Z',
      `SUMMARY:REC Series ${e}`,
      `DTSTART;TZID=Europe/London:${date(0, h, m)}`,
      'DURATION:PT25M',
      `RRULE:FREQ=DAILY;COUNT=${days + 2}`,
      `EXDATE;TZID=Europe/London:${date(10, h, m)},${date(20, h, m)}`,
      'END:VEVENT',
      'BEGIN:VEVENT',
      `UID:series-${e}@bench`,
      'DTSTAMP:20260101T000000Z',
      `RECURRENCE-ID;TZID=Europe/London:${date(5, h, m)}`,
      `SUMMARY:REC Series ${e} (moved)`,
      `DTSTART;TZID=Europe/London:${date(5, (h + 1) % 24, m)}`,
      'DURATION:PT25M',
      'END:VEVENT',
    );
  }
  lines.push('END:VCALENDAR', '');
  return lines.join('\r\n');
}

function runChild(kind, file, days) {
  return new Promise((resolve, reject) => {
    const p = fork(HERE, ['--child', kind, '--file', file ?? '', '--days', String(days)], {
      execArgv: ['--expose-gc'],
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    });
    p.once('message', resolve);
    p.once('error', reject);
    p.once('exit', (code) => code !== 0 && reject(new Error(`${kind} child exited with ${code}`)));
  });
}

// ------------------------------------------------------------------ main

if (values.child) {
  const result = await child(values.child, values.file, Number(values.days));
  process.send(result);
  process.exit(0);
}

const only = new Set(values.only.split(','));
const channels = Number(values.channels);
const days = Number(values.days);
const scratch = mkdtempSync(path.join(tmpdir(), 'bench-feeds-'));
console.log(`feeds benchmark (node ${process.version}, ${new Date().toISOString()})`);
try {
  if (only.has('guide')) {
    const file = path.join(scratch, 'guide.xml');
    let t = performance.now();
    await generateGuide(file, channels, days);
    const size = statSync(file).size;
    console.log(`guide: ${channels} channels x ${days} days, ${mb(size)}, generated in ${ms(performance.now() - t)}`);
    const plain = await runChild('stream', file, days);
    console.log(
      `  readGuide streaming       ${ms(plain.time)}  ${(size / MB / (plain.time / 1000)).toFixed(1)} MB/s  ` +
        `peak heap ${mb(plain.heap.above)} above idle (${mb(plain.heap.idle)})  kept ${plain.kept}${plain.error ? `  ERROR ${plain.error}` : ''}`,
    );
    console.log(`  goal: peak heap under 64 MB above idle: ${plain.heap.above < 64 * MB ? 'met' : 'NOT met'}`);
    t = performance.now();
    await pipeline(createReadStream(file), createGzip({ level: 6 }), createWriteStream(`${file}.gz`));
    rmSync(file);
    const gz = await runChild('stream', `${file}.gz`, days);
    console.log(
      `  readGuide gzip (${mb(statSync(`${file}.gz`).size)})  ${ms(gz.time)}  peak heap ${mb(gz.heap.above)} above idle  kept ${gz.kept}`,
    );
  }
  if (only.has('dom')) {
    const small = Math.max(1, Math.round(channels / 10));
    const file = path.join(scratch, 'small.xml');
    await generateGuide(file, small, days);
    const size = statSync(file).size;
    const stream = await runChild('stream', file, days);
    const whole = await runChild('whole', file, days);
    console.log(`guide: ${small} channels x ${days} days, ${mb(size)}, streaming beside non-streaming (saxes both)`);
    console.log(`  streaming (64 KB chunks)  ${ms(stream.time)}  peak heap ${mb(stream.heap.above)} above idle`);
    console.log(`  whole text, one write     ${ms(whole.time)}  peak heap ${mb(whole.heap.above)} above idle`);
    console.log(
      `  ratio streaming / whole: time ${(stream.time / whole.time).toFixed(2)}, peak heap ${(stream.heap.above / whole.heap.above).toFixed(2)}`,
    );
  }
  if (only.has('calendar')) {
    const cal = await runChild('calendar', undefined, days);
    console.log(
      `calendar: ${(cal.bytes / 1024).toFixed(0)} KB, 100 daily series with EXDATEs and overrides, expanded to ${cal.count} occurrences`,
    );
    console.log(`  expandCalendar first run  ${ms(cal.first)}   warm (median of 5) ${ms(cal.warm)}`);
  }
} finally {
  rmSync(scratch, { recursive: true, force: true });
}
// the machine's load, for reading the figures
console.log(`load average: ${execFileSync('cat', ['/proc/loadavg']).toString().trim()}`);

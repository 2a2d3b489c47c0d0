// Calendars: what expanding a calendar costs as its series age, and as it grows.
//   series   4,000 series started on 1 March 2015 (Europe/London, 30 minutes each; 2 in 4 FREQ=DAILY,
//            1 in 4 FREQ=DAILY;COUNT=10000, 1 in 4 FREQ=WEEKLY;BYDAY=MO,WE,FR), expanded for one week of
//            December 2026: time, peak RSS of the process, occurrences kept
//   singles  a calendar of single events (no RRULE) of about --mb MB (default 26), expanded for its
//            whole span: time, peak RSS, occurrences kept
// Time is wall time and the process's CPU time (user + system): on a shared machine the second is the
// one that holds still.
// Each case runs in a fresh child process, with the heap the calendar worker gets (512 MB old space),
// so that running out of it shows as it would in the worker. Reads the compiled expander from
// --dist (default: this checkout's dist/lib/schedule/sources), so the same bench runs against an
// older build: `node bench/calendar-age.mjs --dist /tmp/old/dist/lib/schedule/sources`.
// Usage: npm run build && node bench/calendar-age.mjs [--only series,singles] [--series 4000] [--mb 26]
//        [--timeout 300] [--max 1000000]
// --max is the occurrences kept (the expander's maxOccurrences; the schedule's is 50,000): the default
// keeps every one, the most memory a calendar of that size can take.
// Prints figures; asserts nothing about time.
import { fork } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

const HERE = fileURLToPath(import.meta.url);
const { values } = parseArgs({
  options: {
    only: { type: 'string', default: 'series,singles' },
    series: { type: 'string', default: '4000' },
    mb: { type: 'string', default: '26' },
    timeout: { type: 'string', default: '300' },
    max: { type: 'string', default: '1000000' },
    dist: { type: 'string', default: path.join(path.dirname(HERE), '..', 'dist', 'lib', 'schedule', 'sources') },
    child: { type: 'string' },
  },
});

const MB = 1024 * 1024;

/** `n` series started in 2015, written as calendars write them. */
function seriesText(n) {
  const lines = ['BEGIN:VCALENDAR', 'VERSION:2.0', 'PRODID:-//media-spaces//bench//EN'];
  for (let i = 0; i < n; i++) {
    const hh = String(i % 24).padStart(2, '0');
    const rule = i % 4 === 0 ? 'FREQ=DAILY;COUNT=10000' : i % 4 === 1 ? 'FREQ=WEEKLY;BYDAY=MO,WE,FR' : 'FREQ=DAILY';
    lines.push(
      'BEGIN:VEVENT',
      `UID:series-${i}@bench`,
      'DTSTAMP:20150101T000000Z',
      `SUMMARY:Series ${i}`,
      `DTSTART;TZID=Europe/London:20150301T${hh}0000`,
      'DURATION:PT30M',
      `RRULE:${rule}`,
      'END:VEVENT',
    );
  }
  lines.push('END:VCALENDAR', '');
  return lines.join('\r\n');
}

/** Single events, one an hour from 2020 on, until the text is `mb` MB. */
function singlesText(mb) {
  const parts = ['BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//media-spaces//bench//EN\r\n'];
  let size = parts[0].length;
  const start = Date.UTC(2020, 0, 1);
  const stamp = (t) =>
    new Date(t)
      .toISOString()
      .replace(/[-:]/g, '')
      .replace(/\.\d{3}/, '');
  let i = 0;
  while (size < mb * MB) {
    const t = start + i * 3_600_000;
    const event =
      `BEGIN:VEVENT\r\nUID:single-${i}@bench\r\nDTSTAMP:20200101T000000Z\r\nSUMMARY:Programme ${i}\r\n` +
      `DESCRIPTION:A programme of the bench calendar\\, number ${i}\\, with a line of text as feeds carry.\r\n` +
      `LOCATION:Studio ${i % 12}\r\nDTSTART:${stamp(t)}\r\nDTEND:${stamp(t + 1_800_000)}\r\nEND:VEVENT\r\n`;
    parts.push(event);
    size += event.length;
    i++;
  }
  parts.push('END:VCALENDAR\r\n');
  return { text: parts.join(''), events: i, from: new Date(start), to: new Date(start + (i + 1) * 3_600_000) };
}

async function child(kind) {
  const { expandCalendar } = await import(path.join(values.dist, 'ical.js'));
  let text;
  let opts;
  let detail;
  if (kind === 'series') {
    const n = Number(values.series);
    text = seriesText(n);
    const from = new Date(Date.UTC(2026, 10, 30));
    opts = { windowId: 'bench', zone: 'Europe/London', from, to: new Date(from.getTime() + 7 * 86_400_000) };
    opts.maxOccurrences = Number(values.max);
    detail = `${n} series`;
  } else {
    const made = singlesText(Number(values.mb));
    text = made.text;
    opts = { windowId: 'bench', zone: 'UTC', from: made.from, to: made.to, maxOccurrences: Number(values.max) };
    detail = `${made.events} events`;
  }
  const bytes = Buffer.byteLength(text);
  const cpu = process.cpuUsage();
  const started = performance.now();
  const result = expandCalendar(text, opts);
  const time = performance.now() - started;
  const used = process.cpuUsage(cpu);
  // the process's peak resident set (getrusage's ru_maxrss, in KB): the expansion is synchronous, so no
  // sampling could see inside it
  const peak = process.resourceUsage().maxRSS * 1024;
  process.send({
    kind,
    detail,
    bytes,
    time,
    cpu: (used.user + used.system) / 1000,
    peakRss: peak,
    kept: result.occurrences.length,
    problems: result.problems.length,
    error: result.error,
  });
}

function runChild(kind) {
  return new Promise((resolve) => {
    const started = performance.now();
    const p = fork(HERE, ['--child', kind, ...process.argv.slice(2)], {
      execArgv: ['--max-old-space-size=512'],
      stdio: ['ignore', 'inherit', 'pipe', 'ipc'],
    });
    let err = '';
    p.stderr.on('data', (d) => {
      err += d;
    });
    let answer;
    const timer = setTimeout(() => p.kill('SIGKILL'), Number(values.timeout) * 1000);
    p.on('message', (m) => {
      answer = m;
    });
    p.on('exit', (code, signal) => {
      clearTimeout(timer);
      const took = performance.now() - started;
      if (answer) resolve(answer);
      else if (signal === 'SIGKILL') resolve({ kind, failed: `not done after ${Math.round(took / 1000)} s` });
      else
        resolve({
          kind,
          failed: /heap out of memory/i.test(err) ? 'JavaScript heap out of memory' : `exit ${code} ${err.slice(-200)}`,
        });
    });
  });
}

if (values.child) {
  await child(values.child);
} else {
  console.log(`expander: ${values.dist}`);
  for (const kind of values.only.split(',')) {
    const r = await runChild(kind);
    if (r.failed) console.log(`${kind}: ${r.failed}`);
    else
      console.log(
        `${kind}: ${r.detail}, ${(r.bytes / MB).toFixed(1)} MB of text: ${(r.time / 1000).toFixed(2)} s ` +
          `(CPU ${(r.cpu / 1000).toFixed(2)} s), ` +
          `peak RSS ${(r.peakRss / MB).toFixed(0)} MB, ${r.kept} occurrences, ${r.problems} problems` +
          (r.error ? `, error: ${r.error}` : ''),
      );
  }
}

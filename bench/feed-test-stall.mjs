// Does "Test feed" hold up the runtime? A generated calendar (default 16 MB, the test's cap) is
// tested as the route does it (testFeedWindow: the calendar expanded in a worker thread), and read
// the way a schedule's own feed reader does it (expandCalendar on the calling thread), while
// perf_hooks.monitorEventLoopDelay watches the event loop: the longest the loop was held (a
// schedule's timers wait that long), and the time to the answer. Prints figures; asserts nothing.
//   npm run build && node bench/feed-test-stall.mjs [--mb 16]
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { monitorEventLoopDelay, performance } from 'node:perf_hooks';

const require = createRequire(import.meta.url);
const dist = path.join(path.dirname(new URL(import.meta.url).pathname), '..', 'dist', 'lib', 'schedule', 'sources');
const { testFeedWindow } = require(path.join(dist, 'feed-test.js'));
const { Feed } = require(path.join(dist, 'feed.js'));
const { calendarReader } = require(path.join(dist, 'readers.js'));

const argv = process.argv.slice(2);
const mbAt = argv.indexOf('--mb');
const MB = mbAt >= 0 ? Number(argv[mbAt + 1]) : 15.5;

function calendar(mb) {
  const lines = ['BEGIN:VCALENDAR', 'VERSION:2.0', 'PRODID:-//bench//EN'];
  let size = 0;
  for (let i = 0; size < mb * 1024 * 1024; i++) {
    const start = new Date(Date.now() + (i % 2000) * 3600_000)
      .toISOString()
      .replace(/[-:]/g, '')
      .replace(/\.\d{3}/, '');
    const event = [
      'BEGIN:VEVENT',
      `UID:e${i}@bench`,
      'DTSTAMP:20260101T000000Z',
      `SUMMARY:REC Event ${i}`,
      `DTSTART:${start}`,
      'DURATION:PT30M',
      'END:VEVENT',
    ];
    size += event.join('\r\n').length + 2;
    lines.push(...event);
  }
  lines.push('END:VCALENDAR', '');
  return lines.join('\r\n');
}

async function watched(run) {
  const h = monitorEventLoopDelay({ resolution: 5 });
  h.enable();
  const t = performance.now();
  const result = await run();
  const ms = performance.now() - t;
  h.disable();
  return { ms: Math.round(ms), maxLoopMs: Math.round(h.max / 1e6), result };
}

const dir = mkdtempSync(path.join(tmpdir(), 'feed-test-stall-'));
try {
  const file = path.join(dir, 'big.ics');
  writeFileSync(file, calendar(MB));
  const window = { id: 'big', ical: file, match: { title: '^REC ' } };
  const worker = await watched(() => testFeedWindow({ window, timezone: 'UTC' }));
  const feed = new Feed({ location: file, label: 'big', dir: path.join(dir, 'snap'), allowEmpty: true });
  const now = Date.now();
  const inline = await watched(() =>
    feed.refresh(
      calendarReader({
        windowId: 'big',
        zone: 'UTC',
        from: new Date(now),
        to: new Date(now + 28 * 86_400_000),
        match: { title: '^REC ' },
      }),
    ),
  );
  const listed = worker.result.occurrences.length + worker.result.more;
  console.log(
    `calendar ${MB} MB: ${listed} occurrences in 4 weeks (test feed), ${inline.result.result?.occurrences.length ?? 0} (inline)`,
  );
  console.log(`test feed (worker thread): answer ${worker.ms} ms, event loop held at most ${worker.maxLoopMs} ms`);
  console.log(`inline expansion:          answer ${inline.ms} ms, event loop held at most ${inline.maxLoopMs} ms`);
  console.log(`longest hold, inline / worker: ${(inline.maxLoopMs / Math.max(1, worker.maxLoopMs)).toFixed(1)}x`);
} finally {
  rmSync(dir, { recursive: true, force: true });
}

import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { promisify } from 'node:util';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_READERS, READ_STOPPED, readerSlot, readerSlots } from '../../../../lib/schedule/sources/reader-slots';
import { calendarReader, guideReader } from '../../../../lib/schedule/sources/readers';
import { BodyTooLarge, openBody } from '../../../../lib/schedule/sources/stream-body';
import { type GuideOptions, MAX_PROGRAMMES, parseXmltvTime, readGuide } from '../../../../lib/schedule/sources/xmltv';

const FIXTURES = path.join(__dirname, '../../../fixtures/feeds');
const DIST = path.join(__dirname, '../../../../dist/lib/schedule/sources');

const october: GuideOptions = {
  windowId: 'epg',
  zone: 'Europe/London',
  from: new Date('2026-10-01T00:00:00Z'),
  to: new Date('2026-10-15T00:00:00Z'),
};
const guide = (programmes: string) =>
  `<?xml version="1.0" encoding="UTF-8"?>\n<tv>\n<channel id="c1"><display-name>One</display-name></channel>\n${programmes}\n</tv>\n`;
const body = (data: string | Buffer) => Readable.from([Buffer.isBuffer(data) ? data : Buffer.from(data)]);
const times = (r: Awaited<ReturnType<typeof readGuide>>) =>
  r.occurrences.map(
    (o) =>
      `${o.details?.channel} ${o.start.toISOString().slice(5, 16)}–${o.end.toISOString().slice(11, 16)} ${o.title}`,
  );
const iso = (t: number | undefined) => (t === undefined ? undefined : new Date(t).toISOString());

/** `<a><a>…` n deep, gzip: a few hundred KB that inflate to n × 3 bytes (streamed, never held whole). */
function nestingBomb(depth: number): Buffer {
  const { gzipSync: gz } = require('node:zlib') as typeof import('node:zlib');
  return gz(Buffer.concat([Buffer.from('<tv>'), Buffer.alloc(depth * 3, '<a>')]), { level: 9 });
}

describe('one cap on decoded bytes, whatever the bytes say', () => {
  it('openBody counts what comes out of gunzip: a small gzip that inflates past the cap is stopped at it', async () => {
    const bomb = gzipSync(Buffer.alloc(64 * 1024 * 1024, 'x'));
    expect(bomb.length).toBeLessThan(100 * 1024);
    let read = 0;
    const err = await (async () => {
      for await (const chunk of openBody(body(bomb), 1024 * 1024)) read += chunk.length;
    })().catch((e) => e);
    expect(err).toBeInstanceOf(BodyTooLarge);
    expect(read).toBeLessThanOrEqual(1024 * 1024);
  });

  it('a gzip guide that inflates past the guide cap is refused by size, not read to the end', async () => {
    const big = gzipSync(guide('<!-- x -->\n'.repeat(400_000)));
    const result = await readGuide(body(big), { ...october, maxBytes: 1024 * 1024 });
    expect(result.error).toBe('The guide is larger than 1 MB (counted after gunzip); it is refused.');
  });

  it('a gzip calendar is read up to 16 MB once gunzipped, as the docs say (it was 64 MB of text)', async () => {
    const ics = readFileSync(path.join(FIXTURES, 'newsroom.ics'), 'utf8');
    const padded = ics.replace('END:VCALENDAR', `X-FILLER:${'z'.repeat(17 * 1024 * 1024)}\r\nEND:VCALENDAR`);
    const result = await calendarReader({ ...october, defaultDuration: 3600_000 })(() => body(gzipSync(padded)));
    expect(result.error).toBe('The calendar is larger than 16 MB (counted after gunzip); it is refused.');
  });
});

describe('limits on nesting, text, attributes and programmes kept', () => {
  it('a gzip of 2 MB of nesting is refused at 33 elements deep, in a few ms of parsing', async () => {
    const started = Date.now();
    const result = await readGuide(body(nestingBomb(700_000)), october);
    expect(result.error).toBe('The guide nests elements more than 32 deep (line 1); it is refused.');
    expect(Date.now() - started).toBeLessThan(5000);
  });

  it('a title of 15 MB comes back cut to 4 KB and named, in a guide', async () => {
    const title = 'T'.repeat(15 * 1024 * 1024);
    // the run cap (1 MB between tags) refuses it whole: a title that size is no guide's
    const refused = await readGuide(
      body(
        guide(
          `<programme start="20261003190000" stop="20261003200000" channel="c1"><title>${title}</title></programme>`,
        ),
      ),
      october,
    );
    expect(refused.error).toMatch(/^The guide has more than 1 MB of text, comment or tag without markup between/);
    // under the run cap, past the title cap: cut and named
    const result = await readGuide(
      body(
        guide(
          `<programme start="20261003190000" stop="20261003200000" channel="c1"><title>${'T'.repeat(9000)}</title><sub-title>${'s'.repeat(5000)}</sub-title><desc>${'d'.repeat(20_000)}</desc></programme>`,
        ),
      ),
      october,
    );
    const [o] = result.occurrences;
    expect([o.title?.length, o.details?.subtitle?.length, o.details?.description?.length]).toEqual([4096, 4096, 16384]);
    expect(result.problems).toEqual([
      `The programme "${'T'.repeat(60)}…" on channel "c1" (line 4) has a title, a sub-title, a desc longer than the guide's limits (4096 characters, 16384 for a desc); they are cut.`,
    ]);
  });

  it('a 15 MB SUMMARY in a calendar comes back cut to 4 KB, and named', async () => {
    const ics = [
      'BEGIN:VCALENDAR',
      'VERSION:2.0',
      'PRODID:-//test//EN',
      'BEGIN:VEVENT',
      'UID:long@test',
      'DTSTAMP:20261001T000000Z',
      'DTSTART:20261003T190000Z',
      'DTEND:20261003T200000Z',
      `SUMMARY:${'S'.repeat(15 * 1024 * 1024)}`,
      'END:VEVENT',
      'END:VCALENDAR',
      '',
    ].join('\r\n');
    const result = await calendarReader({ ...october, defaultDuration: 3600_000 })(() => body(ics));
    expect(result.error).toBeUndefined();
    expect(result.occurrences.map((o) => o.title?.length)).toEqual([4096]);
    expect(result.problems.at(-1)).toMatch(
      /^The event "S{60}" \(long@test\) has a title longer than 4096 characters .*; it is cut\.$/,
    );
  });

  it('a programme with a channel attribute over 1 KB is left out and named', async () => {
    const result = await readGuide(
      body(
        guide(
          `<programme start="20261003190000" stop="20261003200000" channel="${'c'.repeat(2000)}"><title>X</title></programme>`,
        ),
      ),
      october,
    );
    expect(result.occurrences).toEqual([]);
    expect(result.problems[0]).toMatch(/has a channel attribute longer than 1024 characters; it is left out\.$/);
  });

  it('the matching programmes kept are the earliest 10,000, the rest counted in one problem', {
    timeout: 60_000,
  }, async () => {
    const n = MAX_PROGRAMMES + 2000;
    const start = Date.UTC(2026, 9, 1);
    const parts: string[] = [];
    // written latest first: the cap keeps the earliest by start, not by place in the file
    for (let i = n - 1; i >= 0; i--) {
      parts.push(
        `<programme start="${xmltv(start + i * 10_000)}" stop="${xmltv(start + (i + 1) * 10_000)}" channel="c1"><title>P</title></programme>`,
      );
    }
    const result = await readGuide(body(guide(parts.join('\n'))), october);
    expect(result.occurrences).toHaveLength(MAX_PROGRAMMES);
    expect(result.occurrences[0].start.getTime()).toBe(start);
    expect(result.problems).toEqual([
      `The guide has more than 10,000 matching programmes in range; the earliest 10,000 are kept, the 2,000 from ${new Date(start + MAX_PROGRAMMES * 10_000).toISOString().slice(0, 19)}Z on are left out.`,
    ]);
  });
});

describe('the text a read hands back is bounded', () => {
  it('past 16 M characters of kept text, the later programmes keep title and times, not their desc', {
    timeout: 60_000,
  }, async () => {
    const start = Date.UTC(2026, 9, 2);
    const desc = 'd'.repeat(16 * 1024);
    const programmes = Array.from(
      { length: 1100 },
      (_, i) =>
        `<programme start="${xmltv(start + i * 60_000)}" stop="${xmltv(start + (i + 1) * 60_000)}" channel="c1"><title>P${i}</title><desc>${desc}</desc></programme>`,
    );
    const result = await readGuide(body(guide(programmes.join('\n'))), october);
    expect(result.error).toBeUndefined();
    expect(result.occurrences).toHaveLength(1100);
    const withDesc = result.occurrences.filter((o) => o.details?.description !== undefined).length;
    expect(withDesc).toBeGreaterThan(1000);
    expect(withDesc).toBeLessThan(1100);
    expect(result.occurrences.at(-1)?.title).toBe('P1099');
    expect(result.problems).toEqual([
      `The guide's matching programmes carry more than 16 M characters of text; the ${1100 - withDesc} from ${new Date(start + withDesc * 60_000).toISOString().slice(0, 19)}Z on are kept without their desc, sub-title and categories.`,
    ]);
    const chars = result.occurrences.reduce((n, o) => n + (o.details?.description?.length ?? 0), 0);
    expect(chars).toBeLessThanOrEqual(16 * 1024 * 1024);
  });
});

describe('a missing stop is the next start on the channel, in start order', () => {
  it('an unsorted guide without stops loses no programme', async () => {
    const result = await readGuide(
      body(
        guide(
          [
            '<programme start="20261003200000" channel="c1"><title>Third</title></programme>',
            '<programme start="20261003180000" channel="c1"><title>First</title></programme>',
            '<programme start="20261003190000" channel="c2"><title>Other</title></programme>',
            '<programme start="20261003210000" channel="c1"><title>Last</title></programme>',
            '<programme start="20261003190000" channel="c1"><title>Second</title></programme>',
            '<programme start="20261003230000" channel="c2"><title>Other end</title></programme>',
          ].join('\n'),
        ),
      ),
      october,
    );
    expect(times(result)).toEqual([
      'c1 10-03T18:00–19:00 First',
      'c1 10-03T19:00–20:00 Second',
      'c2 10-03T19:00–23:00 Other',
      'c1 10-03T20:00–21:00 Third',
    ]);
    expect(result.problems).toHaveLength(2); // Last and Other end: no later programme on their channel
  });

  it('a programme that does not match still ends the one before it', async () => {
    const result = await readGuide(
      body(
        guide(
          [
            '<programme start="20261003190000" channel="c1"><title>Other</title></programme>',
            '<programme start="20261003180000" channel="c1"><title>News</title></programme>',
          ].join('\n'),
        ),
      ),
      { ...october, match: { title: '^News$' } },
    );
    expect(times(result)).toEqual(['c1 10-03T18:00–19:00 News']);
  });

  it('a programme ended before the range by a later one is not kept', async () => {
    const result = await readGuide(
      body(
        guide(
          [
            '<programme start="20260930180000" channel="c1"><title>Before</title></programme>',
            '<programme start="20260930190000" channel="c1"><title>Still before</title></programme>',
            '<programme start="20261001010000" channel="c1"><title>In</title></programme>',
            '<programme start="20261001020000" stop="20261001030000" channel="c1"><title>After</title></programme>',
          ].join('\n'),
        ),
      ),
      october,
    );
    expect(times(result)).toEqual([
      'c1 09-30T19:00–01:00 Still before',
      'c1 10-01T01:00–02:00 In',
      'c1 10-01T02:00–03:00 After',
    ]);
  });
});

describe('XMLTV times as the DTD reads them', () => {
  it('reads the zone names XMLTV writes, the DTD example first', () => {
    expect(iso(parseXmltvTime('20010829000500 BST'))).toBe('2001-08-28T23:05:00.000Z');
    const offsets: Record<string, number> = {
      UTC: 0,
      GMT: 0,
      BST: 1,
      CET: 1,
      CEST: 2,
      EET: 2,
      EEST: 3,
      WET: 0,
      WEST: 1,
      EST: -5,
      EDT: -4,
      CST: -6,
      CDT: -5,
      MST: -7,
      MDT: -6,
      PST: -8,
      PDT: -7,
    };
    for (const [name, hours] of Object.entries(offsets)) {
      expect(parseXmltvTime(`20261003120000 ${name}`), name).toBe(Date.UTC(2026, 9, 3, 12 - hours));
      expect(parseXmltvTime(`20261003120000 ${name.toLowerCase()}`), name).toBe(Date.UTC(2026, 9, 3, 12 - hours));
    }
    for (const bad of ['20261003120000 IST', '20261003120000 XYZ', '20261003120000 toString']) {
      expect(parseXmltvTime(bad), bad).toBeUndefined();
    }
  });

  it('reads partial times: the start of the year, month, day, hour or minute', () => {
    expect(iso(parseXmltvTime('2026'))).toBe('2026-01-01T00:00:00.000Z');
    expect(iso(parseXmltvTime('202610'))).toBe('2026-10-01T00:00:00.000Z');
    expect(iso(parseXmltvTime('20261003'))).toBe('2026-10-03T00:00:00.000Z');
    expect(iso(parseXmltvTime('2026100317 +0100'))).toBe('2026-10-03T16:00:00.000Z');
    expect(iso(parseXmltvTime('202610031705 BST'))).toBe('2026-10-03T16:05:00.000Z');
    for (const bad of ['202613', '2026100', '20261003170', '20261032', '0000']) {
      expect(parseXmltvTime(bad), bad).toBeUndefined();
    }
  });

  it('reads the fixture of named zones and partial times, which tv_validate_file accepts', async () => {
    const file = path.join(FIXTURES, 'guide-zones.xml');
    const { stdout } = await promisify(execFile)('tv_validate_file', [file], {
      env: { ...process.env, XMLTV_SUPPLEMENT: '/usr/share/xmltv' },
    });
    expect(stdout.trim()).toBe('Validated ok.');
    const result = await readGuide(body(readFileSync(file)), october);
    expect(result.problems).toEqual([]);
    expect(times(result)).toEqual([
      'zones.example 10-03T05:00–07:00 Breakfast',
      'zones.example 10-03T16:05–17:00 Teatime',
      'zones.example 10-03T17:00–18:00 Evening',
      'zones.example 10-03T22:00–23:30 Late',
    ]);
  });
});

describe('feed readers at once', () => {
  it(`at most ${MAX_READERS} run at once; the others start in order as they end`, async () => {
    const started: number[] = [];
    const releases: Array<() => void> = [];
    const all = Array.from({ length: MAX_READERS + 2 }, (_, i) =>
      readerSlot().then((release) => {
        started.push(i);
        releases[i] = release;
      }),
    );
    await new Promise((resolve) => setTimeout(resolve, 10));
    expect(started).toEqual([0, 1]);
    expect(readerSlots()).toEqual({ running: 2, waiting: 2 });
    releases[1]();
    releases[1](); // a second call ends nothing more
    await new Promise((resolve) => setTimeout(resolve, 10));
    expect(started).toEqual([0, 1, 2]);
    releases[0]();
    await Promise.all(all);
    expect(started).toEqual([0, 1, 2, 3]);
    releases[2]();
    releases[3]();
    expect(readerSlots()).toEqual({ running: 0, waiting: 0 });
  });
});

describe('a read stopped (its schedule closed)', () => {
  it('gives up its place in the queue at once, and the next reader gets the turn it would have had', async () => {
    const held = await Promise.all(Array.from({ length: MAX_READERS }, () => readerSlot()));
    const stop = new AbortController();
    const stopped = readerSlot(stop.signal);
    let nextRan = false;
    const next = readerSlot().then((release) => {
      nextRan = true;
      return release;
    });
    expect(readerSlots()).toEqual({ running: MAX_READERS, waiting: 2 });
    stop.abort();
    await expect(stopped).rejects.toThrow(READ_STOPPED);
    expect(readerSlots()).toEqual({ running: MAX_READERS, waiting: 1 });
    held[0]();
    (await next)();
    expect(nextRan).toBe(true);
    held[1]();
    expect(readerSlots()).toEqual({ running: 0, waiting: 0 });
    await expect(readerSlot(stop.signal)).rejects.toThrow(READ_STOPPED);
    expect(readerSlots()).toEqual({ running: 0, waiting: 0 });
  });
});

/** The built package's modules (dist/), where the readers run in workers: loaded by the cases that need them. */
const built = {
  there: existsSync(path.join(DIST, 'guide-worker.js')),
  slots: () =>
    require(path.join(DIST, 'reader-slots.js')) as typeof import('../../../../lib/schedule/sources/reader-slots'),
  guide: () =>
    require(path.join(DIST, 'guide-worker.js')) as typeof import('../../../../lib/schedule/sources/guide-worker'),
  calendar: () =>
    require(path.join(DIST, 'calendar-worker.js')) as typeof import('../../../../lib/schedule/sources/calendar-worker'),
  readers: () => require(path.join(DIST, 'readers.js')) as typeof import('../../../../lib/schedule/sources/readers'),
};

describe('feeds are read in workers with a bounded heap (built package)', () => {
  let dir = '';
  // made and removed only where the built package's cases run (a describe whose cases are all skipped runs no hooks)
  beforeAll(() => {
    dir = mkdtempSync(path.join(tmpdir(), 'ms-guide-worker-'));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it.runIf(built.there)(
    'a guide that needs more heap than the reader has reads as broken; this thread lives on',
    { timeout: 60_000 },
    async () => {
      const { readGuideOffThread } = built.guide();
      const programmes = Array.from(
        { length: 2500 },
        (_, i) =>
          `<programme start="${xmltv(Date.UTC(2026, 9, 2) + i * 60_000)}" stop="${xmltv(Date.UTC(2026, 9, 2) + (i + 1) * 60_000)}" channel="c1"><title>P${i}</title><desc>${String(i).padEnd(16_000, 'd')}</desc></programme>`,
      );
      const file = path.join(dir, 'heavy.xml.gz');
      writeFileSync(file, gzipSync(guide(programmes.join('\n'))));
      const heavy = await readGuideOffThread(Readable.from([readFileSync(file)]), october, 60_000, 32);
      expect(heavy.error).toMatch(
        /^The guide is too large to read: its reader ran out of memory \(32 MB of heap\); it is refused\.$/,
      );
      // the same reader with its default heap reads a small guide, posted in small chunks
      const small = guide(programmes.slice(0, 3).join('\n'));
      const chunks = Readable.from(
        Array.from({ length: Math.ceil(small.length / 1000) }, (_, i) =>
          Buffer.from(small.slice(i * 1000, (i + 1) * 1000)),
        ),
      );
      const ok = await readGuideOffThread(chunks, october, 60_000);
      expect(ok.error).toBeUndefined();
      expect(ok.occurrences.map((o) => o.title)).toEqual(['P0', 'P1', 'P2']);
      expect(ok.occurrences[0].start).toBeInstanceOf(Date);
    },
  );

  it.runIf(built.there)(
    "a guide waiting for a reader's turn is not opened until its turn comes, then read",
    { timeout: 60_000 },
    async () => {
      const slots = built.slots();
      const { readGuideOffThread } = built.guide();
      const held = await Promise.all(Array.from({ length: slots.MAX_READERS }, () => slots.readerSlot()));
      let opened = 0;
      const text = guide(
        `<programme start="${xmltv(Date.UTC(2026, 9, 2))}" stop="${xmltv(Date.UTC(2026, 9, 2, 1))}" channel="c1"><title>Late</title></programme>`,
      );
      const read = readGuideOffThread(
        () => {
          opened++;
          return body(text);
        },
        october,
        60_000,
      );
      await new Promise((r) => setTimeout(r, 50));
      expect(opened).toBe(0);
      for (const release of held) release();
      const result = await read;
      expect(opened).toBe(1);
      expect(result.occurrences.map((o) => o.title)).toEqual(['Late']);
    },
  );

  it.runIf(built.there)(
    "a calendar waiting for a reader's turn is not opened until its turn comes, then expanded in a worker",
    { timeout: 60_000 },
    async () => {
      const slots = built.slots();
      const { calendarReaderOffThread } = built.calendar();
      const held = await Promise.all(Array.from({ length: slots.MAX_READERS }, () => slots.readerSlot()));
      let opened = 0;
      const ics = [
        'BEGIN:VCALENDAR',
        'VERSION:2.0',
        'PRODID:-//test//EN',
        'BEGIN:VEVENT',
        'UID:late@test',
        'DTSTAMP:20261001T000000Z',
        'DTSTART:20261002T000000Z',
        'DTEND:20261002T010000Z',
        'SUMMARY:Late',
        'END:VEVENT',
        'END:VCALENDAR',
        '',
      ].join('\r\n');
      const reader = calendarReaderOffThread(october, 60_000);
      const read = reader(() => {
        opened++;
        return body(ics);
      });
      await new Promise((r) => setTimeout(r, 50));
      expect([opened, slots.readerSlots()]).toEqual([0, { running: slots.MAX_READERS, waiting: 1 }]);
      for (const release of held) release();
      const result = await read;
      expect(opened).toBe(1);
      expect(result.occurrences.map((o) => o.title)).toEqual(['Late']);
      expect(slots.readerSlots()).toEqual({ running: 0, waiting: 0 });
    },
  );

  it.runIf(built.there)(
    'a calendar and a guide being read are stopped at once when their schedule closes, and give their turns back',
    { timeout: 60_000 },
    async () => {
      const slots = built.slots();
      const { calendarReaderOffThread } = built.calendar();
      const { readGuideOffThread } = built.guide();
      // each takes seconds to read whole
      const events = Array.from({ length: 40_000 }, (_, i) =>
        [
          'BEGIN:VEVENT',
          `UID:e${i}@test`,
          'DTSTAMP:20261001T000000Z',
          'DTSTART:20261002T000000Z',
          'DTEND:20261002T010000Z',
          `SUMMARY:Event ${i}`,
          'END:VEVENT',
        ].join('\r\n'),
      );
      const ics = ['BEGIN:VCALENDAR', 'VERSION:2.0', 'PRODID:-//test//EN', ...events, 'END:VCALENDAR', ''].join('\r\n');
      const programme = (i: number) =>
        `<programme start="${xmltv(Date.UTC(2026, 9, 2) + i * 60_000)}" stop="${xmltv(Date.UTC(2026, 9, 2) + (i + 1) * 60_000)}" channel="c1"><title>P${i}</title></programme>`;
      const big = guide(Array.from({ length: 200_000 }, (_, i) => programme(i)).join('\n'));
      const stop = new AbortController();
      const reads = [
        calendarReaderOffThread({ ...october, defaultDuration: 3600_000 }, 60_000, stop.signal)(() => body(ics)),
        readGuideOffThread(() => body(big), october, 60_000, undefined, stop.signal),
      ];
      await new Promise((r) => setTimeout(r, 300));
      expect(slots.readerSlots()).toEqual({ running: 2, waiting: 0 });
      const at = Date.now();
      stop.abort();
      const results = await Promise.all(reads);
      expect(Date.now() - at).toBeLessThan(3_000);
      expect(results.map((r) => [r.error, r.occurrences.length])).toEqual([
        [slots.READ_STOPPED, 0],
        [slots.READ_STOPPED, 0],
      ]);
      expect(slots.readerSlots()).toEqual({ running: 0, waiting: 0 });
    },
  );

  it.runIf(built.there)(
    'a nesting bomb read by the guide reader of the built package is refused by depth',
    { timeout: 60_000 },
    async () => {
      const readers = built.readers();
      const file = path.join(dir, 'bomb.xml.gz');
      writeFileSync(file, nestingBomb(2_000_000));
      const result = await readers.guideReader(october)(() => Readable.from([readFileSync(file)]));
      expect(result.error).toBe('The guide nests elements more than 32 deep (line 1); it is refused.');
    },
  );

  it('the guide reader reads on this thread where the sources run untranspiled', async () => {
    const result = await guideReader(october)(() =>
      body(guide('<programme start="20261003190000" stop="20261003200000" channel="c1"><title>X</title></programme>')),
    );
    expect(times(result)).toEqual(['c1 10-03T19:00–20:00 X']);
  });
});

function xmltv(t: number): string {
  return `${new Date(t).toISOString().replace(/[-:T]/g, '').slice(0, 14)} +0000`;
}

import { readFileSync } from 'node:fs';
import path from 'node:path';
import { Readable } from 'node:stream';
import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { expandCalendar } from '../../../../lib/schedule/sources/ical';
import type { SourceResult } from '../../../../lib/schedule/sources/occurrence';
import { calendarReader } from '../../../../lib/schedule/sources/readers';
import { readGuide } from '../../../../lib/schedule/sources/xmltv';
import { prng as random } from '../../../../lib/simulator/prng';

/**
 * Random mutations of the fixtures (seeded, so a failure can be replayed)
 * and the hostile inputs the readers must name: whatever comes in, a result
 * comes out, never an exception, and every sentence is one line.
 */

const FIXTURES = path.join(__dirname, '../../../fixtures/feeds');
const ICS = readFileSync(path.join(FIXTURES, 'newsroom.ics'), 'utf8');
const GUIDE = readFileSync(path.join(FIXTURES, 'guide.xml'), 'utf8');

const NASTY = [
  '\u0000',
  '\uFFFD',
  '<',
  '>',
  '&',
  ';',
  ':',
  '\r\n',
  ' ',
  '"',
  '=',
  '9',
  'Z',
  '-',
  '/',
  '\u00e9',
  'T',
  '+',
];
const TOKENS = {
  ics: [
    'BEGIN:VEVENT',
    'END:VEVENT',
    'RRULE:FREQ=SECONDLY',
    'DTSTART;TZID=Nowhere:',
    'EXDATE:',
    'RECURRENCE-ID:',
    ';VALUE=DATE',
  ],
  xml: [
    '<programme>',
    '</programme>',
    '<!DOCTYPE tv [<!ENTITY a "b">]>',
    '&a;',
    'start="',
    'stop=""',
    '<title>',
    ']]>',
  ],
};

function mutate(text: string, rnd: () => number, tokens: string[]): string {
  let out = text;
  const steps = 1 + Math.floor(rnd() * 4);
  for (let s = 0; s < steps; s++) {
    const at = Math.floor(rnd() * (out.length + 1));
    const pick = <T>(xs: T[]): T => xs[Math.floor(rnd() * xs.length)];
    switch (Math.floor(rnd() * 7)) {
      case 0: // replace one character
        out = out.slice(0, at) + pick(NASTY) + out.slice(at + 1);
        break;
      case 1: // delete a run
        out = out.slice(0, at) + out.slice(at + Math.floor(rnd() * 200));
        break;
      case 2: // insert a token of the format
        out = out.slice(0, at) + pick(tokens) + out.slice(at);
        break;
      case 3: // truncate
        out = out.slice(0, at);
        break;
      case 4: {
        // duplicate a run elsewhere
        const from = Math.floor(rnd() * out.length);
        const run = out.slice(from, from + Math.floor(rnd() * 400));
        out = out.slice(0, at) + run + out.slice(at);
        break;
      }
      case 5: {
        // change a digit (dates, offsets, counts)
        const m = /\d/g;
        m.lastIndex = at;
        const hit = m.exec(out);
        if (hit) out = out.slice(0, hit.index) + String(Math.floor(rnd() * 10)) + out.slice(hit.index + 1);
        break;
      }
      default: {
        // swap two lines
        const lines = out.split('\n');
        const i = Math.floor(rnd() * lines.length);
        const j = Math.floor(rnd() * lines.length);
        [lines[i], lines[j]] = [lines[j], lines[i]];
        out = lines.join('\n');
      }
    }
  }
  return out;
}

function expectSound(result: SourceResult): void {
  expect(Array.isArray(result.occurrences)).toBe(true);
  expect(Array.isArray(result.problems)).toBe(true);
  for (const sentence of [...result.problems, ...(result.error ? [result.error] : [])]) {
    expect(typeof sentence).toBe('string');
    expect(sentence).not.toMatch(/[\r\n]/);
    expect(sentence.length).toBeLessThan(600);
  }
  if (result.error) expect(result.occurrences).toEqual([]);
  for (const o of result.occurrences) {
    expect(o.end.getTime()).toBeGreaterThan(o.start.getTime());
    expect(Number.isNaN(o.start.getTime())).toBe(false);
  }
}

// a month across the change of clocks: every event of the fixture has instances in it
const calendarRange = {
  windowId: 'w',
  zone: 'Europe/Berlin',
  from: new Date('2026-03-15T00:00:00Z'),
  to: new Date('2026-04-15T00:00:00Z'),
  allDay: true,
  defaultDuration: 600_000,
};
const guideRange = {
  windowId: 'w',
  zone: 'Europe/London',
  from: new Date('2026-10-01T00:00:00Z'),
  to: new Date('2026-10-15T00:00:00Z'),
};

const chunks = (data: string | Buffer, rnd: () => number) => {
  const bytes = Buffer.isBuffer(data) ? data : Buffer.from(data);
  return Readable.from(
    (function* () {
      for (let i = 0; i < bytes.length; ) {
        const n = 1 + Math.floor(rnd() * 64);
        yield bytes.subarray(i, i + n);
        i += n;
      }
    })(),
  );
};

describe('fuzz: mutated fixtures never throw out of the readers', () => {
  it('expandCalendar: 150 mutations of the calendar fixture', { timeout: 60_000 }, () => {
    const rnd = random(20261126);
    for (let i = 0; i < 150; i++) {
      const text = mutate(ICS, rnd, TOKENS.ics);
      let result: SourceResult | undefined;
      expect(() => {
        result = expandCalendar(text, calendarRange);
      }, `mutation ${i}`).not.toThrow();
      if (result) expectSound(result);
    }
  });

  it('readGuide: 300 mutations of the guide fixture, plain and gzip, in random chunks', {
    timeout: 60_000,
  }, async () => {
    const rnd = random(4711);
    for (let i = 0; i < 300; i++) {
      const text = mutate(GUIDE, rnd, TOKENS.xml);
      const body = i % 3 === 0 ? gzipSync(text) : text;
      const result = await readGuide(chunks(body, rnd), guideRange);
      expectSound(result);
    }
  });

  it('random bytes, as calendar text and as a guide', async () => {
    const rnd = random(99);
    for (let i = 0; i < 50; i++) {
      const bytes = Buffer.from(Array.from({ length: 1 + Math.floor(rnd() * 2000) }, () => Math.floor(rnd() * 256)));
      expectSound(expandCalendar(bytes.toString('latin1'), calendarRange));
      expectSound(await readGuide(chunks(bytes, rnd), guideRange));
    }
  });
});

describe('fuzz: the hostile inputs are named', () => {
  it('several MB on one line, for both readers', { timeout: 60_000 }, async () => {
    const line = 'A'.repeat(8 * 1024 * 1024);
    const calendar = expandCalendar(line, calendarRange);
    // named by its line, never quoted
    expect(calendar.error).toBe('The feed is not an iCalendar feed: line 1 is not BEGIN:VCALENDAR.');
    const guide = await readGuide(Readable.from([Buffer.from(line)]), guideRange);
    expect(guide.error).toMatch(/^The guide is not well-formed XML/);
    // a title of 900 KB (under the 1 MB run) is cut to 4 KB and named
    const longTitle = GUIDE.replace('Doctor Who</title>', `${'x'.repeat(900 * 1024)}</title>`);
    const read = await readGuide(Readable.from([Buffer.from(longTitle)]), guideRange);
    expect(read.error).toBeUndefined();
    expect(Math.max(...read.occurrences.map((o) => o.title?.length ?? 0))).toBe(4 * 1024);
    expect(read.problems.some((p) => /has a title longer than the guide's limits .*; it is cut\.$/.test(p))).toBe(true);
  });

  it('a run of more than 1 MB of text between two tags is refused before saxes holds it all', {
    timeout: 60_000,
  }, async () => {
    const huge = GUIDE.replace('<desc lang="en">', `<desc lang="en">${'y'.repeat(33 * 1024 * 1024)}`);
    const result = await readGuide(
      chunks(huge, () => 0.99),
      guideRange,
    );
    expect(result.error).toMatch(
      /^The guide has more than 1 MB of text, comment or tag without markup between \(from line \d+\); it is refused\.$/,
    );
  });

  it('a calendar over 16 MB is refused by the calendar reader, plain or gzip', { timeout: 60_000 }, async () => {
    const body = `${ICS.replace('END:VCALENDAR', `X-FILLER:${'z'.repeat(17 * 1024 * 1024)}\r\nEND:VCALENDAR`)}`;
    for (const bytes of [Buffer.from(body), gzipSync(body)]) {
      const result = await calendarReader(calendarRange)(() => Readable.from([bytes]));
      expect(result.error).toBe('The calendar is larger than 16 MB (counted after gunzip); it is refused.');
    }
  });

  it('a calendar event with a billion-count RRULE in every zone form costs the range only', () => {
    const events = ['20260101T000000Z', 'TZID=Europe/London:20260101T000000', '20260101T000000'].map((start, i) =>
      [
        'BEGIN:VEVENT',
        `UID:flood-${i}`,
        'DTSTAMP:20260101T000000Z',
        `DTSTART${start.startsWith('TZID') ? ';' : ':'}${start}`,
        'DURATION:PT1S',
        'RRULE:FREQ=SECONDLY;COUNT=1000000000',
        'END:VEVENT',
      ].join('\r\n'),
    );
    const text = ['BEGIN:VCALENDAR', 'VERSION:2.0', ...events, 'END:VCALENDAR', ''].join('\r\n');
    const result = expandCalendar(text, {
      ...calendarRange,
      from: new Date('2026-01-01T00:00:00Z'),
      to: new Date('2026-01-01T00:10:00Z'),
    });
    expectSound(result);
    expect(result.occurrences.length).toBeGreaterThan(0);
    expect(result.occurrences.length).toBeLessThanOrEqual(3 * 600);
  });
});

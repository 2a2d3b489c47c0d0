import { execFile } from 'node:child_process';
import { createReadStream, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { Readable } from 'node:stream';
import { promisify } from 'node:util';
import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { type GuideOptions, parseXmltvTime, readGuide } from '../../../../lib/schedule/sources/xmltv';

const FIXTURES = path.join(__dirname, '../../../fixtures/feeds');
const GUIDE = path.join(FIXTURES, 'guide.xml');
const guideText = readFileSync(GUIDE, 'utf8');

const october: GuideOptions = {
  windowId: 'epg',
  zone: 'Europe/London',
  from: new Date('2026-10-01T00:00:00Z'),
  to: new Date('2026-10-15T00:00:00Z'),
};

/** A guide text as a stream handed over in small pieces, as a socket would. */
const chunked = (data: string | Buffer, size = 7) => {
  const bytes = Buffer.isBuffer(data) ? data : Buffer.from(data);
  return Readable.from(
    (function* () {
      for (let i = 0; i < bytes.length; i += size) yield bytes.subarray(i, i + size);
    })(),
  );
};

const guide = (programmes: string, head = '<?xml version="1.0" encoding="UTF-8"?>\n') =>
  `${head}<tv>\n<channel id="c1"><display-name>One</display-name></channel>\n${programmes}\n</tv>\n`;

const summary = (r: Awaited<ReturnType<typeof readGuide>>) =>
  r.occurrences.map((o) => `${o.details?.channel} ${o.start.toISOString()}–${o.end.toISOString()} ${o.title}`);

describe('the guide fixtures are valid XMLTV', () => {
  const guides = readdirSync(FIXTURES).filter((f) => f.endsWith('.xml'));

  it.each(guides)("%s passes Debian's tv_validate_file (xmltv-util, offline)", async (file) => {
    const { stdout } = await promisify(execFile)('tv_validate_file', [path.join(FIXTURES, file)], {
      env: { ...process.env, XMLTV_SUPPLEMENT: '/usr/share/xmltv' },
    });
    expect(stdout.trim()).toBe('Validated ok.');
  });
});

describe('parseXmltvTime', () => {
  it('reads offsets, a time without zone as UTC, and shortened forms', () => {
    expect(new Date(parseXmltvTime('20261003170000 +0100') as number).toISOString()).toBe('2026-10-03T16:00:00.000Z');
    expect(new Date(parseXmltvTime('20261003170000 -0530') as number).toISOString()).toBe('2026-10-03T22:30:00.000Z');
    expect(new Date(parseXmltvTime('20261003170000') as number).toISOString()).toBe('2026-10-03T17:00:00.000Z');
    expect(new Date(parseXmltvTime('202610031700 +0000') as number).toISOString()).toBe('2026-10-03T17:00:00.000Z');
    expect(new Date(parseXmltvTime('20261003') as number).toISOString()).toBe('2026-10-03T00:00:00.000Z');
    for (const bad of ['202', '20261303170000', '20261003250000', 'tomorrow', '20261003170000 +2500']) {
      expect(parseXmltvTime(bad)).toBeUndefined();
    }
  });
});

describe('readGuide: the fixture guide', () => {
  it('reads every programme in range with its details, sorted, from a chunked stream', async () => {
    const result = await readGuide(chunked(guideText), october);
    expect(result.error).toBeUndefined();
    expect(result.problems).toEqual([]);
    expect(summary(result)).toEqual([
      'bbc1.uk 2026-10-03T16:00:00.000Z–2026-10-03T17:00:00.000Z Doctor Who',
      "bbc2.uk 2026-10-03T16:00:00.000Z–2026-10-03T17:00:00.000Z Gardeners' World & Friends",
      'bbc1.uk 2026-10-03T17:00:00.000Z–2026-10-03T18:00:00.000Z Doctor Who',
      'bbc2.uk 2026-10-03T17:00:00.000Z–2026-10-03T18:00:00.000Z Doctor Who Confidential',
      // no stop: it ends when the next programme on its channel starts
      'bbc1.uk 2026-10-03T18:00:00.000Z–2026-10-03T18:30:00.000Z The News at Seven',
      'bbc1.uk 2026-10-03T18:30:00.000Z–2026-10-03T19:00:00.000Z Weather',
      'bbc1.uk 2026-10-04T16:00:00.000Z–2026-10-04T17:00:00.000Z Doctor Who',
      'bbc1.uk 2026-10-10T16:00:00.000Z–2026-10-10T17:00:00.000Z Doctor Who',
    ]);
    const first = result.occurrences.find((o) => o.details?.episode === 'S15E01');
    expect(first).toEqual({
      id: 'bbc1.uk/14.0.0/1',
      windowId: 'epg',
      start: new Date('2026-10-03T16:00:00Z'),
      end: new Date('2026-10-03T17:00:00Z'),
      revision: expect.stringMatching(/^[0-9a-z]{14}$/),
      title: 'Doctor Who',
      details: {
        channel: 'bbc1.uk',
        description: 'The Doctor lands in Victorian London.',
        subtitle: 'The Time Machine',
        episode: 'S15E01',
        categories: ['Drama', 'Science fiction'],
      },
    });
    // the repeat of the same episode on the same channel keeps an id of its own
    expect(result.occurrences.filter((o) => o.id.startsWith('bbc1.uk/14.0.0/1')).map((o) => o.id)).toEqual([
      'bbc1.uk/14.0.0/1',
      'bbc1.uk/14.0.0/1/2026-10-03T17:00:00Z',
    ]);
    expect(result.occurrences.find((o) => o.title === 'Weather')?.id).toBe('bbc1.uk/2026-10-03T18:30:00Z');
  });

  it('reads gzip by its bytes, whatever the stream is called', async () => {
    const result = await readGuide(chunked(gzipSync(guideText), 1), october);
    expect(result.error).toBeUndefined();
    expect(result.occurrences).toHaveLength(8);
  });

  it('reads a file stream', async () => {
    const result = await readGuide(createReadStream(GUIDE), october);
    expect(result.occurrences).toHaveLength(8);
  });

  it('the sample rule: channel, title, Saturdays between 17:00 and 21:00 London time, new only, sources', async () => {
    const result = await readGuide(chunked(guideText), {
      ...october,
      match: { channel: 'bbc1.uk', title: '^Doctor Who$', days: ['sat'], between: '17:00-21:00', new_only: true },
      sources: { 'bbc1.uk': 'source-bbc1' },
    });
    expect(result.occurrences.map((o) => [o.details?.episode, o.start.toISOString(), o.details?.sourceId])).toEqual([
      ['S15E01', '2026-10-03T16:00:00.000Z', 'source-bbc1'],
      ['S15E02', '2026-10-10T16:00:00.000Z', 'source-bbc1'],
    ]);
  });

  it('duplicates once keeps the first showing of a title and episode per rule', async () => {
    const all = await readGuide(chunked(guideText), { ...october, match: { title: '^Doctor Who$' } });
    expect(all.occurrences).toHaveLength(4);
    const once = await readGuide(chunked(guideText), {
      ...october,
      match: { title: '^Doctor Who$', duplicates: 'once' },
    });
    expect(once.occurrences.map((o) => o.start.toISOString())).toEqual([
      '2026-10-03T16:00:00.000Z',
      '2026-10-04T16:00:00.000Z',
    ]);
    // the later showings are kept aside as repeats (what a re-record may book), each with an id of its own
    expect(once.repeats?.map((o) => o.start.toISOString())).toEqual(
      all.occurrences
        .map((o) => o.start.toISOString())
        .filter((t) => !once.occurrences.some((k) => k.start.toISOString() === t)),
    );
    expect(once.repeats).toHaveLength(2);
    const ids = [...once.occurrences, ...(once.repeats ?? [])].map((o) => o.id);
    expect(new Set(ids).size).toBe(4);
    expect(all.repeats).toBeUndefined();
  });

  it('categories match any of the listed ones, case aside; a range that spans midnight', async () => {
    const news = await readGuide(chunked(guideText), { ...october, match: { categories: ['news', 'LEISURE'] } });
    expect(news.occurrences.map((o) => o.title)).toEqual([
      "Gardeners' World & Friends",
      'The News at Seven',
      'Weather',
    ]);
    const late = await readGuide(chunked(guideText), { ...october, match: { between: '19:15-02:00' } });
    expect(late.occurrences.map((o) => o.title)).toEqual(['Weather']);
  });

  it('keeps only what overlaps [from, to)', async () => {
    const result = await readGuide(chunked(guideText), {
      ...october,
      from: new Date('2026-10-03T16:30:00Z'),
      to: new Date('2026-10-03T18:00:00Z'),
    });
    expect(result.occurrences.map((o) => o.start.toISOString())).toEqual([
      '2026-10-03T16:00:00.000Z',
      '2026-10-03T16:00:00.000Z',
      '2026-10-03T17:00:00.000Z',
      '2026-10-03T17:00:00.000Z',
    ]);
  });
});

describe('readGuide: bad programmes are named, bad guides refused', () => {
  it('a programme that stops before it starts, or has an unreadable time, is named and left out', async () => {
    const result = await readGuide(
      chunked(
        guide(
          [
            '<programme start="20261003180000 +0000" stop="20261003170000 +0000" channel="c1"><title>Backwards</title></programme>',
            '<programme start="soon" stop="20261003170000 +0000" channel="c1"><title>Soon</title></programme>',
            '<programme start="20261003190000 +0000" stop="20261003200000 +0000" channel="c1"><title>Fine</title></programme>',
          ].join('\n'),
        ),
      ),
      october,
    );
    expect(result.occurrences.map((o) => o.title)).toEqual(['Fine']);
    expect(result.problems).toEqual([
      'The programme on channel "c1" starting "20261003180000 +0000" (line 4) stops (20261003170000 +0000) before it starts; it is left out.',
      'The programme on channel "c1" starting "soon" (line 5) has a start that is not an XMLTV time; it is left out.',
    ]);
  });

  it('a guide with a broken time in every programme lists the first 100 problems and counts the rest', async () => {
    const programmes = Array.from(
      { length: 250 },
      (_, i) => `<programme start="2026100${i}" stop="x" channel="c1"><title>P${i}</title></programme>`,
    );
    const result = await readGuide(chunked(guide(programmes.join('\n')), 4096), october);
    expect(result.error).toBeUndefined();
    expect(result.problems).toHaveLength(101);
    expect(result.problems[100]).toBe('150 more problems are not listed.');
  });

  it('the last programme without stop on its channel is named', async () => {
    const result = await readGuide(
      chunked(guide('<programme start="20261003190000 +0000" channel="c1"><title>Open end</title></programme>')),
      october,
    );
    expect(result.occurrences).toEqual([]);
    expect(result.problems).toEqual([
      'The programme "Open end" on channel "c1" (line 4) has no stop and no later programme on its channel; it is left out.',
    ]);
  });

  const entities = `<?xml version="1.0"?>
<!DOCTYPE tv [
  <!ENTITY lol "lol">
  <!ENTITY lol2 "&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;">
]>
<tv><programme start="20261003190000" stop="20261003200000" channel="c1"><title>&lol2;</title></programme></tv>`;
  const external = `<?xml version="1.0"?>
<!DOCTYPE tv [ <!ENTITY secret SYSTEM "file:///etc/passwd"> ]>
<tv><programme start="20261003190000" stop="20261003200000" channel="c1"><title>&secret;</title></programme></tv>`;

  it.each([
    ['entity expansion', entities, /^The guide's DOCTYPE declares its own markup or entities \(an internal subset\)/],
    ['an external entity', external, /^The guide's DOCTYPE declares its own markup or entities/],
    [
      'an undeclared entity',
      guide('<programme start="20261003190000" stop="20261003200000" channel="c1"><title>&nbsp;</title></programme>'),
      /^The guide is not well-formed XML: line 4, undefined entity\.$/,
    ],
    [
      'another encoding',
      guide('', '<?xml version="1.0" encoding="ISO-8859-1"?>\n'),
      /^The guide declares an encoding other than UTF-8 \(line 1\); only UTF-8/,
    ],
    [
      'bytes that are not UTF-8',
      Buffer.concat([Buffer.from(guide('<!-- ')), Buffer.from([0xe9, 0x20, 0x2d, 0x2d, 0x3e])]),
      /^The guide is not UTF-8 text/,
    ],
    [
      'UTF-16',
      Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(guide(''), 'utf16le')]),
      /^The guide is not UTF-8 text/,
    ],
    [
      'HTML',
      '<html><body><p>502 Bad Gateway</p></body></html>',
      /^The feed's root element \(line 1\) is not <tv>: it is not an XMLTV guide\.$/,
    ],
    ['a truncated guide', guideText.slice(0, guideText.length / 2), /^The guide is not well-formed XML: .*unclosed/i],
    ['an empty body', '', /^The guide is empty/],
    ['corrupt gzip', gzipSync(guideText).subarray(0, 100), /^The guide is gzip data that is corrupt or cut off/],
    ['text that is not XML', 'Service unavailable', /^The guide is not well-formed XML/],
    // the kind of error, never the name the body gave (saxes says "unclosed tag: db_password")
    ['a tag the body names', '<tv>\n<db_password>', /^The guide is not well-formed XML: line \d+, unclosed tag\.$/],
  ])('%s: one sentence in error, nothing read', async (_name, text, message) => {
    const result = await readGuide(chunked(text), october);
    expect(result.occurrences).toEqual([]);
    expect(result.error).toMatch(message);
  });

  it.each([
    [
      { title: '(unclosed' },
      'The title pattern "(unclosed" is not a valid regular expression (missing closing ): `(unclosed`).',
    ],
    [{ days: ['someday'] }, 'The day "someday" is not a weekday (use mon, tue, wed, thu, fri, sat, sun).'],
    [{ between: '5pm-9pm' }, 'The time range "5pm-9pm" is not HH:MM-HH:MM (for example 17:00-21:00).'],
  ])('a rule that cannot be used is one sentence: %j', async (match, message) => {
    const result = await readGuide(chunked(guideText), { ...october, match });
    expect(result.error).toBe(message);
  });

  it('a stream that fails is named, not thrown', async () => {
    const failing = new Readable({
      read() {
        this.destroy(new Error('socket hang up'));
      },
    });
    const result = await readGuide(failing, october);
    expect(result.error).toBe('The guide cannot be read: socket hang up.');
  });
});

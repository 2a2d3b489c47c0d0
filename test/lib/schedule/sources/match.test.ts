import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { expandCalendar } from '../../../../lib/schedule/sources/ical';
import { compileRegex } from '../../../../lib/schedule/sources/match';
import { unsupportedConstruct } from '../../../../lib/schedule/sources/pattern-syntax';
import { parseSourceWindow } from '../../../../lib/schedule/sources/window-config';
import { readGuide } from '../../../../lib/schedule/sources/xmltv';
import { regexCheck } from '../../../../nodes/schedule/editor/feed-fields';

/**
 * User patterns (a calendar's match.title, a guide's match rules) run on RE2:
 * linear in the title whatever the pattern. What RE2 cannot run is refused
 * with a sentence naming the field and the pattern, at deploy, in Test feed
 * and in the editor alike.
 */

const compiled = (source: string) => {
  const pattern = compileRegex(source, 'title');
  if (typeof pattern === 'string') throw new Error(pattern);
  return pattern;
};

describe('match patterns run in linear time', () => {
  it('a pattern that backtracks exponentially on RegExp takes milliseconds ((a+)+ on 26 characters: 6 s on RegExp)', () => {
    const pattern = compiled('([\\s\\S]+)+X$');
    // on RegExp the loop below would not end: 40 characters are 2^14 times the 6 s of 26
    expect(pattern).not.toBeInstanceOf(RegExp);
    const titles = ['a'.repeat(26), 'a'.repeat(40), 'b'.repeat(16 * 1024)];
    const started = performance.now();
    for (let i = 0; i < 100; i++) for (const title of titles) expect(pattern.test(title)).toBe(false);
    expect(performance.now() - started).toBeLessThan(1000);
    expect(pattern.test(`${'a'.repeat(40)}X`)).toBe(true);
  });

  it('finds the pattern anywhere in the title, case-sensitive, as RegExp did; JavaScript escapes still read', () => {
    expect(compiled('^REC ').test('REC Evening news')).toBe(true);
    expect(compiled('^REC ').test('The REC ')).toBe(false);
    expect(compiled('News').test('Evening News at six')).toBe(true);
    expect(compiled('news').test('Evening News')).toBe(false);
    expect(compiled('^Doctor Who$').test('Doctor Who')).toBe(true);
    expect(compiled('caf\\u00e9').test('Le café')).toBe(true);
    expect(compiled('(?<show>Match) of the Day').test('Match of the Day 2')).toBe(true);
    expect(compiled('^\\d{2}:\\d{2} ').test('18:00 News')).toBe(true);
  });

  it.each([
    ['(a)\\1', 'a backreference'],
    ['(?<n>a)\\k<n>', 'a backreference'],
    ['News(?= at)', 'a lookahead'],
    ['News(?! at)', 'a lookahead'],
    ['(?<=BBC )News', 'a lookbehind'],
    ['(?<!BBC )News', 'a lookbehind'],
  ])('%s is refused: it uses %s', (source, construct) => {
    expect(unsupportedConstruct(source)).toBe(construct);
    expect(compileRegex(source, 'title')).toBe(
      `The title pattern ${JSON.stringify(source)} uses ${construct}, which the linear-time engine does not run (patterns are RE2: no backreferences or lookaround).`,
    );
    // the editor says the same of the field as it is typed
    expect(regexCheck(source)).toMatch(new RegExp(`^uses ${construct}, which the linear-time engine does not run`));
  });

  it.each(['\\(?=x\\)', '[(?=]x', '[\\]]x', 'a\\\\1'])(
    '%s is no lookaround nor backreference (escaped, or in a class)',
    (source) => {
      expect(unsupportedConstruct(source)).toBeUndefined();
      expect(typeof compileRegex(source, 'title')).not.toBe('string');
    },
  );

  it("RE2's flag groups run, and the editor's syntax check takes them", () => {
    expect(compiled('(?i)^news').test('NEWS at six')).toBe(true);
    expect(regexCheck('(?i)^news')).toBeUndefined();
    // its syntax is RE2's, asked of the runtime (test/nodes/schedule/pattern-route.test.ts): the editor
    // compiles no pattern, so a bad one is left to that check
    expect(regexCheck('(unclosed')).toBeUndefined();
  });

  it('a pattern that does not parse is one sentence, with the engine reason', () => {
    expect(compileRegex('(unclosed', 'title')).toBe(
      'The title pattern "(unclosed" is not a valid regular expression (missing closing ): `(unclosed`).',
    );
  });
});

describe('refused at deploy and in Test feed, the field named', () => {
  it.each([
    [{ id: 'cal', ical: 'x.ics', match: { title: '(a)\\1' } }, 'a backreference'],
    [{ id: 'epg', xmltv: 'g.xml', match: { title: 'News(?! at)' } }, 'a lookahead'],
  ])('a window whose match.title uses %s does not validate: %#', (window, construct) => {
    const parsed = parseSourceWindow(window);
    expect(parsed.ok).toBe(false);
    if (parsed.ok) return;
    expect(parsed.issues).toEqual([
      {
        path: 'match.title',
        message: `The title pattern ${JSON.stringify(window.match.title)} uses ${construct}, which the linear-time engine does not run (patterns are RE2: no backreferences or lookaround).`,
      },
    ]);
  });

  it('the readers refuse such a pattern as their error, reading nothing', async () => {
    const range = { windowId: 'w', zone: 'UTC', from: new Date(0), to: new Date(Date.UTC(2030, 0, 1)) };
    const calendar = expandCalendar('BEGIN:VCALENDAR\r\nEND:VCALENDAR\r\n', { ...range, match: { title: '(x)\\1' } });
    expect(calendar.error).toMatch(/^The title pattern "\(x\)\\\\1" uses a backreference/);
    const guide = await readGuide(Readable.from([Buffer.from('<tv></tv>')]), {
      ...range,
      match: { title: '(?<=a)b' },
    });
    expect(guide.error).toMatch(/^The title pattern "\(\?<=a\)b" uses a lookbehind/);
  });

  it('a guide rule with the exponential pattern reads a guide of long titles in linear time', async () => {
    const programmes = Array.from(
      { length: 2000 },
      (_, i) =>
        `<programme channel="c1" start="2026100${1 + (i % 9)}${String(i % 24).padStart(2, '0')}0000 +0000" stop="2026100${1 + (i % 9)}${String(i % 24).padStart(2, '0')}3000 +0000"><title>${'a'.repeat(2000)}</title></programme>`,
    ).join('\n');
    const text = `<?xml version="1.0" encoding="UTF-8"?>\n<tv>\n${programmes}\n</tv>\n`;
    const started = performance.now();
    const result = await readGuide(Readable.from([Buffer.from(text)]), {
      windowId: 'epg',
      zone: 'UTC',
      from: new Date('2026-10-01T00:00:00Z'),
      to: new Date('2026-10-15T00:00:00Z'),
      match: { title: '([\\s\\S]+)+X$' },
    });
    expect(result.error).toBeUndefined();
    expect(result.occurrences).toEqual([]);
    expect(performance.now() - started).toBeLessThan(5000);
  });
});

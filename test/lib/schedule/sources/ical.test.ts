import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { type CalendarOptions, expandCalendar } from '../../../../lib/schedule/sources/ical';
import { planned } from '../../../../lib/schedule/sources/occurrence';
import { formatLocalIso } from '../../../../lib/schedule/tz';

const FIXTURES = path.join(__dirname, '../../../fixtures/feeds');

/** A calendar of the given VEVENT/VTIMEZONE bodies, CRLF-folded as feeds are. */
function calendar(...components: string[]): string {
  const lines = ['BEGIN:VCALENDAR', 'VERSION:2.0', 'PRODID:-//media-spaces//test//EN'];
  for (const c of components)
    lines.push(
      ...c
        .trim()
        .split('\n')
        .map((l) => l.trim()),
    );
  lines.push('END:VCALENDAR');
  return `${lines.join('\r\n')}\r\n`;
}

function event(uid: string, ...props: string[]): string {
  return ['BEGIN:VEVENT', `UID:${uid}`, 'DTSTAMP:20260101T000000Z', ...props, 'END:VEVENT'].join('\n');
}

const year = (y: number, extra: Partial<CalendarOptions> = {}): CalendarOptions => ({
  windowId: 'w',
  zone: 'UTC',
  from: new Date(Date.UTC(y, 0, 1)),
  to: new Date(Date.UTC(y + 1, 0, 1)),
  ...extra,
});

const localStarts = (text: string, zone: string, opts: CalendarOptions) =>
  expandCalendar(text, opts).occurrences.map((o) => formatLocalIso(o.start.getTime(), zone));

describe('expandCalendar: recurrence at wall-clock time across changes of clocks', () => {
  it('a weekly 01:30 Europe/London event keeps 01:30 local across spring forward and fall back', () => {
    const text = calendar(
      event(
        'london',
        'SUMMARY:Night news',
        'DTSTART;TZID=Europe/London:20260315T013000',
        'DTEND;TZID=Europe/London:20260315T020000',
        'RRULE:FREQ=WEEKLY;COUNT=4',
      ),
      event(
        'london-autumn',
        'SUMMARY:Night news',
        'DTSTART;TZID=Europe/London:20261018T013000',
        'DTEND;TZID=Europe/London:20261018T020000',
        'RRULE:FREQ=WEEKLY;COUNT=3',
      ),
    );
    expect(localStarts(text, 'Europe/London', year(2026))).toEqual([
      '2026-03-15T01:30:00+00:00',
      '2026-03-22T01:30:00+00:00',
      // 01:30 does not happen on 29 March: RFC 5545 reads it with the offset from before the gap
      '2026-03-29T02:30:00+01:00',
      '2026-04-05T01:30:00+01:00',
      '2026-10-18T01:30:00+01:00',
      // 01:30 happens twice on 25 October: the first one
      '2026-10-25T01:30:00+01:00',
      '2026-11-01T01:30:00+00:00',
    ]);
  });

  it('a weekly 01:30 America/New_York event (no VTIMEZONE) stays at 01:30 local, 30 minutes long', () => {
    const text = calendar(
      event(
        'ny',
        'SUMMARY:Overnight',
        'DTSTART;TZID=America/New_York:20260301T013000',
        'DURATION:PT30M',
        'RRULE:FREQ=WEEKLY;UNTIL=20260315T070000Z',
      ),
      event(
        'ny-autumn',
        'SUMMARY:Overnight',
        'DTSTART;TZID=America/New_York:20261025T013000',
        'DURATION:PT30M',
        'RRULE:FREQ=WEEKLY;COUNT=3',
      ),
    );
    const result = expandCalendar(text, year(2026));
    expect(result.problems).toEqual([]);
    expect(result.occurrences.map((o) => formatLocalIso(o.start.getTime(), 'America/New_York'))).toEqual([
      '2026-03-01T01:30:00-05:00',
      '2026-03-08T01:30:00-05:00', // spring forward is at 02:00 that day
      '2026-03-15T01:30:00-04:00',
      '2026-10-25T01:30:00-04:00',
      '2026-11-01T01:30:00-04:00', // the first of the two 01:30s
      '2026-11-08T01:30:00-05:00',
    ]);
    for (const o of result.occurrences) expect(o.end.getTime() - o.start.getTime()).toBe(30 * 60_000);
  });

  it("reads a TZID from the calendar's VTIMEZONE before the IANA database, and vendor-prefixed IANA names", () => {
    const vtimezone = [
      'BEGIN:VTIMEZONE',
      'TZID:Studio Time',
      'BEGIN:STANDARD',
      'DTSTART:19700101T000000',
      'TZOFFSETFROM:+0300',
      'TZOFFSETTO:+0300',
      'TZNAME:ST',
      'END:STANDARD',
      'END:VTIMEZONE',
    ].join('\n');
    const text = calendar(
      vtimezone,
      event('custom', 'SUMMARY:A', 'DTSTART;TZID=Studio Time:20260601T120000', 'DURATION:PT1H'),
      event('moz', 'SUMMARY:B', 'DTSTART;TZID=/mozilla.org/20050126_1/Europe/Paris:20260601T120000', 'DURATION:PT1H'),
    );
    const result = expandCalendar(text, year(2026));
    expect(result.problems).toEqual([]);
    expect(result.occurrences.map((o) => [o.id, o.start.toISOString()])).toEqual([
      ['custom', '2026-06-01T09:00:00.000Z'],
      ['moz', '2026-06-01T10:00:00.000Z'],
    ]);
  });

  it('a VTIMEZONE with daylight rules moves the instances with the clocks', () => {
    const text = readFileSync(path.join(FIXTURES, 'newsroom.ics'), 'utf8');
    const result = expandCalendar(text, {
      windowId: 'newsroom',
      zone: 'UTC',
      from: new Date('2026-03-20T00:00:00Z'),
      to: new Date('2026-04-04T00:00:00Z'),
      match: { title: '^REC ' },
    });
    expect(result.problems).toEqual([]);
    const briefing = result.occurrences.filter((o) => o.id.startsWith('briefing@'));
    expect(briefing.map((o) => formatLocalIso(o.start.getTime(), 'Europe/Berlin'))).toEqual([
      '2026-03-20T09:00:00+01:00',
      '2026-03-23T09:00:00+01:00',
      '2026-03-25T09:00:00+01:00',
      '2026-03-27T09:00:00+01:00',
      '2026-03-30T09:00:00+02:00',
      '2026-04-01T09:00:00+02:00',
      '2026-04-03T09:00:00+02:00',
    ]);
  });
});

describe('expandCalendar: the parts of an event', () => {
  it('floating times are read in the window zone; Z times are UTC', () => {
    const text = calendar(
      event('floating', 'SUMMARY:F', 'DTSTART:20260701T180000', 'DTEND:20260701T190000'),
      event('utc', 'SUMMARY:U', 'DTSTART:20260701T180000Z', 'DTEND:20260701T190000Z'),
    );
    const result = expandCalendar(text, year(2026, { zone: 'Asia/Tokyo' }));
    expect(result.occurrences.map((o) => [o.id, o.start.toISOString(), o.end.toISOString()])).toEqual([
      ['floating', '2026-07-01T09:00:00.000Z', '2026-07-01T10:00:00.000Z'],
      ['utc', '2026-07-01T18:00:00.000Z', '2026-07-01T19:00:00.000Z'],
    ]);
  });

  it('RDATE adds instances, EXDATE removes them (also when written in another zone than DTSTART)', () => {
    const text = calendar(
      event(
        'daily',
        'SUMMARY:Daily',
        'DTSTART;TZID=Europe/London:20260601T180000',
        'DURATION:PT1H',
        'RRULE:FREQ=DAILY;COUNT=5',
        'EXDATE;TZID=Europe/London:20260602T180000',
        'EXDATE:20260604T170000Z',
        'RDATE;TZID=Europe/London:20260610T120000',
      ),
    );
    expect(localStarts(text, 'Europe/London', year(2026))).toEqual([
      '2026-06-01T18:00:00+01:00',
      '2026-06-03T18:00:00+01:00',
      '2026-06-05T18:00:00+01:00',
      '2026-06-10T12:00:00+01:00',
    ]);
  });

  it('UNTIL in UTC (as calendars write it) keeps the last instance of a series in a zone east of UTC', () => {
    const text = calendar(
      event(
        'berlin',
        'SUMMARY:Morning',
        'DTSTART;TZID=Europe/Berlin:20260601T090000',
        'DTEND;TZID=Europe/Berlin:20260601T093000',
        // 07:00Z is 09:00 CEST: the 5 June instance is the last one, and is one
        'RRULE:FREQ=DAILY;UNTIL=20260605T070000Z',
        'RDATE:20260610T150000Z',
      ),
    );
    expect(localStarts(text, 'Europe/Berlin', year(2026))).toEqual([
      '2026-06-01T09:00:00+02:00',
      '2026-06-02T09:00:00+02:00',
      '2026-06-03T09:00:00+02:00',
      '2026-06-04T09:00:00+02:00',
      '2026-06-05T09:00:00+02:00',
      // an RDATE in UTC is that instant
      '2026-06-10T17:00:00+02:00',
    ]);
  });

  it('an override with a start only lasts as long as its series', () => {
    const text = calendar(
      event(
        'len',
        'SUMMARY:Show',
        'DTSTART;TZID=Europe/London:20260601T180000',
        'DTEND;TZID=Europe/London:20260601T184500',
        'RRULE:FREQ=DAILY;COUNT=3',
      ),
      event(
        'len',
        'RECURRENCE-ID;TZID=Europe/London:20260602T180000',
        'SUMMARY:Show',
        'DTSTART;TZID=Europe/London:20260602T210000',
      ),
    );
    const result = expandCalendar(text, year(2026));
    expect(result.problems).toEqual([]);
    expect(result.occurrences.map((o) => (o.end.getTime() - o.start.getTime()) / 60_000)).toEqual([45, 45, 45]);
  });

  it('a RECURRENCE-ID override moves one instance, keeps its id, and a cancelled override drops it', () => {
    const text = calendar(
      event(
        'series',
        'SUMMARY:Weekly show',
        'DTSTART;TZID=Europe/London:20260601T180000',
        'DTEND;TZID=Europe/London:20260601T190000',
        'RRULE:FREQ=WEEKLY;COUNT=4',
      ),
      event(
        'series',
        'RECURRENCE-ID;TZID=Europe/London:20260608T180000',
        'SUMMARY:Weekly show (moved)',
        'DTSTART;TZID=Europe/London:20260609T200000',
        'DTEND;TZID=Europe/London:20260609T213000',
      ),
      event(
        'series',
        'RECURRENCE-ID;TZID=Europe/London:20260615T180000',
        'SUMMARY:Weekly show',
        'STATUS:CANCELLED',
        'DTSTART;TZID=Europe/London:20260615T180000',
      ),
    );
    const result = expandCalendar(text, year(2026));
    expect(result.problems).toEqual([]);
    expect(result.occurrences.map((o) => [o.id, formatLocalIso(o.start.getTime(), 'Europe/London'), o.title])).toEqual([
      ['series/2026-06-01T17:00:00Z', '2026-06-01T18:00:00+01:00', 'Weekly show'],
      ['series/2026-06-08T17:00:00Z', '2026-06-09T20:00:00+01:00', 'Weekly show (moved)'],
      ['series/2026-06-22T17:00:00Z', '2026-06-22T18:00:00+01:00', 'Weekly show'],
    ]);
    const moved = result.occurrences[1];
    expect(moved.end.getTime() - moved.start.getTime()).toBe(90 * 60_000);
  });

  it('RANGE=THISANDFUTURE moves that instance and every later one, or cancels them all', () => {
    const text = calendar(
      event(
        'moving',
        'SUMMARY:Talk show',
        'DTSTART;TZID=Europe/London:20260601T180000',
        'DTEND;TZID=Europe/London:20260601T190000',
        'RRULE:FREQ=WEEKLY;COUNT=5',
      ),
      event(
        'moving',
        'RECURRENCE-ID;RANGE=THISANDFUTURE;TZID=Europe/London:20260615T180000',
        'SUMMARY:Talk show (new slot)',
        'DTSTART;TZID=Europe/London:20260615T203000',
        'DTEND;TZID=Europe/London:20260615T220000',
      ),
      event('ending', 'SUMMARY:Ending', 'DTSTART:20260601T120000Z', 'DURATION:PT30M', 'RRULE:FREQ=DAILY;COUNT=10'),
      event(
        'ending',
        'RECURRENCE-ID;RANGE=THISANDFUTURE:20260604T120000Z',
        'STATUS:CANCELLED',
        'DTSTART:20260604T120000Z',
      ),
    );
    const result = expandCalendar(text, year(2026));
    expect(result.problems).toEqual([]);
    const shows = result.occurrences.filter((o) => o.id.startsWith('moving/'));
    expect(shows.map((o) => [o.id, formatLocalIso(o.start.getTime(), 'Europe/London'), o.title])).toEqual([
      ['moving/2026-06-01T17:00:00Z', '2026-06-01T18:00:00+01:00', 'Talk show'],
      ['moving/2026-06-08T17:00:00Z', '2026-06-08T18:00:00+01:00', 'Talk show'],
      ['moving/2026-06-15T17:00:00Z', '2026-06-15T20:30:00+01:00', 'Talk show (new slot)'],
      ['moving/2026-06-22T17:00:00Z', '2026-06-22T20:30:00+01:00', 'Talk show (new slot)'],
      ['moving/2026-06-29T17:00:00Z', '2026-06-29T20:30:00+01:00', 'Talk show (new slot)'],
    ]);
    for (const o of shows.slice(2)) expect(o.end.getTime() - o.start.getTime()).toBe(90 * 60_000);
    expect(result.occurrences.filter((o) => o.id.startsWith('ending/')).map((o) => o.start.getUTCDate())).toEqual([
      1, 2, 3,
    ]);
  });

  it('a cancelled event or series is dropped, overrides included', () => {
    const text = calendar(
      event('gone', 'SUMMARY:Gone', 'STATUS:CANCELLED', 'DTSTART:20260601T180000Z', 'RRULE:FREQ=DAILY;COUNT=3'),
      event('gone', 'RECURRENCE-ID:20260602T180000Z', 'SUMMARY:Gone', 'DTSTART:20260602T190000Z'),
      event('kept', 'SUMMARY:Kept', 'STATUS:CONFIRMED', 'DTSTART:20260601T180000Z', 'DURATION:PT5M'),
    );
    const result = expandCalendar(text, year(2026, { defaultDuration: 60_000 }));
    expect(result.occurrences.map((o) => o.id)).toEqual(['kept']);
  });

  it('without DTEND: DURATION, else the default duration, else a problem naming the event', () => {
    const text = calendar(
      event('dur', 'SUMMARY:Dur', 'DTSTART:20260601T180000Z', 'DURATION:PT45M'),
      event('none', 'SUMMARY:No end', 'DTSTART:20260601T200000Z'),
    );
    const withDefault = expandCalendar(text, year(2026, { defaultDuration: 10 * 60_000 }));
    expect(withDefault.occurrences.map((o) => (o.end.getTime() - o.start.getTime()) / 60_000)).toEqual([45, 10]);
    const without = expandCalendar(text, year(2026));
    expect(without.occurrences.map((o) => o.id)).toEqual(['dur']);
    expect(without.problems).toEqual([
      'Event "No end" (UID "none") has no DTEND or DURATION and the window has no default duration; it is left out.',
    ]);
  });

  it('all-day events are left out unless asked for, then span midnight to midnight in the window zone', () => {
    const text = calendar(
      event('holiday', 'SUMMARY:Holiday', 'DTSTART;VALUE=DATE:20260704', 'DTEND;VALUE=DATE:20260706'),
      event('timed', 'SUMMARY:Timed', 'DTSTART:20260704T100000Z', 'DURATION:PT1H'),
    );
    expect(expandCalendar(text, year(2026)).occurrences.map((o) => o.id)).toEqual(['timed']);
    const withAllDay = expandCalendar(text, year(2026, { allDay: true, zone: 'America/New_York' }));
    const holiday = withAllDay.occurrences.find((o) => o.id === 'holiday');
    expect(holiday && [holiday.start.toISOString(), holiday.end.toISOString()]).toEqual([
      '2026-07-04T04:00:00.000Z',
      '2026-07-06T04:00:00.000Z',
    ]);
  });

  it('keeps what overlaps [from, to), matches the title pattern and carries the details', () => {
    const text = calendar(
      event(
        'a',
        'SUMMARY:REC Morning',
        'DESCRIPTION:Studio A',
        'LOCATION:Studio A',
        'CATEGORIES:news,live',
        'DTSTART:20260601T090000Z',
        'DTEND:20260601T100000Z',
      ),
      event('b', 'SUMMARY:Lunch', 'DTSTART:20260601T120000Z', 'DTEND:20260601T130000Z'),
      event('c', 'SUMMARY:REC Late', 'DTSTART:20260601T230000Z', 'DTEND:20260602T010000Z'),
    );
    const result = expandCalendar(text, {
      windowId: 'newsroom',
      zone: 'UTC',
      from: new Date('2026-06-01T09:30:00Z'),
      to: new Date('2026-06-01T23:30:00Z'),
      match: { title: '^REC ' },
    });
    expect(result.occurrences).toEqual([
      {
        id: 'a',
        windowId: 'newsroom',
        start: new Date('2026-06-01T09:00:00Z'),
        end: new Date('2026-06-01T10:00:00Z'),
        revision: expect.stringMatching(/^[0-9a-z]{14}$/),
        title: 'REC Morning',
        details: { description: 'Studio A', location: 'Studio A', categories: ['news', 'live'] },
      },
      expect.objectContaining({ id: 'c', title: 'REC Late' }),
    ]);
    expect(planned(result.occurrences[0], { before: 120_000, after: 300_000 })).toMatchObject({
      start: Date.parse('2026-06-01T08:58:00Z'),
      end: Date.parse('2026-06-01T10:05:00Z'),
    });
  });

  it('the revision changes when the time or title changes, not otherwise', () => {
    const rev = (summary: string, start: string) =>
      expandCalendar(calendar(event('r', `SUMMARY:${summary}`, `DTSTART:${start}`, 'DURATION:PT1H')), year(2026))
        .occurrences[0].revision;
    expect(rev('A', '20260601T090000Z')).toBe(rev('A', '20260601T090000Z'));
    expect(rev('A', '20260601T090000Z')).not.toBe(rev('A', '20260601T091000Z'));
    expect(rev('A', '20260601T090000Z')).not.toBe(rev('B', '20260601T090000Z'));
  });
});

describe('expandCalendar: bounded expansion', () => {
  it('FREQ=SECONDLY;COUNT=1000000000 stops at the end of the range or the cap, with a problem', () => {
    const text = calendar(
      event(
        'flood',
        'SUMMARY:Flood',
        'DTSTART:20260601T000000Z',
        'DURATION:PT1S',
        'RRULE:FREQ=SECONDLY;COUNT=1000000000',
      ),
    );
    const short = expandCalendar(text, {
      windowId: 'w',
      zone: 'UTC',
      from: new Date('2026-06-01T00:00:00Z'),
      to: new Date('2026-06-01T00:01:00Z'),
    });
    expect(short.occurrences).toHaveLength(60);
    expect(short.problems).toEqual([]);
    const capped = expandCalendar(text, { ...year(2026), maxOccurrences: 500 });
    expect(capped.occurrences).toHaveLength(500);
    expect(capped.problems).toEqual([
      'The calendar has more than 500 occurrences in range; the rest, from event "flood" on, are left out.',
    ]);
  });

  it('an event that started long before the range is cut after maxIterations, named', () => {
    const text = calendar(
      event('minutely', 'SUMMARY:Ticker', 'DTSTART:20200101T000000Z', 'DURATION:PT1M', 'RRULE:FREQ=MINUTELY'),
    );
    const result = expandCalendar(text, { ...year(2026), maxIterations: 1000 });
    expect(result.occurrences).toEqual([]);
    expect(result.problems).toEqual([
      'Event "Ticker" (UID "minutely") recurs more than 1000 times before the end of the range; its later instances are left out.',
    ]);
  });

  it('an impossible date is no instance (30 February)', () => {
    const text = calendar(
      event(
        'feb',
        'SUMMARY:Feb',
        'DTSTART:20250101T120000Z',
        'DURATION:PT1H',
        'RRULE:FREQ=YEARLY;BYMONTH=2;BYMONTHDAY=30',
      ),
    );
    expect(expandCalendar(text, year(2026)).occurrences).toEqual([]);
  });
});

describe('expandCalendar: bad input is named, never thrown', () => {
  const ok = event('ok', 'SUMMARY:Fine', 'DTSTART:20260601T090000Z', 'DURATION:PT1H');

  it("an unknown TZID is read in the window's zone and named", () => {
    const text = calendar(
      ok,
      event('tz', 'SUMMARY:Mars', 'DTSTART;TZID=Mars/Olympus:20260601T090000', 'DURATION:PT1H'),
    );
    const result = expandCalendar(text, year(2026, { zone: 'Europe/Paris' }));
    expect(result.occurrences.map((o) => [o.id, o.start.toISOString()])).toEqual([
      ['tz', '2026-06-01T07:00:00.000Z'],
      ['ok', '2026-06-01T09:00:00.000Z'],
    ]);
    expect(result.problems).toEqual([
      'Event "Mars" (UID "tz"): its DTSTART names the time zone "Mars/Olympus", which the calendar does not define and is no IANA or Windows zone; it is read in the window\'s zone (Europe/Paris).',
    ]);
  });

  it('an RRULE that cannot be expanded leaves that event out and names it', () => {
    const text = calendar(
      ok,
      event('bad', 'SUMMARY:Odd', 'DTSTART:20260601T090000Z', 'DURATION:PT1H', 'RRULE:FREQ=FORTNIGHTLY'),
    );
    const result = expandCalendar(text, year(2026));
    expect(result.occurrences.map((o) => o.id)).toEqual(['ok']);
    expect(result.problems).toHaveLength(1);
    expect(result.problems[0]).toMatch(/^Event "Odd" \(UID "bad"\) is left out: .*FORTNIGHTLY/);
  });

  it('an event that does not parse is named without quoting the line it fails on', () => {
    const text = calendar(
      event('ok', 'SUMMARY:Fine', 'DTSTART:20260601T090000Z', 'DURATION:PT1H'),
      event('bad', 'SUMMARY:Broken', 'DTSTART:20260602T090000Z', 'INTERNAL-ONLY db_password secret'),
    );
    const result = expandCalendar(text, year(2026));
    expect(result.occurrences.map((o) => o.id)).toEqual(['ok']);
    expect(result.problems).toEqual(['Event "Broken" (UID "bad") is left out: invalid line (no token ";" or ":").']);
  });

  it('an event that ends before it starts is named', () => {
    const text = calendar(event('back', 'SUMMARY:Back', 'DTSTART:20260601T090000Z', 'DTEND:20260601T080000Z'));
    expect(expandCalendar(text, year(2026)).problems).toEqual([
      'Event "Back" (UID "back") ends before it starts (DTEND or DURATION); it is left out.',
    ]);
  });

  it.each([
    ['<!DOCTYPE html><html><body>Sign in</body></html>', /^The feed is an HTML or XML page, not an iCalendar feed/],
    ['', /^The calendar is empty/],
    ['Hello', /^The feed is not an iCalendar feed: line 1 is not BEGIN:VCALENDAR\.$/],
    [
      '\r\n\r\nINTERNAL-ONLY: db_password=secret',
      /^The feed is not an iCalendar feed: line 3 is not BEGIN:VCALENDAR\.$/,
    ],
    [calendar(ok).slice(0, 120), /^The calendar is truncated: it ends at line \d+ before END:VCALENDAR\.$/],
    [
      'BEGIN:VCALENDAR\r\nVERSION:2.0\r\nINTERNAL-ONLY db_password secret\r\nEND:VCALENDAR\r\n',
      /^The calendar cannot be read: invalid line \(no token ";" or ":"\) at line 3\.$/,
    ],
    ['BEGIN:VCALENDAR\r\nthis is not a content line\r\nEND:VCALENDAR\r\n', /^The calendar cannot be read: .*line/],
  ])('a feed that is no calendar sets error: %#', (text, message) => {
    const result = expandCalendar(text, year(2026));
    expect(result.occurrences).toEqual([]);
    expect(result.error).toMatch(message);
  });

  it('a title pattern that does not compile is one sentence', () => {
    const result = expandCalendar(calendar(ok), year(2026, { match: { title: '(unclosed' } }));
    expect(result.error).toBe(
      'The title pattern "(unclosed" is not a valid regular expression (missing closing ): `(unclosed`).',
    );
  });
});

import { describe, expect, it } from 'vitest';
import { type CalendarOptions, expandCalendar } from '../../../../lib/schedule/sources/ical';

/** A calendar of the given VEVENT/VTIMEZONE bodies, CRLF as feeds are. */
function calendar(...components: string[]): string {
  const lines = ['BEGIN:VCALENDAR', 'VERSION:2.0', 'PRODID:-//media-spaces//test//EN'];
  for (const c of components) lines.push(...c.split('\n').map((l) => l.trim()));
  lines.push('END:VCALENDAR');
  return `${lines.join('\r\n')}\r\n`;
}

function event(uid: string, ...props: string[]): string {
  return ['BEGIN:VEVENT', `UID:${uid}`, 'DTSTAMP:20260101T000000Z', ...props, 'END:VEVENT'].join('\n');
}

const range = (from: string, to: string, extra: Partial<CalendarOptions> = {}): CalendarOptions => ({
  windowId: 'w',
  zone: 'UTC',
  from: new Date(from),
  to: new Date(to),
  ...extra,
});

const starts = (text: string, opts: CalendarOptions) =>
  expandCalendar(text, opts).occurrences.map((o) => o.start.toISOString().replace('.000', ''));

const decades = range('2020-01-01T00:00:00Z', '2040-01-01T00:00:00Z');

describe('calendars as RFC 5545 reads them', () => {
  it('1. a date that does not exist is skipped, not rolled over, and does not count toward COUNT', () => {
    const yearly = calendar(
      event('leap', 'SUMMARY:Leap', 'DTSTART:20240229T100000Z', 'DURATION:PT1H', 'RRULE:FREQ=YEARLY;COUNT=3'),
    );
    expect(starts(yearly, decades)).toEqual(['2024-02-29T10:00:00Z', '2028-02-29T10:00:00Z', '2032-02-29T10:00:00Z']);
    const byMonth = calendar(
      event('leap', 'SUMMARY:Leap', 'DTSTART:20240229T100000Z', 'DURATION:PT1H', 'RRULE:FREQ=YEARLY;BYMONTH=2;COUNT=3'),
    );
    expect(starts(byMonth, decades)).toEqual(['2024-02-29T10:00:00Z', '2028-02-29T10:00:00Z', '2032-02-29T10:00:00Z']);
    const monthly = calendar(
      event('31st', 'SUMMARY:Month end', 'DTSTART:20240131T100000Z', 'DURATION:PT1H', 'RRULE:FREQ=MONTHLY;COUNT=4'),
    );
    expect(starts(monthly, decades)).toEqual([
      '2024-01-31T10:00:00Z',
      '2024-03-31T10:00:00Z',
      '2024-05-31T10:00:00Z',
      '2024-07-31T10:00:00Z',
    ]);
    // a rule ical.js expands (BYMONTHDAY), with COUNT: the rolled-over dates are no instances either
    const byMonthDay = calendar(
      event(
        '30th',
        'SUMMARY:30th',
        'DTSTART:20240130T100000Z',
        'DURATION:PT1H',
        'RRULE:FREQ=MONTHLY;BYMONTHDAY=30;COUNT=3',
      ),
    );
    expect(starts(byMonthDay, decades)).toEqual([
      '2024-01-30T10:00:00Z',
      '2024-03-30T10:00:00Z',
      '2024-04-30T10:00:00Z',
    ]);
  });

  it('2. an event with RDATE keeps its DTSTART as its first instance', () => {
    const text = calendar(
      event(
        'rd',
        'SUMMARY:Extra',
        'DTSTART:20240801T120000Z',
        'DURATION:PT1H',
        'RDATE:20240805T120000Z,20240806T120000Z',
      ),
    );
    expect(starts(text, decades)).toEqual(['2024-08-01T12:00:00Z', '2024-08-05T12:00:00Z', '2024-08-06T12:00:00Z']);
  });

  it('3. RDATE periods (start/duration, start/end) give their own ends; a bad value is named, the rest kept', () => {
    const text = calendar(
      event(
        'periods',
        'SUMMARY:Periods',
        'DTSTART:20240801T120000Z',
        'DURATION:PT1H',
        'RDATE;VALUE=PERIOD:20240805T120000Z/PT3H,20240806T120000Z/20240806T123000Z',
      ),
    );
    const result = expandCalendar(text, decades);
    expect(result.problems).toEqual([]);
    expect(result.occurrences.map((o) => [o.start.toISOString(), o.end.toISOString()])).toEqual([
      ['2024-08-01T12:00:00.000Z', '2024-08-01T13:00:00.000Z'],
      ['2024-08-05T12:00:00.000Z', '2024-08-05T15:00:00.000Z'],
      ['2024-08-06T12:00:00.000Z', '2024-08-06T12:30:00.000Z'],
    ]);
    const bad = calendar(
      event(
        'half',
        'SUMMARY:Half',
        'DTSTART:20240801T120000Z',
        'DURATION:PT1H',
        'RRULE:FREQ=DAILY;COUNT=3',
        'RDATE;VALUE=PERIOD:20240805T120000Z/PT3H,20240806T120000Z/20240806T110000Z',
      ),
    );
    const half = expandCalendar(bad, decades);
    expect(half.occurrences.map((o) => o.start.toISOString().slice(0, 10))).toEqual([
      '2024-08-01',
      '2024-08-02',
      '2024-08-03',
      '2024-08-05',
    ]);
    expect(half.problems).toEqual([
      'Event "Half" (UID "half"): its RDATE period "20240806T120000Z/20240806T110000Z" ends before it starts; that instance is left out.',
    ]);
  });

  it('4. of two overrides of one instance, the higher SEQUENCE is the one recorded', () => {
    const text = calendar(
      event('s', 'SUMMARY:Show', 'DTSTART:20240801T120000Z', 'DURATION:PT1H', 'RRULE:FREQ=DAILY;COUNT=2'),
      event(
        's',
        'SUMMARY:Show v3',
        'SEQUENCE:3',
        'RECURRENCE-ID:20240802T120000Z',
        'DTSTART:20240802T140000Z',
        'DURATION:PT1H',
      ),
      event(
        's',
        'SUMMARY:Show v1',
        'SEQUENCE:1',
        'RECURRENCE-ID:20240802T120000Z',
        'DTSTART:20240802T130000Z',
        'DURATION:PT1H',
      ),
    );
    const result = expandCalendar(text, decades);
    expect(result.occurrences.map((o) => [o.id, o.title, o.start.toISOString()])).toEqual([
      ['s/2024-08-01T12:00:00Z', 'Show', '2024-08-01T12:00:00.000Z'],
      ['s/2024-08-02T12:00:00Z', 'Show v3', '2024-08-02T14:00:00.000Z'],
    ]);
    expect(result.problems).toEqual([]);
  });

  it('5. of two masters with one UID, the higher SEQUENCE is the series, wherever it is in the file', () => {
    const text = calendar(
      event('m', 'SUMMARY:Old', 'SEQUENCE:1', 'DTSTART:20240801T120000Z', 'DURATION:PT1H'),
      event('m', 'SUMMARY:New', 'SEQUENCE:2', 'DTSTART:20240801T150000Z', 'DURATION:PT1H'),
    );
    const result = expandCalendar(text, decades);
    expect(result.occurrences.map((o) => [o.title, o.start.toISOString()])).toEqual([
      ['New', '2024-08-01T15:00:00.000Z'],
    ]);
    expect(result.problems).toEqual([]);
  });

  it("6. an override's RECURRENCE-ID in an unknown zone is read in the series' zone; the series stays", () => {
    const text = calendar(
      event(
        'u',
        'SUMMARY:Desk',
        'DTSTART;TZID=Europe/Berlin:20240801T090000',
        'DURATION:PT1H',
        'RRULE:FREQ=DAILY;COUNT=3',
      ),
      event(
        'u',
        'SUMMARY:Desk moved',
        'RECURRENCE-ID;TZID=UTC+01:00 Amsterdam Berlin:20240802T090000',
        'DTSTART;TZID=Europe/Berlin:20240802T110000',
        'DURATION:PT1H',
      ),
    );
    const result = expandCalendar(text, decades);
    expect(result.occurrences.map((o) => [o.title, o.start.toISOString()])).toEqual([
      ['Desk', '2024-08-01T07:00:00.000Z'],
      ['Desk moved', '2024-08-02T09:00:00.000Z'],
      ['Desk', '2024-08-03T07:00:00.000Z'],
    ]);
    expect(result.problems).toEqual([
      'Event "Desk" (UID "u"): its RECURRENCE-ID names the time zone "UTC+01:00 Amsterdam Berlin", which the calendar does not define and is no IANA or Windows zone; it is read in the series\' zone.',
    ]);
  });

  it('7. a malformed EXDATE value is named and ignored; the series stays', () => {
    const text = calendar(
      event(
        'x',
        'SUMMARY:Daily',
        'DTSTART:20300114T100000Z',
        'DURATION:PT1H',
        'RRULE:FREQ=DAILY;COUNT=4',
        'EXDATE:20300116',
        'EXDATE:20300115T100000Z',
      ),
    );
    const result = expandCalendar(text, decades);
    expect(result.occurrences.map((o) => o.start.toISOString().slice(0, 10))).toEqual(['2030-01-14', '2030-01-17']);
    // a DATE where a DATE-TIME is due (RFC 5545 requires the type of DTSTART): named, and its day is taken out
    expect(result.problems).toEqual([
      'Event "Daily" (UID "x"): its EXDATE 2030-01-16 is a date where a date-time is due (no VALUE=DATE); it is read as that date.',
    ]);
    const broken = calendar(
      event(
        'y',
        'SUMMARY:Daily',
        'DTSTART:20300114T100000Z',
        'DURATION:PT1H',
        'RRULE:FREQ=DAILY;COUNT=2',
        'EXDATE:2030011',
      ),
    );
    const named = expandCalendar(broken, decades);
    expect(named.occurrences).toHaveLength(2);
    expect(named.problems).toEqual([
      'Event "Daily" (UID "y"): its EXDATE "2030011" is not a date or date-time; that exception is ignored.',
    ]);
  });

  it('8. an all-day series whose override has a DATE-TIME RECURRENCE-ID in another zone: the override replaces its day', () => {
    const text = calendar(
      event(
        'ad',
        'SUMMARY:Holiday rota',
        'DTSTART;VALUE=DATE:20240805',
        'DTEND;VALUE=DATE:20240806',
        'RRULE:FREQ=DAILY;COUNT=3',
      ),
      // Exchange: midnight in the organiser's zone
      event(
        'ad',
        'SUMMARY:Rota moved',
        'RECURRENCE-ID;TZID=W. Europe Standard Time:20240806T000000',
        'DTSTART;VALUE=DATE:20240809',
        'DTEND;VALUE=DATE:20240810',
      ),
      event(
        'ad2',
        'SUMMARY:Second rota',
        'DTSTART;VALUE=DATE:20240805',
        'DTEND;VALUE=DATE:20240806',
        'RRULE:FREQ=DAILY;COUNT=2',
      ),
      // the same midnight written in UTC
      event(
        'ad2',
        'SUMMARY:Second moved',
        'RECURRENCE-ID:20240805T220000Z',
        'DTSTART;VALUE=DATE:20240810',
        'DTEND;VALUE=DATE:20240811',
      ),
    );
    const result = expandCalendar(text, { ...decades, zone: 'Europe/Berlin', allDay: true });
    expect(result.occurrences.map((o) => [o.id, o.title])).toEqual([
      ['ad/2024-08-04T22:00:00Z', 'Holiday rota'],
      ['ad2/2024-08-04T22:00:00Z', 'Second rota'],
      ['ad/2024-08-06T22:00:00Z', 'Holiday rota'],
      ['ad/2024-08-05T22:00:00Z', 'Rota moved'],
      ['ad2/2024-08-05T22:00:00Z', 'Second moved'],
    ]);
    expect(result.problems).toEqual([]);
  });

  it('9. a DTSTART on a day that does not exist is named, not read as the next day', () => {
    const text = calendar(
      event('ok', 'SUMMARY:Fine', 'DTSTART:20240301T100000Z', 'DURATION:PT1H'),
      event('bad', 'SUMMARY:Thirtieth', 'DTSTART:20240230T100000Z', 'DURATION:PT1H'),
    );
    const result = expandCalendar(text, decades);
    expect(result.occurrences.map((o) => o.id)).toEqual(['ok']);
    expect(result.problems).toEqual([
      'Event "Thirtieth" (UID "bad"): its DTSTART "20240230T100000Z" is not a date (2024-02 has no day 30); it is left out.',
    ]);
  });

  it('10. a stray END:VTODO inside an event is named by its line; every event is still read', () => {
    const events = [1, 2, 3, 4].map((n) =>
      event(`e${n}`, `SUMMARY:Event ${n}`, `DTSTART:2024080${n}T100000Z`, 'DURATION:PT1H'),
    );
    const one = calendar(events[0].replace('DURATION:PT1H', 'DURATION:PT1H\nEND:VTODO'), ...events.slice(1));
    const first = expandCalendar(one, decades);
    expect(first.error).toBeUndefined();
    expect(first.occurrences.map((o) => o.id)).toEqual(['e1', 'e2', 'e3', 'e4']);
    expect(first.problems).toEqual(['Line 10: END:VTODO closes no BEGIN:VTODO; the line is ignored.']);
    const two = calendar(
      events[0].replace('DURATION:PT1H', 'DURATION:PT1H\nEND:VTODO'),
      events[1].replace('DURATION:PT1H', 'DURATION:PT1H\nEND:VTODO'),
      ...events.slice(2),
    );
    const second = expandCalendar(two, decades);
    expect(second.error).toBeUndefined();
    expect(second.occurrences.map((o) => o.id)).toEqual(['e1', 'e2', 'e3', 'e4']);
    expect(second.problems).toHaveLength(2);
  });
});

describe('a calendar whose components are not closed', () => {
  const events = [1, 2, 3].map((n) =>
    event(`e${n}`, `SUMMARY:Event ${n}`, `DTSTART:2024080${n}T100000Z`, 'DURATION:PT1H'),
  );

  it('an event without END:VEVENT is left out and named; the events after it are read', () => {
    const text = calendar(events[0].replace('\nEND:VEVENT', ''), events[1], events[2]);
    const result = expandCalendar(text, decades);
    expect(result.error).toBeUndefined();
    expect(result.occurrences.map((o) => o.id)).toEqual(['e2', 'e3']);
    expect(result.problems).toEqual([
      'Line 4: BEGIN:VEVENT has no END:VEVENT (BEGIN:VEVENT on line 10 comes first).',
      'The event of line 4 is left out: it is not closed.',
    ]);
  });

  it('the last event without END:VEVENT is left out and named; the others are read', () => {
    const text = calendar(events[0], events[1], events[2].replace('\nEND:VEVENT', ''));
    const result = expandCalendar(text, decades);
    expect(result.error).toBeUndefined();
    expect(result.occurrences.map((o) => o.id)).toEqual(['e1', 'e2']);
    expect(result.problems).toEqual([
      'Line 18: BEGIN:VEVENT has no END:VEVENT (END:VCALENDAR on line 24 comes first).',
      'The event of line 18 is left out: it is not closed.',
    ]);
  });

  it('an alarm without END:VALARM inside an event: named, the event read', () => {
    const text = calendar(events[0].replace('DURATION:PT1H', 'DURATION:PT1H\nBEGIN:VALARM\nACTION:DISPLAY'), events[1]);
    const result = expandCalendar(text, decades);
    expect(result.occurrences.map((o) => o.id)).toEqual(['e1', 'e2']);
    expect(result.problems).toEqual(['Line 10: BEGIN:VALARM has no END:VALARM (END:VEVENT on line 12 comes first).']);
  });
});

describe('time zones as Outlook and Exchange write them', () => {
  const at = (tzid: string) =>
    calendar(event('w', 'SUMMARY:News', `DTSTART;TZID=${tzid}:20240115T090000`, 'DURATION:PT1H'));

  it.each([
    ['W. Europe Standard Time', '2024-01-15T08:00:00.000Z'],
    ['"W. Europe Standard Time"', '2024-01-15T08:00:00.000Z'],
    ['Eastern Standard Time', '2024-01-15T14:00:00.000Z'],
    ['(UTC-05:00) Eastern Time (US and Canada)', '2024-01-15T14:00:00.000Z'],
    ['(UTC-05:00) Eastern Time (US & Canada)', '2024-01-15T14:00:00.000Z'],
    ['(UTC+01:00) Amsterdam, Berlin, Bern, Rome, Stockholm, Vienna', '2024-01-15T08:00:00.000Z'],
    ['(UTC+01:00) Brussels, Copenhagen, Madrid, Paris', '2024-01-15T08:00:00.000Z'],
    ['(UTC) Dublin, Edinburgh, Lisbon, London', '2024-01-15T09:00:00.000Z'],
    ['(UTC+10:00) Canberra, Melbourne, Sydney', '2024-01-14T22:00:00.000Z'],
    ['GMT Standard Time', '2024-01-15T09:00:00.000Z'],
    ['UTC+05:30', '2024-01-15T03:30:00.000Z'],
    ['"(UTC-05:00) Eastern Time (US & Canada)"', '2024-01-15T14:00:00.000Z'],
    ['"(UTC+01:00) Amsterdam, Berlin, Bern, Rome, Stockholm, Vienna"', '2024-01-15T08:00:00.000Z'],
  ])('%s is read as its IANA zone, no problem named', (tzid, start) => {
    const result = expandCalendar(at(tzid), decades);
    expect(result.problems).toEqual([]);
    expect(result.occurrences.map((o) => o.start.toISOString())).toEqual([start]);
  });

  it('a Windows zone keeps its changes of clocks (summer time)', () => {
    const text = calendar(
      event('s', 'SUMMARY:News', 'DTSTART;TZID=W. Europe Standard Time:20240715T090000', 'DURATION:PT1H'),
    );
    expect(starts(text, decades)).toEqual(['2024-07-15T07:00:00Z']);
  });

  it('a custom zone is read by its VTIMEZONE; without one, in the window zone, named', () => {
    const vtimezone = [
      'BEGIN:VTIMEZONE',
      'TZID:Customized Time Zone 1',
      'BEGIN:STANDARD',
      'DTSTART:16010101T030000',
      'TZOFFSETFROM:+0300',
      'TZOFFSETTO:+0300',
      'END:STANDARD',
      'END:VTIMEZONE',
    ].join('\n');
    const defined = calendar(
      vtimezone,
      event('c', 'SUMMARY:Custom', 'DTSTART;TZID=Customized Time Zone 1:20240115T090000', 'DURATION:PT1H'),
    );
    const read = expandCalendar(defined, decades);
    expect(read.problems).toEqual([]);
    expect(read.occurrences.map((o) => o.start.toISOString())).toEqual(['2024-01-15T06:00:00.000Z']);
    const undefinedZone = expandCalendar(at('Customized Time Zone 1'), { ...decades, zone: 'Europe/Paris' });
    expect(undefinedZone.occurrences.map((o) => o.start.toISOString())).toEqual(['2024-01-15T08:00:00.000Z']);
    expect(undefinedZone.problems).toEqual([
      'Event "News" (UID "w"): its DTSTART names the time zone "Customized Time Zone 1", which the calendar does not define and is no IANA or Windows zone; it is read in the window\'s zone (Europe/Paris).',
    ]);
  });

  it('a display name with an offset and no known city is read at that offset, named', () => {
    const result = expandCalendar(at('(UTC+04:00) Nowhere Land'), decades);
    expect(result.occurrences.map((o) => o.start.toISOString())).toEqual(['2024-01-15T05:00:00.000Z']);
    expect(result.problems).toEqual([
      'Event "News" (UID "w"): its DTSTART names the time zone "(UTC+04:00) Nowhere Land", which the calendar does not define; it is read at the fixed offset +04:00 it states, without changes of clocks.',
    ]);
  });
});

describe("a calendar's own VTIMEZONE", () => {
  it('west of UTC changes to summer time at 02:00 local, not an hour early', () => {
    const vtimezone = [
      'BEGIN:VTIMEZONE',
      'TZID:America/Los_Angeles',
      'BEGIN:DAYLIGHT',
      'TZOFFSETFROM:-0800',
      'RRULE:FREQ=YEARLY;BYMONTH=3;BYDAY=2SU',
      'DTSTART:20070311T020000',
      'TZOFFSETTO:-0700',
      'END:DAYLIGHT',
      'BEGIN:STANDARD',
      'TZOFFSETFROM:-0700',
      'RRULE:FREQ=YEARLY;BYMONTH=11;BYDAY=1SU',
      'DTSTART:20071104T020000',
      'TZOFFSETTO:-0800',
      'END:STANDARD',
      'END:VTIMEZONE',
    ].join('\n');
    const text = calendar(
      vtimezone,
      event(
        'night',
        'SUMMARY:Transmitter work',
        'DTSTART;TZID=America/Los_Angeles:20260308T010000',
        'DTEND;TZID=America/Los_Angeles:20260308T033000',
      ),
    );
    const result = expandCalendar(text, decades);
    // 01:00 PST is 09:00Z; 03:30 PDT is 10:30Z
    expect(result.occurrences.map((o) => [o.start.toISOString(), o.end.toISOString()])).toEqual([
      ['2026-03-08T09:00:00.000Z', '2026-03-08T10:30:00.000Z'],
    ]);
  });
});

describe('zero-length events', () => {
  const text = calendar(
    event('z', 'SUMMARY:Deadline', 'DTSTART:20240801T120000Z', 'DTEND:20240801T120000Z'),
    event('d', 'SUMMARY:Also', 'DTSTART:20240802T120000Z', 'DURATION:PT0S'),
  );

  it('are named and recorded for the default duration when the window has one', () => {
    const result = expandCalendar(text, { ...decades, defaultDuration: 30 * 60_000 });
    expect(result.occurrences.map((o) => [o.id, o.start.toISOString(), o.end.toISOString()])).toEqual([
      ['z', '2024-08-01T12:00:00.000Z', '2024-08-01T12:30:00.000Z'],
      ['d', '2024-08-02T12:00:00.000Z', '2024-08-02T12:30:00.000Z'],
    ]);
    expect(result.problems).toEqual([
      'Event "Deadline" (UID "z") is zero-length (it ends when it starts); it is recorded for the default duration.',
      'Event "Also" (UID "d") is zero-length (it ends when it starts); it is recorded for the default duration.',
    ]);
  });

  it('are named and left out when it has none', () => {
    const result = expandCalendar(text, decades);
    expect(result.occurrences).toEqual([]);
    expect(result.problems).toEqual([
      'Event "Deadline" (UID "z") is zero-length (it ends when it starts) and the window has no default duration; it is left out.',
      'Event "Also" (UID "d") is zero-length (it ends when it starts) and the window has no default duration; it is left out.',
    ]);
  });
});

describe('expansion cost does not grow with the age of a series', () => {
  it('4,000 daily series started in 2015 expand for a week of 2026 in well under 5 s', () => {
    const events: string[] = [];
    for (let i = 0; i < 4000; i++) {
      const hh = String(i % 24).padStart(2, '0');
      const rule =
        i % 4 === 0
          ? 'RRULE:FREQ=DAILY;COUNT=10000'
          : i % 4 === 1
            ? 'RRULE:FREQ=WEEKLY;BYDAY=MO,WE,FR'
            : 'RRULE:FREQ=DAILY';
      events.push(
        event(`s${i}`, `SUMMARY:Series ${i}`, `DTSTART;TZID=Europe/London:20150301T${hh}0000`, 'DURATION:PT30M', rule),
      );
    }
    const text = calendar(...events);
    // CPU time, not wall time: the test must not fail because the machine is busy with something else
    const started = process.cpuUsage();
    const result = expandCalendar(text, {
      ...range('2026-11-30T00:00:00Z', '2026-12-07T00:00:00Z'),
      maxOccurrences: 1_000_000,
    });
    const used = process.cpuUsage(started);
    const took = (used.user + used.system) / 1000;
    expect(result.problems).toEqual([]);
    expect(result.occurrences).toHaveLength(1000 * 7 + 1000 * 3 + 2000 * 7);
    expect(took).toBeLessThan(5000);
  });

  it('a daily series with COUNT ends where its count ends, however far back it started', () => {
    const text = calendar(
      event('c', 'SUMMARY:Counted', 'DTSTART:20150101T100000Z', 'DURATION:PT1H', 'RRULE:FREQ=DAILY;COUNT=4000'),
    );
    // 2015-01-01 + 3,999 days = 2025-12-13
    expect(starts(text, range('2025-12-10T00:00:00Z', '2025-12-20T00:00:00Z'))).toEqual([
      '2025-12-10T10:00:00Z',
      '2025-12-11T10:00:00Z',
      '2025-12-12T10:00:00Z',
      '2025-12-13T10:00:00Z',
    ]);
  });
});

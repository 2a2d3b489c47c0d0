import { validate } from 'node-cron';
import { describe, expect, it } from 'vitest';
import {
  CronSyntaxError,
  cronError,
  describeCron,
  nextOccurrence,
  nextOccurrences,
  parseCron,
} from '../../../lib/schedule/cron';
import { formatLocalIso, isValidTimeZone, offsetAt, resolveLocal } from '../../../lib/schedule/tz';

const iso = (t: number | null) => (t === null ? null : new Date(t).toISOString());
const local = (ts: number[], tz: string) => ts.map((t) => formatLocalIso(t, tz));

describe('cron parsing (node-cron syntax)', () => {
  it('accepts 5 and 6 fields, lists, ranges, steps, names and nicknames', () => {
    for (const expr of [
      '0 18 * * *',
      '0 0 18 * * *',
      '30 6 * * mon-fri',
      '*/15 * * * *',
      '0 9-17/2 * * MON-FRI',
      '0 6,18 * * *',
      '0 18 * JAN-MAR sun',
      '0 18 L * *',
      '0 18 15W * *',
      '0 18 * * 5L',
      '0 18 * * 1#2',
      '0 18 ? * *',
      '@daily',
      '@hourly',
      '0 18 * * 7',
    ]) {
      expect(cronError(expr), expr).toBeUndefined();
      expect(validate(expr), expr).toBe(true);
      expect(() => parseCron(expr)).not.toThrow();
    }
  });

  it('names the field and value at fault', () => {
    expect(cronError('61 * * * *')).toBe('minute 61 out of range 0-59');
    expect(cronError('0 24 * * *')).toBe('hour 24 out of range 0-23');
    expect(cronError('0 30-10 * * *')).toBe('hour 30 out of range 0-23'); // node-cron alone accepts this
    expect(cronError('0 18 32 * *')).toBe('day of month 32 out of range 1-31');
    expect(cronError('0 18 * 13 *')).toBe('month 13 out of range 1-12');
    expect(cronError('0 18 * * 8')).toBe('day of week 8 out of range 0-7');
    expect(cronError('0 18 * * mnday')).toBe('unknown day of week name "mnday"');
    expect(cronError('*/0 * * * *')).toBe('step 0 in the minute field must be at least 1');
    expect(cronError('5/15 * * * *')).toMatch(/a step needs "\*" or a range/);
    expect(cronError('0 18 * *')).toMatch(/expected 5 fields .* got 4/);
    expect(cronError('0 0 0 18 * * *')).toMatch(/got 7/);
    expect(cronError('0 0 31 4 *')).toBe('day of month 31 never occurs in the given month');
    expect(cronError('@reboot')).toMatch(/unknown nickname/);
    expect(cronError('')).toBe('the expression is empty');
    expect(() => parseCron('61 * * * *')).toThrow(CronSyntaxError);
  });

  it('reads weekday 7 and 0 as Sunday and wrapping ranges as node-cron does', () => {
    expect(parseCron('0 18 * * 7').fields.dayOfWeek).toEqual([0]);
    expect(parseCron('0 18 * * fri-mon').fields.dayOfWeek.sort()).toEqual([0, 1, 5, 6]);
    expect(parseCron('0 0 12 * * *').fields.hour).toEqual([12]);
    expect(parseCron('0 0 12 * * *').hasSeconds).toBe(true);
  });
});

describe('describeCron', () => {
  it.each([
    ['0 18 * * *', 'every day at 18:00'],
    ['30 6 * * mon-fri', 'at 06:30 on Monday to Friday'],
    ['*/15 * * * *', 'every 15 minutes'],
    ['* * * * *', 'every minute'],
    ['0 * * * *', 'every hour'],
    ['15 * * * *', 'every hour at minute 15'],
    ['0 */2 * * *', 'every 2 hours'],
    ['0 6,18 * * *', 'every day at 06:00 and 18:00'],
    ['*/5 9-17 * * 1-5', 'every 5 minutes between 09:00 and 17:59 on Monday to Friday'],
    ['0 18 * * 0,6', 'at 18:00 on Sunday and Saturday'],
    ['0 18 1,15 * *', 'at 18:00 on days 1 and 15 of the month'],
    ['0 18 L * *', 'at 18:00 on the last day of the month'],
    ['0 18 * * 5L', 'at 18:00 on the last Friday of the month'],
    ['0 18 * * 1#2', 'at 18:00 on the second Monday of the month'],
    ['0 18 * JAN-MAR *', 'at 18:00 in January to March'],
    ['0 0 1 */3 *', 'at 00:00 on day 1 of the month in January, April, July and October'],
    ['0 0 13 * 5', 'at 00:00 on day 13 of the month if it is a Friday'],
    ['30 0 18 * * *', 'every day at 18:00:30'],
    ['*/10 * * * * *', 'every 10 seconds'],
    ['@weekly', 'at 00:00 on Sunday'],
    ['@daily', 'every day at 00:00'],
  ])('%s -> %s', (expr, words) => {
    expect(describeCron(expr)).toBe(words);
  });
});

describe('next occurrences', () => {
  it('lists the next five starts in the window zone', () => {
    const spec = parseCron('0 18 * * mon-fri');
    const from = Date.UTC(2024, 10, 21, 12, 0); // Thu 21 Nov 2024 12:00Z
    expect(nextOccurrences(spec, from, 'Europe/London', 5).map(iso)).toEqual([
      '2024-11-21T18:00:00.000Z',
      '2024-11-22T18:00:00.000Z',
      '2024-11-25T18:00:00.000Z',
      '2024-11-26T18:00:00.000Z',
      '2024-11-27T18:00:00.000Z',
    ]);
    expect(local(nextOccurrences(spec, from, 'America/New_York', 2), 'America/New_York')).toEqual([
      '2024-11-21T18:00:00-05:00',
      '2024-11-22T18:00:00-05:00',
    ]);
  });

  it('is strictly after the given instant', () => {
    const spec = parseCron('0 18 * * *');
    const at = Date.UTC(2024, 10, 21, 18, 0);
    expect(iso(nextOccurrence(spec, at, 'UTC'))).toBe('2024-11-22T18:00:00.000Z');
    expect(iso(nextOccurrence(spec, at - 1, 'UTC'))).toBe('2024-11-21T18:00:00.000Z');
  });

  it('honours the seconds field and rare dates', () => {
    expect(iso(nextOccurrence(parseCron('30 0 18 * * *'), Date.UTC(2024, 0, 1), 'UTC'))).toBe(
      '2024-01-01T18:00:30.000Z',
    );
    // 29 February on a Monday: 2044
    expect(iso(nextOccurrence(parseCron('0 0 29 2 1'), Date.UTC(2024, 0, 1), 'UTC'))).toBe('2044-02-29T00:00:00.000Z');
    expect(iso(nextOccurrence(parseCron('0 18 * * 5L'), Date.UTC(2024, 10, 1), 'UTC'))).toBe(
      '2024-11-29T18:00:00.000Z',
    );
  });
});

describe('daylight saving', () => {
  it('validates zones with Intl', () => {
    expect(isValidTimeZone('Europe/London')).toBe(true);
    expect(isValidTimeZone('Europe/Londn')).toBe(false);
    expect(isValidTimeZone('')).toBe(false);
  });

  it('resolves a repeated wall-clock time to its first occurrence and a missing one to the end of the gap', () => {
    // London, 27 Oct 2024: 01:00-01:59 happens twice (BST then GMT)
    expect(resolveLocal(Date.UTC(2024, 9, 27, 1, 30), 'Europe/London')).toEqual({
      instant: Date.UTC(2024, 9, 27, 0, 30),
      kind: 'repeated',
    });
    // London, 31 Mar 2024: 01:00-01:59 does not exist; 01:00Z is the first instant after the gap
    expect(resolveLocal(Date.UTC(2024, 2, 31, 1, 30), 'Europe/London')).toEqual({
      instant: Date.UTC(2024, 2, 31, 1, 0),
      kind: 'gap',
    });
    expect(offsetAt(Date.UTC(2024, 6, 1), 'Europe/London')).toBe(3600_000);
  });

  const cases = [
    {
      zone: 'Europe/London',
      spring: { cron: '30 1 * * *', from: Date.UTC(2024, 2, 30, 12) },
      springExpected: ['2024-03-31T02:00:00+01:00', '2024-04-01T01:30:00+01:00'],
      fall: { cron: '30 1 * * *', from: Date.UTC(2024, 9, 26, 12) },
      fallExpected: ['2024-10-27T01:30:00+01:00', '2024-10-28T01:30:00+00:00'],
    },
    {
      zone: 'America/New_York',
      spring: { cron: '30 2 * * *', from: Date.UTC(2024, 2, 9, 12) },
      springExpected: ['2024-03-10T03:00:00-04:00', '2024-03-11T02:30:00-04:00'],
      fall: { cron: '30 1 * * *', from: Date.UTC(2024, 10, 2, 12) },
      fallExpected: ['2024-11-03T01:30:00-04:00', '2024-11-04T01:30:00-05:00'],
    },
    {
      zone: 'Australia/Sydney',
      spring: { cron: '30 2 * * *', from: Date.UTC(2024, 9, 5, 0) }, // clocks go forward 6 Oct 02:00
      springExpected: ['2024-10-06T03:00:00+11:00', '2024-10-07T02:30:00+11:00'],
      fall: { cron: '30 2 * * *', from: Date.UTC(2024, 3, 6, 12) }, // clocks go back 7 Apr 03:00
      fallExpected: ['2024-04-07T02:30:00+11:00', '2024-04-08T02:30:00+10:00'],
    },
  ];

  for (const c of cases) {
    it(`${c.zone}: a start inside the spring-forward gap fires once, at the end of the gap`, () => {
      const starts = nextOccurrences(parseCron(c.spring.cron), c.spring.from, c.zone, 2);
      expect(local(starts, c.zone)).toEqual(c.springExpected);
    });

    it(`${c.zone}: a start in the repeated fall-back hour fires once, at the first occurrence`, () => {
      const starts = nextOccurrences(parseCron(c.fall.cron), c.fall.from, c.zone, 2);
      expect(local(starts, c.zone)).toEqual(c.fallExpected);
      // asking again from just after the first occurrence does not yield the repeat
      expect(iso(nextOccurrence(parseCron(c.fall.cron), starts[0], c.zone))).toBe(iso(starts[1]));
    });
  }

  it('collapses every start inside a gap into one firing (every 15 minutes, London)', () => {
    const starts = nextOccurrences(parseCron('*/15 * * * *'), Date.UTC(2024, 2, 31, 0, 30), 'Europe/London', 3);
    expect(local(starts, 'Europe/London')).toEqual([
      '2024-03-31T00:45:00+00:00',
      '2024-03-31T02:00:00+01:00',
      '2024-03-31T02:15:00+01:00',
    ]);
  });

  it('does not repeat the starts of the repeated hour (every 30 minutes, New York)', () => {
    const starts = nextOccurrences(parseCron('*/30 * * * *'), Date.UTC(2024, 10, 3, 4, 45), 'America/New_York', 4);
    expect(local(starts, 'America/New_York')).toEqual([
      '2024-11-03T01:00:00-04:00',
      '2024-11-03T01:30:00-04:00',
      '2024-11-03T02:00:00-05:00',
      '2024-11-03T02:30:00-05:00',
    ]);
  });
});

describe('the last <weekday> of the month by name (friL), as node-cron accepts it', () => {
  it('accepts friL like 5L and fri#2 like 1#2, and describes it', () => {
    for (const expr of ['0 0 * * friL', '0 0 * * FRIL', '0 0 * * fridayL', '0 0 * * fril,mon']) {
      expect(cronError(expr), expr).toBeUndefined();
      expect(validate(expr), expr).toBe(true);
    }
    expect(describeCron('0 18 * * friL')).toBe(describeCron('0 18 * * 5L'));
    expect(cronError('0 0 * * fooL')).toMatch(/unknown day of week name "foo"/);
  });

  it('finds the last Friday of each month, in a zone with daylight saving', () => {
    const starts = nextOccurrences(parseCron('0 0 * * friL'), Date.UTC(2024, 9, 1), 'America/New_York', 3);
    // 25 Oct is in EDT (UTC-4), 29 Nov and 27 Dec in EST (UTC-5)
    expect(starts.map(iso)).toEqual([
      '2024-10-25T04:00:00.000Z',
      '2024-11-29T05:00:00.000Z',
      '2024-12-27T05:00:00.000Z',
    ]);
    expect(local(starts, 'America/New_York').map((s) => s.slice(0, 10))).toEqual([
      '2024-10-25',
      '2024-11-29',
      '2024-12-27',
    ]);
  });

  it('fires once on the last Sunday when that night the clocks change (London)', () => {
    // 27 Oct 2024: 01:30 happens twice (first in BST); 30 Mar 2025: 01:30 does not exist (end of the gap, 02:00 BST)
    const starts = nextOccurrences(parseCron('30 1 * * sunL'), Date.UTC(2024, 9, 1), 'Europe/London', 6);
    expect(starts.map(iso)).toEqual([
      '2024-10-27T00:30:00.000Z',
      '2024-11-24T01:30:00.000Z',
      '2024-12-29T01:30:00.000Z',
      '2025-01-26T01:30:00.000Z',
      '2025-02-23T01:30:00.000Z',
      '2025-03-30T01:00:00.000Z',
    ]);
  });
});

describe('the search limit covers the rarest dates', () => {
  it('finds 29 February on a Monday across 2100, which is not a leap year (40 years apart)', () => {
    const spec = parseCron('0 0 29 2 1');
    expect(iso(nextOccurrence(spec, Date.UTC(2044, 1, 1), 'UTC'))).toBe('2044-02-29T00:00:00.000Z');
    expect(iso(nextOccurrence(spec, Date.UTC(2044, 2, 1), 'UTC'))).toBe('2072-02-29T00:00:00.000Z');
    // 2072 -> 2112: 2100 has no 29 February
    expect(iso(nextOccurrence(spec, Date.UTC(2072, 1, 29), 'UTC'))).toBe('2112-02-29T00:00:00.000Z');
    expect(iso(nextOccurrence(spec, Date.UTC(2099, 0, 1), 'UTC'))).toBe('2112-02-29T00:00:00.000Z');
    expect(iso(nextOccurrence(parseCron('0 0 * 2 1L'), Date.UTC(2072, 2, 1), 'UTC'))).toBe('2073-02-27T00:00:00.000Z');
  });

  it('passes the months a cron never names, across the year end and in a zone with daylight saving', () => {
    // once a year: from just after this year's start, next year's
    const yearly = parseCron('1 26 17 26 11 *');
    expect(iso(nextOccurrence(yearly, Date.UTC(2026, 10, 26, 17, 26, 1), 'UTC'))).toBe('2027-11-26T17:26:01.000Z');
    expect(iso(nextOccurrence(parseCron('0 9 1 1,12 *'), Date.UTC(2026, 11, 2), 'UTC'))).toBe(
      '2027-01-01T09:00:00.000Z',
    );
    // 09:00 in London: BST (UTC+1) in June, GMT in December
    const london = parseCron('0 9 15 6,12 *');
    expect(iso(nextOccurrence(london, Date.UTC(2026, 0, 1), 'Europe/London'))).toBe('2026-06-15T08:00:00.000Z');
    expect(iso(nextOccurrence(london, Date.UTC(2026, 5, 16), 'Europe/London'))).toBe('2026-12-15T09:00:00.000Z');
  });

  it('returns null for a day that never comes (29 February as the first Monday)', () => {
    expect(nextOccurrence(parseCron('0 0 29 2 1#1'), Date.UTC(2024, 0, 1), 'UTC')).toBeNull();
  });
});

import { describe, expect, it } from 'vitest';
import { ianaOffset, ianaZoneOf, resolveWallClock } from '../../../../lib/schedule/sources/wall-clock';
import { HOUR, offsetAt } from '../../../../lib/schedule/tz';

describe('ianaOffset: the table of a zone’s changes', () => {
  // half-hour and 45-minute offsets and changes, southern-hemisphere summers, a zone without changes
  const zones = [
    'Europe/London',
    'America/New_York',
    'Australia/Sydney',
    'Australia/Lord_Howe',
    'Asia/Kathmandu',
    'Pacific/Chatham',
    'America/Sao_Paulo',
    'UTC',
  ];

  it.each(zones)('%s: the same offset as Intl at every hour of 2026 and to the second around each change', (zone) => {
    const offset = ianaOffset(zone);
    const start = Date.UTC(2026, 0, 1);
    let changes = 0;
    for (let t = start; t < Date.UTC(2027, 0, 1); t += HOUR) {
      const intl = offsetAt(t, zone);
      if (offset(t) !== intl) throw new Error(`${zone} at ${new Date(t).toISOString()}`);
      if (intl === offsetAt(t + HOUR, zone)) continue;
      // a change within the next hour: to the second
      changes++;
      for (let s = t; s <= t + HOUR; s += 1000) expect(offset(s)).toBe(offsetAt(s, zone));
    }
    expect(changes).toBe(['Asia/Kathmandu', 'UTC', 'America/Sao_Paulo'].includes(zone) ? 0 : 2);
  });

  it('reads years before and after the one first asked', () => {
    const offset = ianaOffset('Europe/Berlin');
    expect(offset(Date.UTC(1985, 6, 1))).toBe(2 * HOUR);
    expect(offset(Date.UTC(2040, 0, 1))).toBe(HOUR);
  });
});

describe('resolveWallClock (RFC 5545 3.3.5)', () => {
  const ny = ianaOffset('America/New_York');
  const local = (iso: string) => Date.parse(`${iso}Z`);

  it('a time that happens twice is the first; a skipped time takes the offset from before the gap', () => {
    expect(new Date(resolveWallClock(local('2007-11-04T01:30:00'), ny)).toISOString()).toBe('2007-11-04T05:30:00.000Z');
    expect(new Date(resolveWallClock(local('2007-03-11T02:30:00'), ny)).toISOString()).toBe('2007-03-11T07:30:00.000Z');
    expect(new Date(resolveWallClock(local('2007-06-01T12:00:00'), ny)).toISOString()).toBe('2007-06-01T16:00:00.000Z');
  });
});

describe('ianaZoneOf', () => {
  it('reads IANA names, also behind a vendor prefix, and nothing else', () => {
    expect(ianaZoneOf('Europe/London')).toBe('Europe/London');
    expect(ianaZoneOf('"America/New_York"')).toBe('America/New_York');
    expect(ianaZoneOf('/mozilla.org/20050126_1/Europe/Paris')).toBe('Europe/Paris');
    expect(ianaZoneOf('/softwarestudio.org/Olson_20011030_5/America/Argentina/Buenos_Aires')).toBe(
      'America/Argentina/Buenos_Aires',
    );
    expect(ianaZoneOf('W. Europe Standard Time')).toBeUndefined();
    expect(ianaZoneOf('Mars/Olympus')).toBeUndefined();
  });
});

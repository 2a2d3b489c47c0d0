import { HOUR, isValidTimeZone, MINUTE } from '../tz';
import { ianaOffset, ianaZoneOf, type OffsetAt } from './wall-clock';

/**
 * The zone a TZID names, in this order:
 * 1. the calendar's own VTIMEZONE of that TZID (RFC 5545 3.2.19), whatever its name
 *    ("Customized Time Zone 1" is read by its definition);
 * 2. an IANA name, or the tail of a vendor-prefixed one (`/mozilla.org/20050126_1/Europe/London`);
 * 3. a Windows zone name, as Outlook and Exchange write them without a VTIMEZONE
 *    ("W. Europe Standard Time"), through CLDR's windowsZones table (`windows-iana`,
 *    loaded only by calendars that need it);
 * 4. Outlook's display form "(UTC-05:00) Eastern Time (US & Canada)" or
 *    "(UTC+01:00) Amsterdam, Berlin, Bern, Rome, Stockholm, Vienna": by the Windows
 *    name it abbreviates, else by a city it lists, checked against its offset;
 *    "(UTC+01:00) Somewhere" that names neither is read at that fixed offset (named);
 * 5. a fixed offset written as a name: "UTC+01:00", "GMT-5".
 * Undefined otherwise: the caller reads the value in another zone and names it.
 */
export interface TzidReading {
  offset: OffsetAt;
  /** set when the zone is a guess: a sentence fragment saying how it was read */
  note?: string;
}

export function zoneOfTzid(tzid: string, own: Map<string, OffsetAt>): TzidReading | undefined {
  const defined = own.get(tzid);
  if (defined) return { offset: defined };
  if (named.has(tzid)) return named.get(tzid);
  const reading = zoneOfName(tzid);
  if (named.size >= 1000) named.clear();
  named.set(tzid, reading);
  return reading;
}

/** The readings of TZIDs by their names alone (not a calendar's VTIMEZONE): a Windows name is looked up once. */
const named = new Map<string, TzidReading | undefined>();

function zoneOfName(tzid: string): TzidReading | undefined {
  const iana = ianaZoneOf(tzid);
  if (iana) return { offset: ianaOffset(iana) };
  const name = tzid.trim().replace(/^"|"$/g, '');
  const windows = windowsZone(name);
  if (windows) return { offset: ianaOffset(windows) };
  const display = /^\((?:UTC|GMT)(?:\s*([+-])(\d{1,2}):?(\d{2})?)?\)\s*(.*)$/i.exec(name);
  if (display) {
    const stated = signed(display[1], display[2], display[3]);
    const zone = displayZone(display[4], stated);
    if (zone) return { offset: ianaOffset(zone) };
    return {
      offset: () => stated,
      note: `at the fixed offset ${formatOffset(stated)} it states, without changes of clocks`,
    };
  }
  const fixed = /^(?:UTC|GMT)\s*([+-])(\d{1,2})(?::?(\d{2}))?$/i.exec(name);
  if (fixed) {
    const offset = signed(fixed[1], fixed[2], fixed[3]);
    return { offset: () => offset };
  }
  return undefined;
}

type WindowsIana = typeof import('windows-iana');
let windowsIana: WindowsIana | undefined;

/** windows-iana, loaded by the first calendar with a Windows zone name (9 ms, 1.1 MB). */
function loadWindowsIana(): WindowsIana {
  windowsIana ??= require('windows-iana') as WindowsIana;
  return windowsIana;
}

/** The IANA zone of a Windows zone name (CLDR's territory 001, the first it lists), or undefined. */
function windowsZone(name: string): string | undefined {
  return loadWindowsIana()
    .findIana(name)
    .find((zone) => isValidTimeZone(zone));
}

/**
 * The zone of Outlook's display text after "(UTC±hh:mm)": the Windows name it stands for
 * ("Eastern Time (US & Canada)" is "Eastern Standard Time"), else the first listed city
 * that is an IANA zone whose standard or summer offset is the stated one.
 */
function displayZone(text: string, stated: number): string | undefined {
  const bare = text.replace(/\s*\([^)]*\)\s*$/, '').trim();
  for (const candidate of [`${bare.replace(/\s+Time$/i, '')} Standard Time`, bare]) {
    const zone = windowsZone(candidate);
    if (zone && offsetsOf(zone).includes(stated)) return zone;
  }
  for (const city of text.split(/[,:;/]|\band\b|\(|\)/)) {
    const key = city.trim().replace(/\s+/g, '_').toLowerCase();
    if (key === '') continue;
    const zone = zonesByCity().get(key);
    if (zone && offsetsOf(zone).includes(stated)) return zone;
  }
  return undefined;
}

let byCity: Map<string, string> | undefined;

function zonesByCity(): Map<string, string> {
  if (!byCity) {
    byCity = new Map();
    const zones = (Intl as { supportedValuesOf?: (key: string) => string[] }).supportedValuesOf?.('timeZone') ?? [];
    for (const zone of zones) {
      const city = zone.split('/').pop()?.toLowerCase();
      if (city && !byCity.has(city)) byCity.set(city, zone);
    }
  }
  return byCity;
}

/** The zone's offsets in January and July of this year: its standard and its summer time. */
function offsetsOf(zone: string): number[] {
  const year = new Date().getUTCFullYear();
  const offset = ianaOffset(zone);
  return [offset(Date.UTC(year, 0, 15)), offset(Date.UTC(year, 6, 15))];
}

function signed(sign: string | undefined, hours: string | undefined, minutes: string | undefined): number {
  if (sign === undefined) return 0;
  const ms = Number(hours) * HOUR + Number(minutes ?? 0) * MINUTE;
  return sign === '-' ? -ms : ms;
}

function formatOffset(ms: number): string {
  const abs = Math.abs(ms) / MINUTE;
  return `${ms < 0 ? '-' : '+'}${String(Math.floor(abs / 60)).padStart(2, '0')}:${String(abs % 60).padStart(2, '0')}`;
}

/** What ical.js keeps of a VTIMEZONE's changes of offset: their instants (UTC fields) and offsets, in seconds. */
interface ZoneChange {
  year: number;
  month: number;
  day: number;
  hour: number;
  minute: number;
  second: number;
  utcOffset: number;
  prevUtcOffset: number;
}

interface ExpandableZone {
  changes: ZoneChange[];
  expandedUntilYear: number;
  _ensureCoverage(year: number): void;
}

/**
 * The offset function of a calendar's VTIMEZONE, from the changes ical.js expands from its
 * STANDARD and DAYLIGHT rules: the offset of the last change at or before the instant. Not
 * ical.js's own conversion from UTC (Time.convertToZone), which compares an instant with the
 * changes' local times and so moves to summer time an hour early in zones west of UTC
 * (America/Los_Angeles on 8 March 2026: 09:00Z is 01:00 PST, it gave 02:00).
 */
export function vtimezoneOffset(timezone: unknown): OffsetAt {
  const zone = timezone as ExpandableZone;
  let starts: number[] = [];
  let offsets: number[] = [];
  let before = 0;
  let covered = Number.NEGATIVE_INFINITY;
  return (instant) => {
    const year = new Date(instant).getUTCFullYear() + 1;
    if (year > covered) {
      zone._ensureCoverage(year);
      starts = zone.changes.map((c) => Date.UTC(c.year, c.month - 1, c.day, c.hour, c.minute, c.second));
      offsets = zone.changes.map((c) => c.utcOffset * 1000);
      before = (zone.changes[0]?.prevUtcOffset ?? 0) * 1000;
      covered = Math.max(year, zone.expandedUntilYear ?? year);
    }
    let lo = 0;
    let hi = starts.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (starts[mid] <= instant) lo = mid + 1;
      else hi = mid;
    }
    return lo === 0 ? before : offsets[lo - 1];
  };
}

import { readFileSync } from 'node:fs';
import path from 'node:path';
import ical from 'node-ical';
import { describe, expect, it } from 'vitest';
import { expandCalendar } from '../../../../lib/schedule/sources/ical';

/**
 * The oracle: calendars as Google, Outlook/Exchange and Apple export them (and the newsroom sample
 * of the docs, and a calendar of RFC 5545 edge cases) expanded by this project and by node-ical, an
 * independent expander (its own parser, rrule-temporal for the rules, its own Windows zone table).
 * The two must give the same instances (UID, start, end; all-day ones by their dates) except where
 * the project reads a calendar differently on purpose: each difference is listed below with its
 * reason, and a difference that is not listed, or a listed one that no longer happens, fails.
 */
const FIXTURES = path.join(__dirname, '../../../fixtures');

interface Fixture {
  file: string;
  from: string;
  to: string;
}

const CALENDARS: Fixture[] = [
  { file: 'calendars/google.ics', from: '2026-03-01T00:00:00Z', to: '2026-07-01T00:00:00Z' },
  { file: 'calendars/outlook.ics', from: '2026-03-01T00:00:00Z', to: '2026-07-01T00:00:00Z' },
  { file: 'calendars/exchange-windows-zones.ics', from: '2026-03-01T00:00:00Z', to: '2026-07-01T00:00:00Z' },
  { file: 'calendars/apple.ics', from: '2026-03-01T00:00:00Z', to: '2026-07-01T00:00:00Z' },
  { file: 'feeds/newsroom.ics', from: '2026-01-01T00:00:00Z', to: '2026-05-01T00:00:00Z' },
  { file: 'calendars/rfc-edges.ics', from: '2024-01-01T00:00:00Z', to: '2034-01-01T00:00:00Z' },
  // series of many kinds started in 2015, read in 2026: the instances found by skipping ahead are the same
  { file: 'calendars/series-from-2015.ics', from: '2026-01-01T00:00:00Z', to: '2026-05-01T00:00:00Z' },
];

/**
 * Where the project and node-ical differ, on purpose. `project`: instances only the project gives;
 * `nodeIcal`: instances only node-ical gives (as `UID start end`, ISO seconds, or dates for all-day).
 */
const CHOICES: { file: string; uid: string; reason: string; project?: string[]; nodeIcal?: string[] }[] = [
  {
    file: 'calendars/google.ics',
    uid: 'cancelled-press-call@google.com',
    reason: 'STATUS:CANCELLED: a cancelled event is nothing to record; node-ical lists it with its status',
    nodeIcal: ['cancelled-press-call@google.com 2026-03-10T14:00:00Z 2026-03-10T15:00:00Z'],
  },
  {
    file: 'calendars/rfc-edges.ics',
    uid: 'rdates@edges',
    reason:
      'RDATE adds instances with or without an RRULE (RFC 5545 3.8.5.2); node-ical expands RDATE only beside ' +
      'an RRULE and gives DTSTART alone',
    project: [
      'rdates@edges 2024-08-05T12:00:00Z 2024-08-05T13:00:00Z',
      'rdates@edges 2024-08-06T15:00:00Z 2024-08-06T16:00:00Z',
    ],
  },
  {
    file: 'calendars/rfc-edges.ics',
    uid: 'periods@edges',
    reason:
      'an RDATE PERIOD is an instance with its own end (RFC 5545 3.8.5.2), three hours here; node-ical, which ' +
      'expands RDATE only beside an RRULE, gives DTSTART alone',
    project: ['periods@edges 2024-08-12T12:00:00Z 2024-08-12T15:00:00Z'],
  },
  {
    file: 'calendars/rfc-edges.ics',
    uid: 'unsynced@edges',
    reason:
      'DTSTART is always the first instance and counts toward COUNT (RFC 5545 3.8.5.3), also when the rule ' +
      "would not give it; node-ical gives only the rule's dates",
    project: ['unsynced@edges 2024-09-04T08:00:00Z 2024-09-04T09:00:00Z'],
    nodeIcal: ['unsynced@edges 2024-09-23T08:00:00Z 2024-09-23T09:00:00Z'],
  },
  {
    file: 'calendars/series-from-2015.ics',
    uid: 'counted-weekdays-from-sunday@old',
    reason:
      'the same choice, seen at the end of a COUNT: the Sunday DTSTART (outside BYDAY=MO,WE,FR) is the first of ' +
      "the 1,740 instances here, so the series ends one instance before node-ical's",
    nodeIcal: ['counted-weekdays-from-sunday@old 2026-02-13T06:30:00Z 2026-02-13T07:15:00Z'],
  },
  {
    file: 'calendars/rfc-edges.ics',
    uid: 'zero@edges',
    reason:
      'a zero-length event is named and left out when the window has no default_duration (with one it is ' +
      'recorded for that long); node-ical gives it with no length',
    nodeIcal: ['zero@edges 2024-09-20T17:00:00Z 2024-09-20T17:00:00Z'],
  },
];

const iso = (d: Date) => d.toISOString().replace('.000Z', 'Z');
const localDate = (d: Date) =>
  `${d.getFullYear()}-${String(d.getMonth() + 1).padStart(2, '0')}-${String(d.getDate()).padStart(2, '0')}`;

function byProject(text: string, from: Date, to: Date): string[] {
  const result = expandCalendar(text, { windowId: 'oracle', zone: 'UTC', from, to, allDay: true });
  expect(result.error).toBeUndefined();
  return result.occurrences.map((o) => {
    const uid = o.id.replace(/\/\d{4}-\d\d-\d\dT[\d:]+Z$/, '');
    const allDay =
      o.start.getUTCHours() === 0 && o.end.getTime() - o.start.getTime() >= 86_400_000 && isAllDay(text, uid);
    return allDay
      ? `${uid} ${iso(o.start).slice(0, 10)} ${iso(o.end).slice(0, 10)}`
      : `${uid} ${iso(o.start)} ${iso(o.end)}`;
  });
}

/** node-ical's all-day instances are local midnights of the process's zone: read back as dates. */
function byNodeIcal(text: string, from: Date, to: Date): string[] {
  const data = ical.sync.parseICS(text);
  const out: string[] = [];
  for (const component of Object.values(data)) {
    if (component?.type !== 'VEVENT') continue;
    for (const instance of ical.expandRecurringEvent(component, { from, to, expandOngoing: true })) {
      const uid = component.uid;
      const start = instance.start as Date;
      const end = instance.end as Date;
      if (end.getTime() <= from.getTime() || start.getTime() >= to.getTime()) continue;
      out.push(
        instance.isFullDay ? `${uid} ${localDate(start)} ${localDate(end)}` : `${uid} ${iso(start)} ${iso(end)}`,
      );
    }
  }
  return out;
}

function isAllDay(text: string, uid: string): boolean {
  const at = text.indexOf(`UID:${uid}`);
  const end = text.indexOf('END:VEVENT', at);
  return at >= 0 && /DTSTART;VALUE=DATE:/.test(text.slice(text.lastIndexOf('BEGIN:VEVENT', at), end));
}

describe('oracle: the project and node-ical read the same calendars alike, but for listed choices', () => {
  it.each(CALENDARS)('$file', ({ file, from, to }) => {
    const text = readFileSync(path.join(FIXTURES, file), 'utf8');
    const range: [Date, Date] = [new Date(from), new Date(to)];
    const ours = byProject(text, ...range);
    const theirs = byNodeIcal(text, ...range);
    expect(ours.length).toBeGreaterThan(0);
    const onlyOurs = ours.filter((x) => !theirs.includes(x)).sort();
    const onlyTheirs = theirs.filter((x) => !ours.includes(x)).sort();
    const choices = CHOICES.filter((c) => c.file === file);
    expect(onlyOurs).toEqual(choices.flatMap((c) => c.project ?? []).sort());
    expect(onlyTheirs).toEqual(choices.flatMap((c) => c.nodeIcal ?? []).sort());
  });

  it('every listed choice says why', () => {
    for (const choice of CHOICES) expect(choice.reason.length).toBeGreaterThan(40);
  });
});

import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Feed } from '../../../../lib/schedule/sources/feed';
import { calendarReader } from '../../../../lib/schedule/sources/readers';
import { formatLocalIso } from '../../../../lib/schedule/tz';
import { startRadicale } from '../../../support/radicale';

/**
 * A calendar served by a real CalDAV server: Debian's radicale on a free
 * loopback port, its storage in a temporary folder, no authentication (a user
 * name is still sent: CalDAV collections belong to a principal). Events are
 * written over CalDAV and read back through the feed.
 */

let radicale: ChildProcess | undefined;
let base = '';
let dir = '';
const USER = { user: 'newsroom', password: 'unused' };
const auth = `Basic ${Buffer.from(`${USER.user}:${USER.password}`).toString('base64')}`;

async function caldav(method: string, pathname: string, body?: string): Promise<number> {
  const res = await fetch(`${base}${pathname}`, {
    method,
    headers: { authorization: auth, 'content-type': 'text/calendar; charset=utf-8' },
    body,
  });
  await res.arrayBuffer();
  return res.status;
}

const vcalendar = (...lines: string[]) =>
  ['BEGIN:VCALENDAR', 'VERSION:2.0', 'PRODID:-//media-spaces//test//EN', ...lines, 'END:VCALENDAR', ''].join('\r\n');

const weekly = (moved?: string) =>
  vcalendar(
    'BEGIN:VEVENT',
    'UID:weekly@newsroom',
    'DTSTAMP:20260101T000000Z',
    'SUMMARY:REC Weekly review',
    'DTSTART;TZID=Europe/London:20260302T013000',
    'DTEND;TZID=Europe/London:20260302T023000',
    'RRULE:FREQ=WEEKLY;COUNT=6',
    'EXDATE;TZID=Europe/London:20260316T013000',
    'END:VEVENT',
    ...(moved
      ? [
          'BEGIN:VEVENT',
          'UID:weekly@newsroom',
          'DTSTAMP:20260101T000000Z',
          'RECURRENCE-ID;TZID=Europe/London:20260323T013000',
          'SUMMARY:REC Weekly review',
          `DTSTART;TZID=Europe/London:${moved}`,
          'DURATION:PT1H',
          'END:VEVENT',
        ]
      : []),
  );

const single = (uid: string, summary: string, start: string, status = 'CONFIRMED') =>
  vcalendar(
    'BEGIN:VEVENT',
    `UID:${uid}`,
    'DTSTAMP:20260101T000000Z',
    `SUMMARY:${summary}`,
    `STATUS:${status}`,
    `DTSTART:${start}`,
    'DURATION:PT30M',
    'END:VEVENT',
  );

const read = calendarReader({
  windowId: 'newsroom',
  zone: 'Europe/London',
  from: new Date('2026-03-01T00:00:00Z'),
  to: new Date('2026-05-01T00:00:00Z'),
  match: { title: '^REC ' },
});

const listing = (r: Awaited<ReturnType<Feed['refresh']>>) =>
  r.result?.occurrences.map((o) => `${formatLocalIso(o.start.getTime(), 'Europe/London')} ${o.title}`);

beforeAll(async () => {
  dir = mkdtempSync(path.join(tmpdir(), 'radicale-test-'));
  const started = await startRadicale(dir);
  radicale = started.child;
  base = started.url;
  expect(await caldav('MKCALENDAR', '/newsroom/cal/')).toBe(201);
});

afterAll(() => {
  if (radicale && radicale.exitCode === null) radicale.kill();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('a calendar on a CalDAV server (radicale), read through the feed', () => {
  it('reads what was written, follows a move and a deletion, and keeps the last good while the server is down', async () => {
    expect(await caldav('PUT', '/newsroom/cal/weekly.ics', weekly())).toBe(201);
    expect(
      await caldav('PUT', '/newsroom/cal/special.ics', single('special@newsroom', 'REC Special', '20260410T180000Z')),
    ).toBe(201);
    expect(await caldav('PUT', '/newsroom/cal/lunch.ics', single('lunch@newsroom', 'Lunch', '20260410T120000Z'))).toBe(
      201,
    );
    expect(
      await caldav(
        'PUT',
        '/newsroom/cal/dropped.ics',
        single('dropped@newsroom', 'REC Dropped', '20260411T120000Z', 'CANCELLED'),
      ),
    ).toBe(201);

    const feed = new Feed({
      location: `${base}/newsroom/cal/`,
      label: 'newsroom',
      dir: path.join(dir, 'snapshots'),
      credentials: USER,
    });
    const first = await feed.refresh(read);
    expect(first.from).toBe('fetched');
    expect(first.result?.problems).toEqual([]);
    expect(listing(first)).toEqual([
      '2026-03-02T01:30:00+00:00 REC Weekly review',
      '2026-03-09T01:30:00+00:00 REC Weekly review',
      // 16 March: EXDATE
      '2026-03-23T01:30:00+00:00 REC Weekly review',
      '2026-03-30T01:30:00+01:00 REC Weekly review', // after the change of clocks: still 01:30
      '2026-04-06T01:30:00+01:00 REC Weekly review',
      '2026-04-10T19:00:00+01:00 REC Special',
    ]);
    const before = first.result?.occurrences.find((o) => o.id === 'weekly@newsroom/2026-03-23T01:30:00Z');
    expect(before).toBeDefined();

    // the 23 March instance is moved in the calendar: the same occurrence id, a new time and revision
    expect(await caldav('PUT', '/newsroom/cal/weekly.ics', weekly('20260324T200000'))).toBe(201);
    expect(await caldav('DELETE', '/newsroom/cal/special.ics')).toBe(200);
    const second = await feed.refresh(read);
    expect(second.from).toBe('fetched');
    const moved = second.result?.occurrences.find((o) => o.id === before?.id);
    expect(moved && formatLocalIso(moved.start.getTime(), 'Europe/London')).toBe('2026-03-24T20:00:00+00:00');
    expect(moved?.revision).not.toBe(before?.revision);
    expect(listing(second)).not.toContain('2026-04-10T19:00:00+01:00 REC Special');

    // the server goes away: the last good calendar is still read, and the state says why it is stale
    radicale?.kill();
    await new Promise((resolve) => radicale?.once('exit', resolve));
    const down = await feed.refresh(read);
    expect(down.from).toBe('snapshot');
    expect(listing(down)).toEqual(listing(second));
    expect(down.state).toMatchObject({ ok: false, lastError: 'the feed server refused the connection' });
    expect(down.state.staleSince).toBeInstanceOf(Date);
  });
});

import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { FeedTestAnswer } from '../../../lib/schedule/sources/feed-test';
import { formatLocalIso } from '../../../lib/schedule/tz';
import { nodeModule } from '../../support/node-modules';
import { helper, initRuntime } from '../../support/node-red-runtime';
import { caldav, startRadicale, vcalendar } from '../../support/radicale';

/**
 * The window form's "Test feed" route in a real Node-RED runtime (dist/,
 * `npm run build` first), against a calendar file and against a real CalDAV
 * server (Debian's radicale, asking for a password) whose address and
 * password are the deployed schedule node's `feeds` credential.
 */

const scheduleNode = nodeModule('media-spaces-schedule');
const TAB = { id: 'tab', type: 'tab', label: 'feeds' };
const HOUR = 3600_000;
const USER = { user: 'newsroom', password: 'radicale-pw-5e1b' };

let dir = '';
let radicale: ChildProcess | undefined;
let base = '';
/** tomorrow 00:00 UTC: events are placed from there, so that they are all ahead */
const day = Math.ceil(Date.now() / (24 * HOUR)) * 24 * HOUR + 24 * HOUR;

const stamp = (ms: number) =>
  new Date(ms)
    .toISOString()
    .replace(/[-:]/g, '')
    .replace(/\.\d{3}/, '');
const event = (uid: string, summary: string, startH: number, endH: number) => [
  'BEGIN:VEVENT',
  `UID:${uid}`,
  'DTSTAMP:20260101T000000Z',
  `SUMMARY:${summary}`,
  `DTSTART:${stamp(day + startH * HOUR)}`,
  `DTEND:${stamp(day + endH * HOUR)}`,
  'END:VEVENT',
];

beforeAll(async () => {
  initRuntime();
  dir = mkdtempSync(path.join(tmpdir(), 'test-feed-route-'));
  writeFileSync(
    path.join(dir, 'studio.ics'),
    vcalendar(
      ...event('a@studio', 'REC Morning show', 10, 11),
      ...event('b@studio', 'REC Interview', 10.5, 11.5),
      ...event('c@studio', 'Lunch', 12, 13),
      ...event('d@studio', 'REC Evening news', 18, 19),
    ),
  );
  const tv = (h: number) =>
    stamp(day + h * HOUR)
      .replace('T', '')
      .replace('Z', ' +0000');
  const programme = (channel: string, startH: number, stopH: number, title: string, episode: string) =>
    `<programme start="${tv(startH)}" stop="${tv(stopH)}" channel="${channel}"><title>${title}</title>` +
    `<episode-num system="onscreen">${episode}</episode-num></programme>`;
  writeFileSync(
    path.join(dir, 'guide.xml'),
    [
      '<?xml version="1.0" encoding="UTF-8"?>',
      '<tv><channel id="bbc1.uk"><display-name>BBC One</display-name></channel>',
      '<channel id="bbc2.uk"><display-name>BBC Two</display-name></channel>',
      programme('bbc1.uk', 18, 19, 'Doctor Who', 'S15E01'),
      programme('bbc1.uk', 19, 20, 'Doctor Who', 'S15E02'),
      programme('bbc2.uk', 18, 19, 'Doctor Who', 'S15E01'),
      programme('bbc1.uk', 20, 21, 'The News', 'N1'),
      '</tv>',
    ].join('\n'),
  );
  const started = await startRadicale(dir, { [USER.user]: USER.password });
  radicale = started.child;
  base = started.url;
  expect(await caldav(base, USER, 'MKCALENDAR', '/newsroom/private-cal-7d2f/')).toBe(201);
  expect(
    await caldav(
      base,
      USER,
      'PUT',
      '/newsroom/private-cal-7d2f/late.ics',
      vcalendar(...event('late@newsroom', 'REC Late edition', 22, 23)),
    ),
  ).toBe(201);
}, 30_000);

afterAll(() => {
  if (radicale && radicale.exitCode === null) radicale.kill();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

afterEach(async () => {
  await helper.unload();
});

const testFeed = (body: unknown) => helper.request().post('/media-spaces/schedule/test-feed').send(body);

describe('POST /media-spaces/schedule/test-feed', () => {
  it('lists a calendar file’s matching events with padded times in the window’s zone, and the conflicts', async () => {
    await helper.load([scheduleNode], [TAB]);
    const window = {
      id: 'studio',
      ical: path.join(dir, 'studio.ics'),
      timezone: 'America/New_York',
      match: { title: '^REC ' },
      padding: { before: '2m', after: '5m' },
    };
    const res = await testFeed({ window, max_channels: 1 });
    expect(res.status).toBe(200);
    const answer = res.body as FeedTestAnswer;
    const zone = 'America/New_York';
    expect(answer).toMatchObject({ ok: true, window: 'studio', timezone: zone, kind: 'ical', more: 0, problems: [] });
    expect(answer.occurrences.map((o) => o.title)).toEqual(['REC Morning show', 'REC Interview', 'REC Evening news']);
    expect(answer.occurrences[0]).toEqual({
      id: expect.stringContaining('a@studio'),
      title: 'REC Morning show',
      start: formatLocalIso(day + 10 * HOUR, zone),
      end: formatLocalIso(day + 11 * HOUR, zone),
      padded_start: formatLocalIso(day + 10 * HOUR - 2 * 60_000, zone),
      padded_end: formatLocalIso(day + 11 * HOUR + 5 * 60_000, zone),
    });
    expect(answer.occurrences[0].start).toMatch(/-0[45]:00$/);
    expect(answer.conflicts).toEqual([
      expect.objectContaining({ title: 'REC Interview', concurrent: 2, limit: 1, with: [answer.occurrences[0].id] }),
    ]);
  });

  it('lists a guide’s matching programmes, back-to-back ones each with its full padding, and their live source', async () => {
    await helper.load([scheduleNode], [TAB]);
    const window = {
      id: 'doctor-who',
      xmltv: path.join(dir, 'guide.xml'),
      match: { channel: 'bbc1.uk', title: '^Doctor Who$' },
      padding: { before: '1m', after: '10m' },
      sources: { 'bbc1.uk': 'live-source-1' },
    };
    const res = await testFeed({ window, timezone: 'Europe/London', max_channels: 1 });
    const answer = res.body as FeedTestAnswer;
    expect(answer).toMatchObject({ ok: true, kind: 'xmltv', timezone: 'Europe/London' });
    expect(answer.occurrences.map((o) => [o.title, o.channel, o.source_id])).toEqual([
      ['Doctor Who', 'bbc1.uk', 'live-source-1'],
      ['Doctor Who', 'bbc1.uk', 'live-source-1'],
    ]);
    const [first, second] = answer.occurrences;
    expect(first.padded_end).toBe(formatLocalIso(day + 19 * HOUR + 10 * 60_000, 'Europe/London'));
    expect(second.padded_start).toBe(formatLocalIso(day + 19 * HOUR - 60_000, 'Europe/London'));
    // the padded times overlap: with one channel the second programme is over the limit, and named
    expect(answer.conflicts).toEqual([
      expect.objectContaining({ id: second.id, concurrent: 2, limit: 1, with: [first.id] }),
    ]);
  });

  it('answers any body with a status and a sentence, never a 500', async () => {
    await helper.load([scheduleNode], [TAB]);
    const ics = path.join(dir, 'studio.ics');
    const bodies: unknown[] = [
      [],
      { window: 'studio' },
      { window: { id: 5, ical: 7 } },
      { window: { id: 'a', ical: 'ftp://example.com/a.ics' } },
      { window: { id: 'a', ical: dir } },
      { window: { id: 'a', ical: 'private' }, node: 'no-such-node' },
      { window: { id: 'a', ical: 'http://127.0.0.1:1/a.ics' } },
      { window: { id: 'a', ical: ics, padding: 'lots' } },
      { window: { id: 'a', ical: ics, cron: '0 * * * *' } },
      { window: { id: 'a', ical: ics }, secret: 'not an object', max_channels: -1 },
      { window: { id: 'a', ical: ics, timezone: 'Mars/Olympus' } },
      { window: { id: 'a', xmltv: ics } },
    ];
    for (const body of bodies) {
      const res = await testFeed(body);
      expect([200, 400], JSON.stringify(body)).toContain(res.status);
      const answer = res.body as { ok: boolean; error?: string; issues?: unknown[] };
      if (!answer.ok) expect(answer.error ?? answer.issues, JSON.stringify(body)).toBeTruthy();
    }
  });

  it('says why a feed cannot be read, and what is wrong with a window, in sentences', async () => {
    await helper.load([scheduleNode], [TAB]);
    const missing = await testFeed({ window: { id: 'gone', ical: path.join(dir, 'nothing-here.ics') } });
    expect(missing.body).toMatchObject({ ok: false, error: 'The feed cannot be read: the feed file does not exist.' });
    const bad = await testFeed({ window: { id: 'bad', ical: path.join(dir, 'studio.ics'), match: { title: '(' } } });
    expect(bad.body).toMatchObject({ ok: false, issues: [{ path: 'match.title' }] });
    const messages = await testFeed({ window: { id: 'm', messages: true } });
    expect(messages.status).toBe(400);
    expect((messages.body as { error: string }).error).toMatch(
      /no feed: its occurrences come from msg.topic "windows" messages/,
    );
    expect((await testFeed({})).status).toBe(400);
  });

  it('tests the deployed node’s private CalDAV address with its stored password, never sending either back', async () => {
    const secretUrl = `${base}/newsroom/private-cal-7d2f/`;
    const window = { id: 'late', ical: 'private', match: { title: '^REC ' }, padding: { before: '1m', after: '1m' } };
    await helper.load(
      [scheduleNode],
      [
        TAB,
        {
          id: 'sched',
          type: 'media-spaces-schedule',
          z: 'tab',
          source: 'editor',
          windows: [window],
          wires: [[], [], []],
        },
      ],
      { sched: { feeds: JSON.stringify({ late: { location: secretUrl, ...USER } }) } },
    );
    const res = await testFeed({ node: 'sched', window, timezone: 'UTC' });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ ok: true, occurrences: [{ title: 'REC Late edition' }] });
    expect(res.text).not.toContain('private-cal-7d2f');
    expect(res.text).not.toContain(USER.password);
    // without the stored secret (no node named) the private address is unknown, and the answer says so
    const alone = await testFeed({ window, timezone: 'UTC' });
    expect((alone.body as { error: string }).error).toMatch(
      /^Window "late" reads a private feed address, but the schedule node has none stored/,
    );
    // the stored password goes only to the deployed address: a typed address gets none, and radicale refuses
    const elsewhere = await testFeed({ node: 'sched', window: { ...window, ical: secretUrl } });
    expect(elsewhere.body).toMatchObject({ ok: false, error: 'The feed cannot be read: HTTP 401.' });
    // typed credentials go with the typed address
    const typed = await testFeed({ node: 'sched', window: { ...window, ical: secretUrl }, secret: USER });
    expect(typed.body).toMatchObject({ ok: true, occurrences: [{ title: 'REC Late edition' }] });
  });
});

import { getEventListeners } from 'node:events';
import { mkdtempSync, readdirSync, readFileSync, renameSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Feed, type FeedOptions } from '../../../../lib/schedule/sources/feed';
import { calendarReader, guideReader } from '../../../../lib/schedule/sources/readers';
import { type Stub, startStub } from '../../../support/stub-server';

const FIXTURES = path.join(__dirname, '../../../fixtures/feeds');

const ics = (...summaries: string[]) =>
  [
    'BEGIN:VCALENDAR',
    'VERSION:2.0',
    'PRODID:-//media-spaces//test//EN',
    ...summaries.flatMap((s, i) => [
      'BEGIN:VEVENT',
      `UID:e${i}`,
      'DTSTAMP:20260101T000000Z',
      `SUMMARY:${s}`,
      `DTSTART:2026060${i + 1}T090000Z`,
      'DURATION:PT1H',
      'END:VEVENT',
    ]),
    'END:VCALENDAR',
    '',
  ].join('\r\n');

const read = calendarReader({
  windowId: 'w',
  zone: 'UTC',
  from: new Date('2026-06-01T00:00:00Z'),
  to: new Date('2026-07-01T00:00:00Z'),
});
const titles = (r: { result?: { occurrences: Array<{ title?: string }> } }) =>
  r.result?.occurrences.map((o) => o.title);

let dir: string;
let stub: Stub;
let body: string | Buffer;
let headers: Record<string, string>;
let status: number;

beforeEach(async () => {
  dir = mkdtempSync(path.join(tmpdir(), 'feed-test-'));
  body = ics('A', 'B', 'C');
  headers = { 'content-type': 'text/calendar', etag: '"v1"', 'last-modified': 'Mon, 01 Jun 2026 08:00:00 GMT' };
  status = 200;
  stub = await startStub((req, res) => {
    if (headers.etag !== undefined && req.headers['if-none-match'] === headers.etag) {
      res.writeHead(304).end();
      return;
    }
    res.writeHead(status, headers).end(body);
  });
});

afterEach(async () => {
  await stub.close().catch(() => undefined);
  rmSync(dir, { recursive: true, force: true });
});

const feed = (extra: Partial<FeedOptions> = {}) =>
  new Feed({ location: `${stub.url}/cal/private-s3cr3t/basic.ics`, label: 'newsroom', dir, ...extra });

describe('Feed over HTTP', () => {
  it('fetches, then asks with If-None-Match / If-Modified-Since and reads the snapshot on 304', async () => {
    const f = feed();
    const first = await f.refresh(read);
    expect(first.from).toBe('fetched');
    expect(titles(first)).toEqual(['A', 'B', 'C']);
    expect(first.state).toMatchObject({ ok: true });
    const second = await f.refresh(read);
    expect(second.from).toBe('not-modified');
    expect(titles(second)).toEqual(['A', 'B', 'C']);
    expect(stub.requests[1].headers['if-none-match']).toBe('"v1"');
    expect(stub.requests[1].headers['if-modified-since']).toBe('Mon, 01 Jun 2026 08:00:00 GMT');
    expect(stub.requests[0].headers['if-none-match']).toBeUndefined();
  });

  it('reads a gzip Content-Encoding and a body that is gzip by its bytes', async () => {
    body = gzipSync(ics('Zipped'));
    headers = { 'content-encoding': 'gzip' };
    expect(titles(await feed().refresh(read))).toEqual(['Zipped']);
    headers = { 'content-type': 'application/gzip' };
    expect(titles(await feed({ location: `${stub.url}/other.ics.gz` }).refresh(read))).toEqual(['Zipped']);
  });

  it('sends basic or bearer credentials, and no message carries them or the address', async () => {
    await feed({ credentials: { user: 'ed', password: 'pa55word' } }).refresh(read);
    expect(stub.requests[0].headers.authorization).toBe(`Basic ${Buffer.from('ed:pa55word').toString('base64')}`);
    status = 401;
    headers = {};
    const denied = await feed({ credentials: { token: 'tok-123' }, dir: path.join(dir, 'other') }).refresh(read);
    expect(stub.requests[1].headers.authorization).toBe('Bearer tok-123');
    expect(denied).toMatchObject({ from: 'none', state: { ok: false, lastError: 'HTTP 401' } });
    const said =
      JSON.stringify(denied) + readFileSync(path.join(dir, 'other', readdir(path.join(dir, 'other'))[0]), 'utf8');
    for (const secret of ['pa55word', 'tok-123', 's3cr3t', '127.0.0.1']) expect(said).not.toContain(secret);
  });

  it('an outage reads the last good snapshot, stale since the first failure, until a good fetch', async () => {
    const f = feed();
    await f.refresh(read);
    status = 503;
    headers = {};
    const down = await f.refresh(read);
    expect(down.from).toBe('snapshot');
    expect(titles(down)).toEqual(['A', 'B', 'C']);
    expect(down.state).toMatchObject({ ok: false, lastError: 'HTTP 503' });
    const since = down.state.staleSince;
    expect(since).toBeInstanceOf(Date);
    const still = await f.refresh(read);
    expect(still.state.staleSince).toEqual(since);
    status = 200;
    headers = { etag: '"v2"' };
    body = ics('A', 'B', 'C', 'D');
    const back = await f.refresh(read);
    expect(back.from).toBe('fetched');
    expect(titles(back)).toEqual(['A', 'B', 'C', 'D']);
    expect(back.state.ok).toBe(true);
    expect(back.state.staleSince).toBeUndefined();
  });

  it('a restart with the server gone still reads the snapshot kept on disk, and says why it is stale', async () => {
    await feed().refresh(read);
    await stub.close();
    const restarted = feed();
    expect(titles(await restarted.readSnapshot(read))).toEqual(['A', 'B', 'C']);
    const down = await restarted.refresh(read);
    expect(down.from).toBe('snapshot');
    expect(titles(down)).toEqual(['A', 'B', 'C']);
    expect(down.state).toMatchObject({ ok: false, lastError: 'the feed server refused the connection' });
  });

  it('an HTML page in place of the calendar is broken, not empty: the snapshot stays', async () => {
    const f = feed();
    await f.refresh(read);
    headers = { 'content-type': 'text/html' };
    body = '<!DOCTYPE html><html><body>Please sign in</body></html>';
    const broken = await f.refresh(read);
    expect(broken.from).toBe('snapshot');
    expect(titles(broken)).toEqual(['A', 'B', 'C']);
    expect(broken.state.lastError).toMatch(/^The feed is an HTML or XML page, not an iCalendar feed/);
  });

  it('a feed that suddenly reads to nothing is suspicious unless the window allows empty', async () => {
    await feed().refresh(read);
    headers = { etag: '"empty"' };
    body = ics();
    const suspicious = await feed().refresh(read);
    expect(suspicious.from).toBe('snapshot');
    expect(titles(suspicious)).toEqual(['A', 'B', 'C']);
    expect(suspicious.state.lastError).toBe(
      'the feed reads to no occurrences where the last good one had 3; it is taken as broken',
    );
    const allowed = await feed({ allowEmpty: true }).refresh(read);
    expect(allowed.from).toBe('fetched');
    expect(titles(allowed)).toEqual([]);
  });

  it('a body over the size cap is refused', async () => {
    body = ics(...Array.from({ length: 40 }, (_, i) => `Event ${i}`));
    const r = await feed({ maxBytes: 2048 }).refresh(read);
    expect(r).toMatchObject({ from: 'none', state: { ok: false, lastError: 'the feed is larger than 2 KB' } });
  });

  it('a server that does not answer in time', async () => {
    stub.handle(() => undefined);
    const r = await feed({ timeoutMs: 300 }).refresh(read);
    expect(r.state.lastError).toBe('the feed did not answer in time');
  });

  it('two windows on one address keep snapshots of their own, refreshed side by side', async () => {
    const a = feed({ label: 'a' });
    const b = feed({ label: 'b' });
    const [ra, rb] = await Promise.all([a.refresh(read), b.refresh(read)]);
    expect([ra.from, rb.from]).toEqual(['fetched', 'fetched']);
    status = 503;
    headers = {};
    expect(titles(await a.refresh(read))).toEqual(['A', 'B', 'C']);
    expect(titles(await b.refresh(read))).toEqual(['A', 'B', 'C']);
    expect(readdirSync(dir).filter((f) => f.endsWith('.body'))).toHaveLength(2);
  });

  it('validators are not sent for a body another reader renamed in: the feed is fetched whole', async () => {
    const f = feed();
    expect(titles(await f.refresh(read))).toEqual(['A', 'B', 'C']);
    const [bodyFile] = readdirSync(dir).filter((n) => n.endsWith('.body'));
    const late = path.join(dir, 'late.part');
    writeFileSync(late, ics('Old'));
    renameSync(late, path.join(dir, bodyFile));
    const again = await f.refresh(read);
    expect([again.from, titles(again)]).toEqual(['fetched', ['A', 'B', 'C']]);
    expect(stub.requests.at(-1)?.headers['if-none-match']).toBeUndefined();
    expect((await f.refresh(read)).from).toBe('not-modified');
  });

  it('a refresh stopped mid-fetch (its schedule closed) says nothing of the feed: the kept copy and its record stay', async () => {
    const stop = new AbortController();
    const f = feed({ signal: stop.signal });
    expect(titles(await f.refresh(read))).toEqual(['A', 'B', 'C']);
    for (let i = 0; i < 5; i++) await f.refresh(read);
    // the window's signal lives as long as the window: each fetch took its listener off again
    expect(getEventListeners(stop.signal, 'abort')).toHaveLength(0);
    const record = () => readFileSync(path.join(dir, readdir(dir)[0]), 'utf8');
    const before = record();
    stub.handle(async (_req, res) => {
      await new Promise((r) => setTimeout(r, 5_000));
      res.writeHead(200, headers).end(ics('Never'));
    });
    const refreshing = f.refresh(read);
    await new Promise((r) => setTimeout(r, 200));
    const at = Date.now();
    stop.abort();
    const stopped = await refreshing;
    expect(Date.now() - at).toBeLessThan(2_000);
    expect(stopped).toMatchObject({ from: 'none', state: { ok: true } });
    expect(record()).toBe(before);
    expect(readdirSync(dir).filter((n) => n.endsWith('.part'))).toEqual([]);
  });

  it('one refresh at a time: a second call while one runs gets the same read', async () => {
    const f = feed();
    const [a, b] = await Promise.all([f.refresh(read), f.refresh(read)]);
    expect(a).toBe(b);
    expect(stub.requests).toHaveLength(1);
  });
});

describe('Feed from a file', () => {
  it('reads a file, then not-modified while it is unchanged, and the snapshot when it is gone', async () => {
    const file = path.join(dir, 'newsroom.ics');
    writeFileSync(file, ics('From file'));
    const f = new Feed({ location: file, label: 'newsroom', dir: path.join(dir, 'snap') });
    expect((await f.refresh(read)).from).toBe('fetched');
    expect((await f.refresh(read)).from).toBe('not-modified');
    writeFileSync(file, ics('Changed', 'Too'));
    utimesSync(file, new Date(), new Date(Date.now() + 5000));
    expect(titles(await f.refresh(read))).toEqual(['Changed', 'Too']);
    rmSync(file);
    const gone = await f.refresh(read);
    expect(gone).toMatchObject({ from: 'snapshot', state: { ok: false, lastError: 'the feed file does not exist' } });
    expect(titles(gone)).toEqual(['Changed', 'Too']);
  });

  it('two readers of one window at once (a redeploy while a refresh runs) each read the whole file, 50 times over', async () => {
    const file = path.join(dir, 'desk.ics');
    const events = Array.from({ length: 400 }, (_, i) => `Event ${i}`);
    writeFileSync(file, ics(...events));
    for (let round = 0; round < 50; round++) {
      // a new file each round, so that neither reader takes its snapshot as unchanged
      utimesSync(file, new Date(), new Date(Date.now() + round * 1000));
      const snap = path.join(dir, `snap-${round}`);
      const readers = [0, 1].map(() => new Feed({ location: file, label: 'desk', dir: snap }));
      const reads = await Promise.all(readers.map((f) => f.refresh(read)));
      for (const r of reads) {
        expect(r.state, `round ${round}: ${r.state.lastError}`).toMatchObject({ ok: true });
        expect(r.result?.occurrences, `round ${round}`).toHaveLength(9);
      }
      expect(readdirSync(snap).sort(), `round ${round}: no part or temporary file is left`).toEqual([
        expect.stringMatching(/^feed-[0-9a-f]{20}\.body$/),
        expect.stringMatching(/^feed-[0-9a-f]{20}\.json$/),
      ]);
    }
  });

  it('a body another reader renamed in after this one read is never taken as unchanged: read again whole', async () => {
    const file = path.join(dir, 'desk.ics');
    const snap = path.join(dir, 'snap');
    writeFileSync(file, ics('New', 'Newer'));
    const f = new Feed({ location: file, label: 'desk', dir: snap });
    expect(titles(await f.refresh(read))).toEqual(['New', 'Newer']);
    // the old node's slower read of the file as it was, renamed in last (a redeploy mid-refresh)
    const [body] = readdirSync(snap).filter((n) => n.endsWith('.body'));
    const late = path.join(snap, 'late.part');
    writeFileSync(late, ics('Old'));
    renameSync(late, path.join(snap, body));
    const again = await f.refresh(read);
    expect([again.from, titles(again)]).toEqual(['fetched', ['New', 'Newer']]);
    expect((await f.refresh(read)).from).toBe('not-modified');
  });

  it('a file in progress left by a killed reader is removed once it is an hour old, and a fresh one is left', async () => {
    const file = path.join(dir, 'desk.ics');
    writeFileSync(file, ics('A'));
    const snap = path.join(dir, 'snap');
    await new Feed({ location: file, label: 'desk', dir: snap }).refresh(read);
    const [body] = readdirSync(snap).filter((f) => f.endsWith('.body'));
    const base = body.replace(/\.body$/, '');
    const old = [`${base}.0123456789ab.part`, `${base}.0123456789ab.json.tmp`];
    const fresh = `${base}.ba9876543210.part`;
    const elsewhere = 'notes.part';
    for (const name of [...old, fresh, elsewhere]) writeFileSync(path.join(snap, name), 'half');
    const hoursAgo = new Date(Date.now() - 3 * 3600_000);
    for (const name of [...old, elsewhere]) utimesSync(path.join(snap, name), hoursAgo, hoursAgo);
    await new Feed({ location: file, label: 'desk', dir: snap }).refresh(read);
    expect(readdirSync(snap).sort()).toEqual([body, fresh, `${base}.json`, elsewhere].sort());
  });

  it('reads a gzip XMLTV guide file through the guide reader', async () => {
    const file = path.join(dir, 'guide.xml.gz');
    writeFileSync(file, gzipSync(readFileSync(path.join(FIXTURES, 'guide.xml'))));
    const r = await new Feed({ location: `file://${file}`, label: 'epg', dir }).refresh(
      guideReader({
        windowId: 'epg',
        zone: 'Europe/London',
        from: new Date('2026-10-01T00:00:00Z'),
        to: new Date('2026-10-15T00:00:00Z'),
        match: { title: '^Doctor Who$', duplicates: 'once' },
      }),
    );
    expect(r.from).toBe('fetched');
    // the first showing of each episode: 14.1.0/1 was first shown on the 4th (S15E02 is its repeat)
    expect(r.result?.occurrences.map((o) => [o.start.toISOString(), o.details?.episode])).toEqual([
      ['2026-10-03T16:00:00.000Z', 'S15E01'],
      ['2026-10-04T16:00:00.000Z', 'S15E02'],
    ]);
  });
});

function readdir(folder: string): string[] {
  return readdirSync(folder).filter((f) => f.endsWith('.json'));
}

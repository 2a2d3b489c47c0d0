import { lookup as dnsLookup } from 'node:dns';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Agent } from 'undici';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Feed, type FeedOptions } from '../../../../lib/schedule/sources/feed';
import {
  addressKind,
  INTERNAL_ADDRESS_CODE,
  nameKind,
  publicOnlyLookup,
  resolveAddressKind,
} from '../../../../lib/schedule/sources/feed-address';
import { calendarReader } from '../../../../lib/schedule/sources/readers';
import { type Stub, startStub } from '../../../support/stub-server';

/**
 * Redirects never reach inside: a feed configured at a public address is not
 * followed to another origin at a loopback, private, link-local, CGNAT,
 * unspecified or metadata address; credentials never cross origins.
 *
 * "Public" on a test machine: the feed is configured at calendar.public.test,
 * which the test's address check calls public and the test's agent connects
 * to the loopback stub; every other host is checked by the real rule.
 */

const ics = [
  'BEGIN:VCALENDAR',
  'VERSION:2.0',
  'PRODID:-//media-spaces//test//EN',
  'BEGIN:VEVENT',
  'UID:e1',
  'DTSTAMP:20260101T000000Z',
  'SUMMARY:Public',
  'DTSTART:20260601T090000Z',
  'DURATION:PT1H',
  'END:VEVENT',
  'END:VCALENDAR',
  '',
].join('\r\n');

const read = calendarReader({
  windowId: 'w',
  zone: 'UTC',
  from: new Date('2026-06-01T00:00:00Z'),
  to: new Date('2026-07-01T00:00:00Z'),
});

const PUBLIC_NAMES = new Set(['calendar.public.test', 'cdn.public.test']);
/** *.public.test connect to loopback, whatever the URL says */
const testAgent = new Agent({
  connect: {
    lookup: ((host: string, opts: { all?: boolean }, cb: (...args: unknown[]) => void) =>
      host.endsWith('.public.test')
        ? opts.all
          ? cb(null, [{ address: '127.0.0.1', family: 4 }])
          : cb(null, '127.0.0.1', 4)
        : dnsLookup(host, opts as never, cb as never)) as never,
  },
});
const addressCheck = (host: string) => (PUBLIC_NAMES.has(host) ? Promise.resolve(undefined) : resolveAddressKind(host));

let dir: string;
let site: Stub;
let inside: Stub;
let redirectTo: string;

beforeEach(async () => {
  dir = mkdtempSync(path.join(tmpdir(), 'feed-redirect-'));
  inside = await startStub((_req, res) => {
    res.writeHead(200, { 'content-type': 'text/plain' }).end('INTERNAL-ONLY: db_password=secret\n');
  });
  site = await startStub((req, res) => {
    if (req.url === '/cal.ics') res.writeHead(302, { location: redirectTo }).end();
    else res.writeHead(200, { 'content-type': 'text/calendar' }).end(ics);
  });
});

afterEach(async () => {
  await site.close().catch(() => undefined);
  await inside.close().catch(() => undefined);
  rmSync(dir, { recursive: true, force: true });
});

const port = (stub: Stub) => new URL(stub.url).port;
const publicFeed = (extra: Partial<FeedOptions> = {}) =>
  new Feed({
    location: `http://calendar.public.test:${port(site)}/cal.ics`,
    label: 'newsroom',
    dir,
    dispatcher: testAgent,
    addressCheck,
    credentials: { user: 'ed', password: 'pa55word' },
    ...extra,
  });

describe('a redirect from a public address to an internal one is refused', () => {
  it.each([
    ['loopback 127.0.0.1', () => `${inside.url}/secret`, 'a loopback address'],
    ['loopback by name', () => `http://localhost:${port(inside)}/secret`, 'a loopback address'],
    ['IPv4-mapped loopback', () => `http://[::ffff:127.0.0.1]:${port(inside)}/secret`, 'a loopback address'],
    ['private 10.x', () => 'http://10.20.30.40/secret', 'a private address'],
    ['private 192.168.x', () => 'http://192.168.1.1/secret', 'a private address'],
    ['cloud metadata 169.254.169.254', () => 'http://169.254.169.254/latest/meta-data/', 'a cloud metadata address'],
    ['cloud metadata by name', () => 'http://metadata.google.internal/computeMetadata/v1/', 'a cloud metadata address'],
    ['AWS IPv6 metadata', () => 'http://[fd00:ec2::254]/latest/meta-data/', 'a cloud metadata address'],
  ])('%s: not followed, and the error names the redirect', async (_name, target, kind) => {
    redirectTo = target();
    const r = await publicFeed().refresh(read);
    expect(r.from).toBe('none');
    expect(r.state.lastError).toBe(
      `the feed's address redirects (HTTP 302) to another origin at ${kind}; a feed at a public address is not redirected inside, and the redirect is not followed`,
    );
    expect(inside.requests).toEqual([]);
    expect(JSON.stringify(r)).not.toContain('INTERNAL-ONLY');
  });

  it('a public address redirected to another public origin is followed, without the credentials', async () => {
    redirectTo = `http://cdn.public.test:${port(site)}/moved.ics`;
    const r = await publicFeed().refresh(read);
    expect(r.result?.occurrences.map((o) => o.title)).toEqual(['Public']);
    expect(site.requests.map((q) => [q.headers.host, q.url, q.headers.authorization !== undefined])).toEqual([
      [`calendar.public.test:${port(site)}`, '/cal.ics', true],
      [`cdn.public.test:${port(site)}`, '/moved.ics', false],
    ]);
  });

  it('a feed configured at an internal address follows its redirects, as its operator chose; credentials stay behind', async () => {
    redirectTo = `${inside.url}/secret`;
    const r = await new Feed({
      location: `${site.url}/cal.ics`,
      label: 'newsroom',
      dir,
      credentials: { token: 'tok-123' },
    }).refresh(read);
    expect(inside.requests).toHaveLength(1);
    expect(inside.requests[0].headers.authorization).toBeUndefined();
    expect(site.requests[0].headers.authorization).toBe('Bearer tok-123');
    // what the internal server said is not an iCalendar feed, and no byte of it is quoted
    expect(r.state.lastError).toMatch(/not an iCalendar feed/);
    expect(JSON.stringify(r)).not.toMatch(/INTERNAL|db_password|secret/);
  });

  it('more than 5 redirects, and a redirect to another scheme, are errors', async () => {
    site.handle((req, res) => {
      const n = Number(req.url.slice(1)) || 0;
      res.writeHead(301, { location: `/${n + 1}` }).end();
    });
    const loop = await publicFeed().refresh(read);
    expect(loop.state.lastError).toBe("the feed's address redirects (HTTP 301) more than 5 times");
    expect(site.requests).toHaveLength(6);
    redirectTo = 'file:///etc/passwd';
    site.handle((_req, res) => {
      res.writeHead(307, { location: redirectTo }).end();
    });
    const file = await publicFeed({ dir: path.join(dir, 'b') }).refresh(read);
    expect(file.state.lastError).toBe(
      "the feed's address redirects (HTTP 307) to a file address, which is not followed",
    );
  });
});

describe('where an address leads', () => {
  it.each([
    ['127.0.0.1', 'a loopback address'],
    ['127.255.0.9', 'a loopback address'],
    ['::1', 'a loopback address'],
    ['[::1]', 'a loopback address'],
    ['::ffff:7f00:1', 'a loopback address'],
    ['64:ff9b::a00:1', 'a private address'],
    ['10.0.0.1', 'a private address'],
    ['172.16.0.1', 'a private address'],
    ['172.31.255.255', 'a private address'],
    ['192.168.0.10', 'a private address'],
    ['fc00::1', 'a private address'],
    ['fd12:3456::1', 'a private address'],
    ['169.254.10.1', 'a link-local address'],
    ['fe80::1%eth0', 'a link-local address'],
    ['100.64.0.1', 'a shared (CGNAT) address'],
    ['100.127.255.254', 'a shared (CGNAT) address'],
    ['0.0.0.0', 'an unspecified address'],
    ['::', 'an unspecified address'],
    ['169.254.169.254', 'a cloud metadata address'],
    ['fd00:ec2::254', 'a cloud metadata address'],
  ])('%s is %s', (address, kind) => {
    expect(addressKind(address)).toBe(kind);
  });

  it.each(['93.184.216.34', '172.32.0.1', '100.128.0.1', '2606:4700::1111', '8.8.8.8'])('%s is public', (address) => {
    expect(addressKind(address)).toBeUndefined();
  });

  it('names: localhost and its subdomains, the metadata service; others by every address they resolve to', async () => {
    expect(nameKind('LocalHost.')).toBe('a loopback address');
    expect(nameKind('tv.localhost')).toBe('a loopback address');
    expect(nameKind('metadata.google.internal')).toBe('a cloud metadata address');
    const resolvesTo =
      (...addresses: string[]) =>
      () =>
        Promise.resolve(addresses.map((address) => ({ address, family: address.includes(':') ? 6 : 4 })));
    expect(await resolveAddressKind('feeds.example', resolvesTo('93.184.216.34'))).toBeUndefined();
    // one internal address among public ones is enough (a name that rebinds)
    expect(await resolveAddressKind('feeds.example', resolvesTo('93.184.216.34', '10.1.1.1'))).toBe(
      'a private address',
    );
    expect(await resolveAddressKind('feeds.example', resolvesTo('fe80::2'))).toBe('a link-local address');
    expect(await resolveAddressKind('nowhere.invalid', () => Promise.reject(new Error('ENOTFOUND')))).toBeUndefined();
  });

  it('a name checked as public that resolves inside when connecting (DNS rebinding) is refused at the connection', async () => {
    const r = await new Feed({
      location: `http://localhost:${port(site)}/other.ics`,
      label: 'newsroom',
      dir,
      // the check said public; the default agent of a public feed resolves again when it connects
      addressCheck: () => Promise.resolve(undefined),
    }).refresh(read);
    expect(r.state.lastError).toBe(
      'the feed server name resolves to an internal address, which a feed at a public address does not reach',
    );
    expect(site.requests).toEqual([]);
  });

  it("a public feed's agent does not connect where a name resolves inside", async () => {
    const error = await new Promise<NodeJS.ErrnoException | null>((resolve) =>
      publicOnlyLookup('localhost', { all: true }, (e) => resolve(e)),
    );
    expect(error?.code).toBe(INTERNAL_ADDRESS_CODE);
  });
});

import { createHash, randomBytes } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import { mkdir, readdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { type Readable, Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { fileURLToPath } from 'node:url';
import { createBrotliDecompress, createGunzip, createInflate } from 'node:zlib';
import type { Dispatcher } from 'undici';
import { type AddressCheck, INTERNAL_ADDRESS_CODE, publicOnlyLookup, resolveAddressKind } from './feed-address';
import type { SourceResult } from './occurrence';

/** A feed's user and password (HTTP basic) or bearer token: sent in the Authorization header, nowhere else. */
export type FeedCredentials = { user: string; password: string } | { token: string };

export interface FeedOptions {
  /** an http(s) or webcal URL, a file: URL or a file path */
  location: string;
  /** names the feed in messages (a window id): never the address, which can itself be a secret */
  label: string;
  /** the folder where the last good snapshot is kept, so that a restart with the feed down still has it */
  dir: string;
  credentials?: FeedCredentials;
  /** bytes of body (after content decoding) read at most; default 256 MB */
  maxBytes?: number;
  /** ms for one fetch, headers and body; default 60 s */
  timeoutMs?: number;
  /** a feed that reads to no occurrences where the last good one had several is taken as broken unless this is set */
  allowEmpty?: boolean;
  /**
   * undici dispatcher to send through (default: a shared agent; for a public
   * address one that connects to public addresses only). Redirects are
   * followed by the feed itself, up to 5 (see request).
   */
  dispatcher?: Dispatcher;
  /** where a host leads, for the redirect rule (default: its name, else every address DNS gives) */
  addressCheck?: AddressCheck;
  /**
   * Aborted when the window's reader is no longer wanted (its schedule closed, a redeploy): a fetch under way
   * is cut off, and the refresh leaves the kept copy and its record as they were.
   */
  signal?: AbortSignal;
}

/** How the feed is doing: ok, or stale since the first failure after the last good read, and why. */
export interface FeedState {
  ok: boolean;
  staleSince?: Date;
  lastError?: string;
  /** when the snapshot in use was fetched */
  fetchedAt?: Date;
}

/** Reads a body (gunzipped when it is gzip: see openBody) into a source's result. */
export type FeedReader = (open: () => Readable) => Promise<SourceResult>;

export interface FeedRead {
  /** the result of the body in use: the new one, or the last good when the new one failed; none without either */
  result?: SourceResult;
  state: FeedState;
  /** fetched: a new body was read; not-modified: the server said so; snapshot: the last good body, after a failure */
  from: 'fetched' | 'not-modified' | 'snapshot' | 'none';
}

interface Meta {
  etag?: string;
  lastModified?: string;
  /** a file feed: its size and mtime when read */
  fileStamp?: string;
  /**
   * The body these validators came with, as it lies on disk (see bodyStamp): another reader of the window
   * may have renamed its own body over it since, and validators must not vouch for a body they did not see.
   */
  body?: string;
  fetchedAt?: string;
  staleSince?: string;
  lastError?: string;
}

const DEFAULT_MAX_BYTES = 256 * 1024 * 1024;
const DEFAULT_TIMEOUT_MS = 60_000;
/** A file in progress untouched this long was left by a reader that stopped: no fetch or read runs as long. */
const LEFTOVER_AFTER_MS = 3600_000;
/** The last good body read to at least this many occurrences: an empty new one is suspicious. */
const SUSPICIOUS_FROM = 2;

/** Redirects followed at the most. */
const MAX_REDIRECTS = 5;
const REDIRECT_STATUS = new Set([301, 302, 303, 307, 308]);

type Undici = typeof import('undici');
let undici: Undici | undefined;
const sharedAgents: { open?: Dispatcher; publicOnly?: Dispatcher } = {};

/** The agent of a feed at an internal address (open), or at a public one (connects to public addresses only). */
function defaultDispatcher(publicOnly: boolean): Dispatcher {
  undici ??= require('undici') as Undici;
  if (!publicOnly) {
    sharedAgents.open ??= new undici.Agent({ connections: 8 });
    return sharedAgents.open;
  }
  sharedAgents.publicOnly ??= new undici.Agent({ connections: 8, connect: { lookup: publicOnlyLookup as never } });
  return sharedAgents.publicOnly;
}

class FeedFailure extends Error {}

/** A body file as it lies on disk: a rename over it gives another inode, a rewrite another size or time. */
async function bodyStamp(file: string): Promise<string | undefined> {
  const info = await stat(file).catch(() => undefined);
  return info ? `${info.ino}:${info.size}:${info.mtimeMs}` : undefined;
}

/** Why a file feed was not read: its file is not there (yet). */
export const FILE_MISSING = 'the feed file does not exist';

/**
 * A calendar or guide feed: fetched with ETag / If-Modified-Since, its last
 * good body kept on disk and read again whenever a fetch fails or a new body
 * is broken (or suddenly empty), so that an outage never reads as "everything
 * cancelled". The address and credentials appear in no message.
 */
export class Feed {
  private meta: Meta = {};
  private loaded = false;
  private inflight: Promise<FeedRead> | undefined;
  private readonly base: string;
  /**
   * Names this reader's files in progress. Two readers of one window can run at once (a redeploy while the
   * old node's refresh runs, two schedule nodes sharing a folder): each writes its own and renames it into
   * place, so neither reads nor deletes the other's half-written body.
   */
  private readonly own = randomBytes(6).toString('hex');

  constructor(private readonly opts: FeedOptions) {
    // one snapshot per window and address: two windows reading one guide never write the same files
    const key = createHash('sha256').update(`${opts.label}\n${opts.location}`).digest('hex').slice(0, 20);
    this.base = path.join(opts.dir, `feed-${key}`);
  }

  get state(): FeedState {
    const m = this.meta;
    return {
      ok: m.lastError === undefined,
      ...(m.staleSince ? { staleSince: new Date(m.staleSince) } : {}),
      ...(m.lastError ? { lastError: m.lastError } : {}),
      ...(m.fetchedAt ? { fetchedAt: new Date(m.fetchedAt) } : {}),
    };
  }

  /** Fetches the feed (at most one fetch at a time) and reads it; on any failure reads the last good body. */
  refresh(read: FeedReader): Promise<FeedRead> {
    this.inflight ??= this.refreshNow(read).finally(() => {
      this.inflight = undefined;
    });
    return this.inflight;
  }

  /** Reads the last good body without fetching: after a restart, before the first refresh. */
  async readSnapshot(read: FeedReader): Promise<FeedRead> {
    await this.load();
    const result = await this.readBody(`${this.base}.body`, read);
    return result ? { result, state: this.state, from: 'snapshot' } : { state: this.state, from: 'none' };
  }

  private async refreshNow(read: FeedReader, again = false): Promise<FeedRead> {
    await this.load();
    const part = `${this.base}.${this.own}.part`;
    try {
      const got = await this.fetchTo(part);
      if (got === 'not-modified') {
        const result = await this.readBody(`${this.base}.body`, read);
        if (result && !result.error) {
          await this.saveMeta({ ...this.meta, staleSince: undefined, lastError: undefined });
          return { result, state: this.state, from: 'not-modified' };
        }
        // the snapshot is gone or unreadable: fetch the feed whole, once
        if (again) throw new FeedFailure('the server answers 304 Not Modified to a request without validators');
        this.meta = { ...this.meta, etag: undefined, lastModified: undefined, fileStamp: undefined };
        return this.refreshNow(read, true);
      }
      const result = await read(() => createReadStream(part));
      if (result.error) throw new FeedFailure(result.error);
      if (result.occurrences.length === 0 && !this.opts.allowEmpty) {
        const last = await this.readBody(`${this.base}.body`, read);
        if (last && last.occurrences.length >= SUSPICIOUS_FROM) {
          throw new FeedFailure(
            `the feed reads to no occurrences where the last good one had ${last.occurrences.length}; it is taken as broken`,
          );
        }
      }
      // stamped before the rename (which keeps it): another reader may rename its own body in right after
      const body = await bodyStamp(part);
      await rename(part, `${this.base}.body`);
      await this.saveMeta({
        ...got,
        body,
        fetchedAt: new Date().toISOString(),
        staleSince: undefined,
        lastError: undefined,
      });
      return { result, state: this.state, from: 'fetched' };
    } catch (error) {
      await rm(part, { force: true });
      // stopped, not failed: nothing to say of the feed's health
      if (this.opts.signal?.aborted) return { state: this.state, from: 'none' };
      const message = error instanceof FeedFailure ? error.message : describeFailure(error);
      await this.saveMeta({
        ...this.meta,
        staleSince: this.meta.staleSince ?? new Date().toISOString(),
        lastError: message.replace(/[.\s]+$/, ''),
      });
      const result = await this.readBody(`${this.base}.body`, read);
      return result ? { result, state: this.state, from: 'snapshot' } : { state: this.state, from: 'none' };
    }
  }

  private async load(): Promise<void> {
    if (this.loaded) return;
    this.loaded = true;
    await mkdir(this.opts.dir, { recursive: true, mode: 0o700 });
    await this.removeLeftovers();
    try {
      this.meta = JSON.parse(await readFile(`${this.base}.json`, 'utf8')) as Meta;
    } catch {
      this.meta = {};
    }
  }

  /**
   * Whether the body on disk is there and is the one the validators were saved with (a snapshot of an
   * earlier release, saved without its stamp, is taken as its own). When another reader's body replaced it,
   * the feed is fetched whole rather than answered "not modified" for a body it never read.
   */
  private async snapshotIsOwn(): Promise<boolean> {
    const now = await bodyStamp(`${this.base}.body`);
    return now !== undefined && (this.meta.body === undefined || this.meta.body === now);
  }

  /** Files in progress that a reader stopped mid-way (a killed process) left: any not touched for an hour. */
  private async removeLeftovers(): Promise<void> {
    const prefix = `${path.basename(this.base)}.`;
    const names = await readdir(this.opts.dir).catch(() => [] as string[]);
    const cutoff = Date.now() - LEFTOVER_AFTER_MS;
    for (const name of names) {
      if (!name.startsWith(prefix) || !(name.endsWith('.part') || name.endsWith('.json.tmp'))) continue;
      const file = path.join(this.opts.dir, name);
      const info = await stat(file).catch(() => undefined);
      if (info && info.mtimeMs < cutoff) await rm(file, { force: true });
    }
  }

  private async saveMeta(meta: Meta): Promise<void> {
    this.meta = Object.fromEntries(Object.entries(meta).filter(([, v]) => v !== undefined)) as Meta;
    const tmp = `${this.base}.${this.own}.json.tmp`;
    await writeFile(tmp, JSON.stringify(this.meta), { mode: 0o600 });
    await rename(tmp, `${this.base}.json`);
  }

  private async readBody(file: string, read: FeedReader): Promise<SourceResult | undefined> {
    try {
      await stat(file);
      return await read(() => createReadStream(file));
    } catch {
      return undefined;
    }
  }

  /** Writes the new body to `part`; the validators that came with it, or not-modified. */
  private async fetchTo(part: string): Promise<Meta | 'not-modified'> {
    const url = feedUrl(this.opts.location);
    if (url === undefined) return this.copyFile(filePath(this.opts.location), part);
    const haveSnapshot = await this.snapshotIsOwn();
    const headers: Record<string, string> = {
      accept: 'text/calendar, application/xml, text/xml, application/gzip, */*;q=0.5',
      'accept-encoding': 'gzip, deflate, br',
      'user-agent': 'media-spaces-node-red feed reader',
    };
    if (haveSnapshot && this.meta.etag) headers['if-none-match'] = this.meta.etag;
    if (haveSnapshot && this.meta.lastModified) headers['if-modified-since'] = this.meta.lastModified;
    const auth = authorization(this.opts.credentials);
    if (auth) headers.authorization = auth;
    const timeout = AbortSignal.timeout(this.opts.timeoutMs ?? DEFAULT_TIMEOUT_MS);
    const stop = this.opts.signal;
    if (!stop) return this.fetchBody(url, headers, part, haveSnapshot, timeout);
    // the fetch's own signal, cut by either: the window's signal lives for days, so each fetch takes its
    // listener off again when it ends
    const cut = new AbortController();
    const cutOff = () => cut.abort(stop.aborted ? stop.reason : timeout.reason);
    if (stop.aborted) cutOff();
    stop.addEventListener('abort', cutOff, { once: true });
    timeout.addEventListener('abort', cutOff, { once: true });
    try {
      return await this.fetchBody(url, headers, part, haveSnapshot, cut.signal);
    } finally {
      stop.removeEventListener('abort', cutOff);
      timeout.removeEventListener('abort', cutOff);
    }
  }

  private async fetchBody(
    url: URL,
    headers: Record<string, string>,
    part: string,
    haveSnapshot: boolean,
    signal: AbortSignal,
  ): Promise<Meta | 'not-modified'> {
    const res = await this.request(url, headers, signal);
    if (res.statusCode === 304 && haveSnapshot) {
      await res.body.dump();
      return 'not-modified';
    }
    if (res.statusCode < 200 || res.statusCode > 299) {
      await res.body.dump().catch(() => undefined);
      throw new FeedFailure(`HTTP ${res.statusCode}`);
    }
    const encoding = String(res.headers['content-encoding'] ?? '')
      .trim()
      .toLowerCase();
    const stages: NodeJS.ReadWriteStream[] = [];
    if (encoding === 'gzip' || encoding === 'x-gzip') stages.push(createGunzip());
    else if (encoding === 'deflate') stages.push(createInflate());
    else if (encoding === 'br') stages.push(createBrotliDecompress());
    else if (encoding !== '' && encoding !== 'identity') throw new FeedFailure(`unknown Content-Encoding ${encoding}`);
    await pipeline([res.body, ...stages, this.sizeCap(), createWriteStream(part, { mode: 0o600 })], { signal });
    const etag = header(res.headers.etag);
    const lastModified = header(res.headers['last-modified']);
    return { ...(etag ? { etag } : {}), ...(lastModified ? { lastModified } : {}) };
  }

  /**
   * GET, following redirects (up to 5): credentials never cross origins, and
   * a feed configured at a public address is never redirected to another
   * origin at an internal one (loopback, private, link-local, CGNAT,
   * unspecified, metadata): the host name of each such redirect is resolved
   * and checked before it is followed, and the agent of a public feed
   * connects to public addresses only. A feed configured at an internal
   * address follows its redirects as its operator chose.
   */
  private async request(
    url: URL,
    headers: Record<string, string>,
    signal: AbortSignal,
  ): Promise<Dispatcher.ResponseData> {
    const check: AddressCheck = this.opts.addressCheck ?? ((host) => resolveAddressKind(host));
    const publicOnly = (await check(url.hostname)) === undefined;
    const dispatcher = this.opts.dispatcher ?? defaultDispatcher(publicOnly);
    const sent = { ...headers };
    let at = url;
    for (let hops = 0; ; hops++) {
      const res = await dispatcher.request({
        origin: at.origin,
        path: `${at.pathname}${at.search}`,
        method: 'GET',
        headers: sent,
        signal,
      });
      const location = REDIRECT_STATUS.has(res.statusCode) ? header(res.headers.location) : undefined;
      if (location === undefined) return res;
      await res.body.dump().catch(() => undefined);
      const redirect = `the feed's address redirects (HTTP ${res.statusCode})`;
      if (hops >= MAX_REDIRECTS) throw new FeedFailure(`${redirect} more than ${MAX_REDIRECTS} times`);
      let next: URL;
      try {
        next = new URL(location, at);
      } catch {
        throw new FeedFailure(`${redirect} to an address that is not a valid URL`);
      }
      if (next.protocol !== 'http:' && next.protocol !== 'https:') {
        throw new FeedFailure(`${redirect} to a ${next.protocol.slice(0, -1)} address, which is not followed`);
      }
      if (next.origin !== at.origin) {
        // credentials are for the origin they were configured for
        delete sent.authorization;
        const inside = publicOnly ? await check(next.hostname) : undefined;
        if (inside) {
          throw new FeedFailure(
            `${redirect} to another origin at ${inside}; a feed at a public address is not redirected inside, and the redirect is not followed`,
          );
        }
      }
      at = next;
    }
  }

  private async copyFile(file: string, part: string): Promise<Meta | 'not-modified'> {
    const info = await stat(file);
    const fileStamp = `${info.size}:${info.mtimeMs}`;
    const haveSnapshot = await this.snapshotIsOwn();
    if (haveSnapshot && this.meta.fileStamp === fileStamp) return 'not-modified';
    await pipeline(createReadStream(file), this.sizeCap(), createWriteStream(part, { mode: 0o600 }));
    return { fileStamp };
  }

  private sizeCap(): Transform {
    const max = this.opts.maxBytes ?? DEFAULT_MAX_BYTES;
    let seen = 0;
    return new Transform({
      transform(chunk: Buffer, _encoding, done) {
        seen += chunk.length;
        if (seen > max) done(new FeedFailure(`the feed is larger than ${formatBytes(max)}`));
        else done(null, chunk);
      },
    });
  }
}

/** The URL of a feed address, or undefined for a file (a path, or a file: URL). */
function feedUrl(location: string): URL | undefined {
  if (!/^[a-z][a-z0-9+.-]*:\/\//i.test(location)) return undefined;
  const url = new URL(location);
  if (url.protocol === 'file:') return undefined;
  if (url.protocol === 'webcal:' || url.protocol === 'webcals:')
    return new URL(`https:${location.slice(url.protocol.length)}`);
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new FeedFailure(`a feed address must be http, https, webcal or a file, not ${url.protocol.slice(0, -1)}`);
  }
  return url;
}

function filePath(location: string): string {
  return location.startsWith('file:') ? fileURLToPath(location) : location;
}

function authorization(credentials: FeedCredentials | undefined): string | undefined {
  if (!credentials) return undefined;
  if ('token' in credentials) return credentials.token ? `Bearer ${credentials.token}` : undefined;
  return `Basic ${Buffer.from(`${credentials.user}:${credentials.password}`).toString('base64')}`;
}

function header(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}

function formatBytes(n: number): string {
  return n >= 1024 * 1024 ? `${Math.round(n / (1024 * 1024))} MB` : `${Math.round(n / 1024)} KB`;
}

/** A failed fetch in words that carry no address: the code and what it means, or the timeout. */
function describeFailure(error: unknown): string {
  if (error instanceof FeedFailure) return error.message;
  const e = error as { name?: string; code?: string; message?: string };
  if (e.name === 'TimeoutError' || e.code === 'UND_ERR_HEADERS_TIMEOUT' || e.code === 'UND_ERR_BODY_TIMEOUT') {
    return 'the feed did not answer in time';
  }
  if (e.name === 'AbortError' && e.message?.includes('larger than')) return e.message;
  if (e.code === 'ENOENT') return FILE_MISSING;
  if (e.code === 'EACCES') return 'the feed file cannot be read (permission denied)';
  if (e.code === 'ECONNREFUSED') return 'the feed server refused the connection';
  if (e.code === 'ENOTFOUND') return 'the feed server name does not resolve';
  if (e.code === INTERNAL_ADDRESS_CODE) {
    return 'the feed server name resolves to an internal address, which a feed at a public address does not reach';
  }
  if (e.code === 'ECONNRESET' || e.code === 'UND_ERR_SOCKET') return 'the connection to the feed server was cut';
  if (e.code === 'UND_ERR_INVALID_ARG' || e.code === 'ERR_INVALID_URL') return 'the feed address is not a valid URL';
  return e.code ? `the feed cannot be fetched (${e.code})` : 'the feed cannot be fetched';
}

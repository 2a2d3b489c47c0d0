import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { decideConflicts, type Loss } from '../conflicts';
import { formatLocalIso, isValidTimeZone, systemTimeZone } from '../tz';
import { calendarReaderOffThread } from './calendar-worker';
import { Feed, type FeedReader } from './feed';
import { type FeedSecret, feedAccess } from './feed-access';
import { resolveFeedFile } from './feed-file';
import type { FeedTestAnswer, FeedTestConflict, FeedTestOccurrence } from './feed-test-answer';
import { type Occurrence, planned } from './occurrence';
import { guideReader } from './readers';
import { type FeedWindowSource, parseSourceWindow } from './window-config';

export type { FeedTestAnswer, FeedTestConflict, FeedTestOccurrence };

/**
 * "Test feed" in the window form: one fetch of one window's feed, read with
 * the window's rules, and its next occurrences with their padded times in the
 * window's zone and the conflicts among them. Bounded: one fetch with a short
 * timeout and a smaller size cap than a schedule's, the readers' own caps,
 * the answer cut to its first occurrences. The snapshot folder is a scratch
 * one, removed afterwards: a test never touches a schedule's snapshot.
 */

/** occurrences listed at the most; the rest are counted */
export const FEED_TEST_LIMIT = 50;
/** how far ahead a test looks (a guide rarely covers more than two weeks) */
export const FEED_TEST_HORIZON_MS = 28 * 24 * 3600_000;
/** ms for the fetch, headers and body */
export const FEED_TEST_TIMEOUT_MS = 20_000;
/** bytes of body read at the most: a calendar is parsed whole, a guide streamed */
export const FEED_TEST_MAX_BYTES = { ical: 16 * 1024 * 1024, xmltv: 128 * 1024 * 1024 } as const;

export interface FeedTestRequest {
  /** the window as the document writes it (`ical:` or `xmltv:`, match, padding…) */
  window: unknown;
  /** the window's secret (a private address, user and password or token), when it has one */
  secret?: FeedSecret;
  /** zone of a window that names none */
  timezone?: string;
  /** the space's limit of concurrent channels */
  maxChannels?: number;
  /** the folder a relative file path is read from (where the core file node writes: feedBaseDir) */
  baseDir?: string;
  now?: number;
}

const empty = (rest: Partial<FeedTestAnswer>): FeedTestAnswer => ({
  ok: false,
  occurrences: [],
  more: 0,
  conflicts: [],
  problems: [],
  ...rest,
});

/** The zone a window's times are shown in: its own, else the request's, else the machine's. */
function zoneOf(window: unknown, fallback: string | undefined): string {
  const own = (window as { timezone?: unknown }).timezone;
  if (typeof own === 'string' && own.trim() !== '') return own.trim();
  return fallback && fallback.trim() !== '' ? fallback.trim() : systemTimeZone();
}

/** Fetches and reads one feed window; never rejects. */
export async function testFeedWindow(request: FeedTestRequest): Promise<FeedTestAnswer> {
  const parsed = parseSourceWindow(request.window);
  if (!parsed.ok) return empty({ error: 'The window does not validate.', issues: parsed.issues });
  const source = parsed.window;
  const zone = zoneOf(request.window, request.timezone);
  if (!isValidTimeZone(zone)) {
    return empty({ window: source.id, error: `${JSON.stringify(zone)} is not an IANA time zone.` });
  }
  const secrets: Record<string, FeedSecret> = request.secret ? { [source.id]: request.secret } : {};
  const access = feedAccess({ id: source.id, location: source.location }, secrets);
  if (typeof access === 'string') return empty({ window: source.id, error: access });
  const now = request.now ?? Date.now();
  const from = new Date(now);
  const to = new Date(now + FEED_TEST_HORIZON_MS);
  const dir = await mkdtemp(path.join(tmpdir(), 'ms-feed-test-'));
  try {
    const feed = new Feed({
      location: resolveFeedFile(access.location, request.baseDir),
      label: source.id,
      dir,
      ...(access.credentials ? { credentials: access.credentials } : {}),
      timeoutMs: FEED_TEST_TIMEOUT_MS,
      maxBytes: FEED_TEST_MAX_BYTES[source.kind],
      // a test shows what the feed says now, empty or not
      allowEmpty: true,
    });
    const read = await feed.refresh(readerFor(source, zone, from, to));
    if (!read.result) {
      return empty({ window: source.id, timezone: zone, kind: source.kind, error: sentence(read.state.lastError) });
    }
    return answer(source, zone, read.result.occurrences, read.result.problems, request.maxChannels, now);
  } catch (error) {
    return empty({ window: source.id, error: `The feed cannot be tested (${(error as Error).name}).` });
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

function readerFor(source: FeedWindowSource, zone: string, from: Date, to: Date): FeedReader {
  if (source.kind === 'ical') {
    return calendarReaderOffThread(
      {
        windowId: source.id,
        zone,
        from,
        to,
        match: source.match,
        allDay: source.allDay,
        ...(source.defaultDuration !== undefined ? { defaultDuration: source.defaultDuration } : {}),
      },
      FEED_TEST_TIMEOUT_MS,
    );
  }
  return guideReader(
    { windowId: source.id, zone, from, to, match: source.match, sources: source.sources },
    FEED_TEST_TIMEOUT_MS,
  );
}

function answer(
  source: FeedWindowSource,
  zone: string,
  occurrences: Occurrence[],
  problems: string[],
  maxChannels: number | undefined,
  now: number,
): FeedTestAnswer {
  const local = (ms: number) => formatLocalIso(ms, zone);
  // the occurrences as the window plans them (lib/schedule/feed-plans): padded once, the programme beside
  const plan = occurrences
    .map((o) => planned(o, source.padding))
    .filter((p) => p.end > now)
    .sort((a, b) => a.start - b.start || (a.id < b.id ? -1 : 1));
  const listed = plan.slice(0, FEED_TEST_LIMIT).map((p) => ({
    id: p.id,
    ...(p.programme?.title !== undefined ? { title: p.programme.title } : {}),
    start: local(p.programme?.start ?? p.start),
    end: local(p.programme?.end ?? p.end),
    padded_start: local(p.start),
    padded_end: local(p.end),
    ...(p.programme?.channel ? { channel: p.programme.channel } : {}),
    ...(p.programme?.sourceId ? { source_id: p.programme.sourceId } : {}),
  }));
  // one window, one priority: of overlapping occurrences over the limit, the earlier start records
  const conflicts: Loss[] =
    maxChannels === undefined
      ? []
      : [
          ...decideConflicts(
            plan.map((p) => ({
              key: p.id,
              windowId: source.id,
              start: p.start,
              end: p.end,
              ...(p.programme?.title !== undefined ? { title: p.programme.title } : {}),
            })),
            maxChannels,
          ).losers.values(),
        ].sort((a, b) => a.start - b.start || (a.key < b.key ? -1 : 1));
  return {
    ok: true,
    window: source.id,
    timezone: zone,
    kind: source.kind,
    occurrences: listed,
    more: plan.length - listed.length,
    conflicts: conflicts.slice(0, FEED_TEST_LIMIT).map((c) => ({
      id: c.key,
      ...(c.title !== undefined ? { title: c.title } : {}),
      padded_start: local(c.start),
      padded_end: local(c.end),
      concurrent: c.concurrent,
      limit: c.limit,
      with: c.lostTo.slice(0, 10).map((w) => w.key),
      lost_to: c.lostTo.slice(0, 10).map((w) => w.title ?? w.key),
    })),
    problems,
  };
}

/** A lower-case reason as a sentence: "HTTP 503" → "The feed cannot be read: HTTP 503." */
function sentence(reason: string | undefined): string {
  if (!reason) return 'The feed cannot be read.';
  return `The feed cannot be read: ${reason.replace(/[.\s]+$/, '')}.`;
}

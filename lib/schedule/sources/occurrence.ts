import { createHash } from 'node:crypto';
import { parseDuration } from '../duration';

/**
 * One dated occurrence of a window, as a source (a calendar, a programme
 * guide) gives it: the times are the programme's own, unpadded; the plan pads
 * them per window with {@link padded}.
 */
export interface Occurrence {
  /**
   * Stable identity across refreshes of the feed: a calendar's UID + RECURRENCE-ID (ISO),
   * a guide's channel + episode-num, else channel + start (ISO).
   */
  id: string;
  windowId: string;
  start: Date;
  end: Date;
  /** Changes when start, end or title change: compares two plans without comparing every field. */
  revision: string;
  title?: string;
  details?: OccurrenceDetails;
}

export interface OccurrenceDetails {
  description?: string;
  /** a guide's sub-title (the episode's own title) */
  subtitle?: string;
  channel?: string;
  episode?: string;
  categories?: string[];
  location?: string;
  /** the live source the guide's channel maps to (a window's `sources`) */
  sourceId?: string;
}

/** Milliseconds added before the start and after the end of an occurrence. */
export interface Padding {
  before: number;
  after: number;
}

/** What a source read from a feed: the occurrences in range, and one sentence per thing it left out. */
export interface SourceResult {
  occurrences: Occurrence[];
  /** events or programmes left out (or read partly), each named: the rest of the feed is good */
  problems: string[];
  /** set when the feed as a whole cannot be read (HTML, truncated, refused): then there are no occurrences */
  error?: string;
}

export const NO_PADDING: Padding = Object.freeze({ before: 0, after: 0 });

/** The recording times of an occurrence: each end padded by its own amount, never cut by a neighbour. */
export function padded(o: Occurrence, p: Padding): { start: Date; end: Date } {
  return { start: new Date(o.start.getTime() - p.before), end: new Date(o.end.getTime() + p.after) };
}

/**
 * A window's `padding: { before: 2m, after: 5m }` in milliseconds. Zero or an
 * absent side is no padding; a duration reads as the schedule's durations do.
 */
export function parsePadding(value: { before?: unknown; after?: unknown } | undefined): Padding {
  const side = (v: unknown): number => (v === undefined || v === 0 || v === '0' ? 0 : parseDuration(v) * 1000);
  return { before: side(value?.before), after: side(value?.after) };
}

/** A short digest of what a plan shows of an occurrence: start, end and title. */
export function revisionOf(start: Date, end: Date, title: string | undefined): string {
  return createHash('sha256')
    .update(`${start.toISOString()}\n${end.toISOString()}\n${title ?? ''}`)
    .digest('base64url')
    .slice(0, 12);
}

/** Ordered by start, then id: the order a plan lists occurrences in. */
export function byStart(a: Occurrence, b: Occurrence): number {
  return a.start.getTime() - b.start.getTime() || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
}

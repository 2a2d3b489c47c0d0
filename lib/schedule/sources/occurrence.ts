import { parseDuration } from '../duration';
import type { PlannedOccurrence } from '../plan';

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
  /**
   * later airings a guide read `duplicates: once` leaves out of the plan (the same title and episode aired
   * again): not recorded, but a re-record (lib/schedule/rerecord) may book one
   */
  repeats?: Occurrence[];
}

export const NO_PADDING: Padding = Object.freeze({ before: 0, after: 0 });

/**
 * The one place a window's padding is applied (feeds, `windows` messages, Test feed): the recording's times
 * from the occurrence's own, epoch ms; each end padded by its own amount, never cut by a neighbour.
 */
export function withPadding(start: number, end: number, p: Padding): { start: number; end: number } {
  return { start: start - p.before, end: end + p.after };
}

/** An occurrence of a feed as the scheduler plans it: padded by its window, the programme unpadded beside it. */
export function planned(o: Occurrence, padding: Padding): PlannedOccurrence {
  const d = o.details ?? {};
  return {
    id: o.id,
    ...withPadding(o.start.getTime(), o.end.getTime(), padding),
    revision: o.revision,
    programme: {
      ...(o.title !== undefined ? { title: o.title } : {}),
      ...(d.description !== undefined ? { description: d.description } : {}),
      ...(d.subtitle !== undefined ? { subtitle: d.subtitle } : {}),
      ...(d.channel !== undefined ? { channel: d.channel } : {}),
      ...(d.episode !== undefined ? { episode: d.episode } : {}),
      ...(d.categories !== undefined ? { categories: d.categories } : {}),
      ...(d.location !== undefined ? { location: d.location } : {}),
      ...(d.sourceId !== undefined ? { sourceId: d.sourceId } : {}),
      start: o.start.getTime(),
      end: o.end.getTime(),
    },
  };
}

/**
 * One side of a window's padding in milliseconds: a duration as the
 * schedule's durations read (`2m`, `90s`, `PT1M`, seconds), or none (absent,
 * `0`, `0s`). Throws DurationError naming what is wrong.
 */
export function paddingMs(value: unknown): number {
  if (value === undefined || value === null || value === 0) return 0;
  if (typeof value === 'string' && /^\s*0+(\.0+)?\s*[smhd]?\s*$/i.test(value)) return 0;
  return parseDuration(value) * 1000;
}

/** A window's `padding: { before: 2m, after: 5m }` in milliseconds (see paddingMs). */
export function parsePadding(value: { before?: unknown; after?: unknown } | undefined): Padding {
  return { before: paddingMs(value?.before), after: paddingMs(value?.after) };
}

/**
 * A short digest of what a plan shows of an occurrence: start, end and title
 * (FNV-1a in two 32-bit lanes: enough to tell a change, cheap for 10,000 occurrences).
 */
export function revisionOf(start: Date, end: Date, title: string | undefined): string {
  const text = `${start.getTime()}|${end.getTime()}|${title ?? ''}`;
  let a = 0x811c9dc5;
  let b = 0x01000193 ^ 0x5bd1e995;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    a = Math.imul(a ^ c, 0x01000193);
    b = Math.imul(b ^ c, 0x01000193) ^ (b >>> 15);
  }
  return (a >>> 0).toString(36).padStart(7, '0') + (b >>> 0).toString(36).padStart(7, '0');
}

/** Ordered by start, then id: the order a plan lists occurrences in. */
export function byStart(a: Occurrence, b: Occurrence): number {
  return a.start.getTime() - b.start.getTime() || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
}

/** Characters kept of an occurrence's title, subtitle, channel, episode, location or category. */
export const MAX_TITLE_CHARS = 4 * 1024;
/** Characters kept of an occurrence's description. */
export const MAX_DESCRIPTION_CHARS = 16 * 1024;

/**
 * A source's result with every occurrence's texts cut to MAX_TITLE_CHARS
 * (MAX_DESCRIPTION_CHARS for a description), each occurrence cut named in a
 * problem: a 15 MB SUMMARY never reaches a plan, a channel name or Test feed.
 * The revision follows the cut title. Returns the result itself when nothing is cut.
 */
export function boundTexts(result: SourceResult, noun: 'event' | 'programme'): SourceResult {
  const cut = (text: string | undefined, max: number) =>
    text !== undefined && text.length > max ? text.slice(0, max) : undefined;
  let problems: string[] | undefined;
  const occurrences = result.occurrences.map((o) => {
    const d = o.details ?? {};
    const title = cut(o.title, MAX_TITLE_CHARS);
    const fields: Array<[keyof OccurrenceDetails, number]> = [
      ['description', MAX_DESCRIPTION_CHARS],
      ['subtitle', MAX_TITLE_CHARS],
      ['channel', MAX_TITLE_CHARS],
      ['episode', MAX_TITLE_CHARS],
      ['location', MAX_TITLE_CHARS],
    ];
    const names: string[] = title !== undefined ? ['title'] : [];
    let details: OccurrenceDetails | undefined;
    for (const [name, max] of fields) {
      const value = cut(d[name] as string | undefined, max);
      if (value === undefined) continue;
      details ??= { ...d };
      (details as Record<string, unknown>)[name] = value;
      names.push(name);
    }
    if (d.categories?.some((c) => c.length > MAX_TITLE_CHARS)) {
      details ??= { ...d };
      details.categories = d.categories.map((c) => c.slice(0, MAX_TITLE_CHARS));
      names.push('category');
    }
    if (names.length === 0) return o;
    problems ??= [];
    if (problems.length < 20) {
      problems.push(
        `The ${noun} ${JSON.stringify((title ?? o.title ?? '').slice(0, 60))} (${o.id.slice(0, 200)}) has a ${names.join(', ')} longer than ${MAX_TITLE_CHARS} characters (${MAX_DESCRIPTION_CHARS} for a description); it is cut.`,
      );
    }
    return {
      ...o,
      ...(title !== undefined ? { title, revision: revisionOf(o.start, o.end, title) } : {}),
      ...(details ? { details } : {}),
    };
  });
  if (!problems) return result;
  return { ...result, occurrences, problems: [...result.problems, ...problems] };
}

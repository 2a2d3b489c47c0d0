import type { Readable } from 'node:stream';
import type { SaxesParser, SaxesTagPlain } from 'saxes';
import { quoteShort } from '../../quote';
import { isoSeconds, localParts } from '../tz';
import { compileGuideMatch, type GuideMatch, type GuideRules, matchesGuide } from './guide-match';
import { overlaps } from './match';
import { byStart, type Occurrence, type OccurrenceDetails, revisionOf, type SourceResult } from './occurrence';
import { Problems } from './problems';
import { BodyTooLarge, formatBytes, openBody } from './stream-body';

type Saxes = typeof import('saxes');
let saxes: Saxes | undefined;

/** saxes, loaded when a guide is first read (8 ms, 300 KB with xmlchars). */
function loadSaxes(): Saxes {
  saxes ??= require('saxes') as Saxes;
  return saxes;
}

export type { GuideMatch } from './guide-match';

export interface GuideOptions {
  windowId: string;
  /** IANA zone the rules' days and `between` are read in */
  zone: string;
  /** programmes that overlap [from, to) are kept */
  from: Date;
  to: Date;
  match?: GuideMatch;
  /** the guide's channel id -> the live source to record it from (details.sourceId) */
  sources?: Record<string, string>;
  /** bytes of guide read at the most once gunzipped (default MAX_GUIDE_BYTES) */
  maxBytes?: number;
}

/** A programme as read from the guide, before it is matched. */
interface Programme {
  channel: string;
  start: number;
  /** undefined until the next programme on the channel says when it ends */
  stop?: number;
  title?: string;
  subTitle?: string;
  desc?: string;
  categories: string[];
  /** xmltv_ns, as written (`1.4.0/1`) */
  episodeNs?: string;
  /** onscreen, as written (`S02E05`) */
  episodeOnscreen?: string;
  /** another episode-num system, as written */
  episodeOther?: string;
  previouslyShown: boolean;
  isNew: boolean;
  line: number;
  /** the fields cut to the guide's limits, named in a problem if the programme is kept */
  cut: string[];
}

/** Bytes of guide read at the most, counted after gunzip (a 500 KB gzip can inflate to gigabytes). */
export const MAX_GUIDE_BYTES = 256 * 1024 * 1024;
/** Characters kept of a description: past this it is cut, and named (a programme is not a book). */
export const MAX_DESC = 16 * 1024;
/** Characters kept of a title, sub-title, category or episode number: past this it is cut, and named. */
export const MAX_TITLE = 4 * 1024;
/** Characters of a programme's channel, start or stop attribute at the most: past this the programme is left out. */
export const MAX_ATTR = 1024;
/** Categories kept of one programme; the rest are left out, and named. */
export const MAX_CATEGORIES = 32;
/** Elements open at once at the most: XMLTV nests 4 deep (tv, programme, credits, actor…); past this the guide is refused. */
export const MAX_DEPTH = 32;
/** Characters between two tags at the most (text, a comment, one tag with its attributes): saxes holds such a run whole. */
export const MAX_RUN = 1024 * 1024;
/**
 * Matching programmes kept per read, the earliest first: a window's plan is not the whole guide (a plan
 * covers nine days; 10,000 is also the most occurrences a `windows` message may carry).
 */
export const MAX_PROGRAMMES = 10_000;
/** A chunk is handed to saxes in slices of this many characters, so that MAX_RUN is checked inside a large chunk. */
const RUN_SLICE = 64 * 1024;
/**
 * Characters of text all kept programmes carry at the most (titles, sub-titles, descs, categories, episode
 * numbers, channels): the result crosses to the thread that runs the schedules, and 10,000 descs of 16 KB
 * would be 160 MB there. Past it, the later programmes keep their title and times but lose their desc,
 * sub-title and categories, named in one problem; a guide whose titles alone pass twice this is refused.
 */
export const MAX_KEPT_TEXT = 16 * 1024 * 1024;
const TEXT_ELEMENTS = new Set(['title', 'sub-title', 'desc', 'category', 'episode-num']);

/**
 * The programmes of an XMLTV guide (plain or gzip) that match a window's
 * rules and overlap [from, to), read as a stream: only those programmes are
 * held, never the document. A programme that cannot be read is named in
 * `problems`; a guide that cannot be read at all (not UTF-8, a DOCTYPE with
 * its own entities, not XMLTV, cut off) sets `error`. Never rejects.
 */
export async function readGuide(input: Readable, opts: GuideOptions): Promise<SourceResult> {
  const problems = new Problems();
  const rules = compileGuideMatch(opts.match);
  if (typeof rules === 'string') {
    input.destroy();
    return { occurrences: [], problems: [], error: rules };
  }
  const reader = new GuideReader(opts, rules, problems);
  try {
    const decoder = new TextDecoder('utf-8', { fatal: true });
    for await (const chunk of openBody(input, opts.maxBytes ?? MAX_GUIDE_BYTES)) {
      reader.write(decoder.decode(chunk as Buffer, { stream: true }));
      if (reader.failed) break;
    }
    if (!reader.failed) reader.write(decoder.decode());
    if (!reader.failed) reader.close();
  } catch (error) {
    reader.fail(readFailure(error));
  } finally {
    input.destroy();
  }
  if (reader.failed) return { occurrences: [], problems: problems.list(), error: reader.failed };
  const occurrences = reader.finish();
  if (reader.failed) return { occurrences: [], problems: problems.list(), error: reader.failed };
  return {
    occurrences,
    problems: problems.list(),
    ...(reader.repeats.length > 0 ? { repeats: reader.repeats } : {}),
  };
}

function readFailure(error: unknown): string {
  const code = (error as { code?: string }).code;
  if (code === 'ERR_ENCODING_INVALID_ENCODED_DATA' || error instanceof TypeError) {
    return 'The guide is not UTF-8 text (it has bytes that are not UTF-8); only UTF-8 guides are read.';
  }
  if (code === 'Z_DATA_ERROR' || code === 'Z_BUF_ERROR') return 'The guide is gzip data that is corrupt or cut off.';
  if (error instanceof BodyTooLarge) {
    return `The guide is larger than ${formatBytes(error.maxBytes)} (counted after gunzip); it is refused.`;
  }
  const message = error instanceof Error ? error.message : String(error);
  return `The guide cannot be read: ${message.replace(/[.\s]+$/, '')}.`;
}

class GuideReader {
  failed: string | undefined;
  private readonly parser: SaxesParser;
  private current: Programme | undefined;
  private field: { name: string; system?: string; text: string; cut: boolean } | undefined;
  private sawRoot = false;
  private blank = true;
  /** elements open (see MAX_DEPTH) */
  private depth = 0;
  /** characters written since the last tag (see MAX_RUN) */
  private sinceTag = 0;
  private readonly from: number;
  private readonly to: number;
  /** matching programmes with their stop, in range */
  private kept: Array<{ p: Programme; stop: number }> = [];
  /** matching programmes without stop that start before `to`: ended at finish by their channel's next start */
  private pending: Programme[] = [];
  /** pending's length that sets off the next compaction (see compact) */
  private compactAt = 4096;
  /** every programme's start, by channel: what ends a programme without stop, whatever the file's order */
  private readonly starts = new Map<string, number[]>();
  /** once the kept programmes pass MAX_PROGRAMMES: a matching programme starting at or after this is left out */
  private cutoff = Number.POSITIVE_INFINITY;
  /** matching programmes left out by MAX_PROGRAMMES */
  private overCap = 0;
  /** later airings `duplicates: once` leaves out of the plan (see SourceResult.repeats), filled by finish */
  readonly repeats: Occurrence[] = [];

  constructor(
    private readonly opts: GuideOptions,
    private readonly rules: GuideRules,
    private readonly problems: Problems,
  ) {
    this.from = opts.from.getTime();
    this.to = opts.to.getTime();
    const { SaxesParser } = loadSaxes();
    // xmlns off: XMLTV has no namespaces; position on: problems name their line
    this.parser = new SaxesParser({ xmlns: false, position: true });
    // the kind of error, without the name saxes quotes ("unclosed tag: …"): no message quotes the body
    this.parser.on('error', (e) => {
      const at = /^\d+:\d+: /.exec(e.message)?.[0] ?? '';
      const kind = e.message
        .slice(at.length)
        .split(': ')[0]
        .replace(/[.\s]+$/, '');
      this.fail(`The guide is not well-formed XML: ${at}${kind}.`);
    });
    this.parser.on('xmldecl', (decl) => {
      const encoding = decl.encoding;
      if (encoding !== undefined && !/^utf-?8$/i.test(encoding)) {
        this.fail(
          `The guide declares an encoding other than UTF-8 (line ${this.parser.line}); only UTF-8 guides are read.`,
        );
      }
    });
    this.parser.on('doctype', (doctype) => {
      // an external DTD reference (xmltv.dtd) is harmless: it is never fetched; a subset can declare entities
      if (doctype.includes('[')) {
        this.fail(
          "The guide's DOCTYPE declares its own markup or entities (an internal subset); such a guide is refused, its entities never expanded.",
        );
      }
    });
    this.parser.on('opentag', (tag) => this.open_(tag as SaxesTagPlain));
    this.parser.on('text', (text) => this.text(text));
    this.parser.on('cdata', (text) => this.text(text));
    this.parser.on('closetag', (tag) => this.close_(tag.name));
  }

  write(text: string): void {
    if (text === '' || this.failed) return;
    this.blank &&= text.trim() === '';
    // a chunk is written in slices: a tag in the middle of it resets the count before the rest is counted
    for (let at = 0; at < text.length && !this.failed; at += RUN_SLICE) {
      const slice = at === 0 && text.length <= RUN_SLICE ? text : text.slice(at, at + RUN_SLICE);
      this.sinceTag += slice.length;
      if (this.sinceTag > MAX_RUN) {
        this.fail(
          `The guide has more than ${formatBytes(MAX_RUN)} of text, comment or tag without markup between (from line ${this.parser.line}); it is refused.`,
        );
        return;
      }
      this.parser.write(slice);
    }
  }

  close(): void {
    if (this.blank) {
      this.fail('The guide is empty: it has no <tv> element.');
      return;
    }
    this.parser.close();
    if (!this.failed && !this.sawRoot) this.fail('The guide is empty: it has no <tv> element.');
  }

  fail(message: string): void {
    this.failed ??= message.replace(/^(The guide is not well-formed XML: )(\d+:\d+: )?/, (_m, head, at) =>
      at ? `${head}line ${at.split(':')[0]}, ` : head,
    );
  }

  private open_(tag: SaxesTagPlain): void {
    this.sinceTag = 0;
    if (this.failed) return;
    if (++this.depth > MAX_DEPTH) {
      this.fail(`The guide nests elements more than ${MAX_DEPTH} deep (line ${this.parser.line}); it is refused.`);
      return;
    }
    if (!this.sawRoot) {
      this.sawRoot = true;
      if (tag.name !== 'tv')
        this.fail(`The feed's root element (line ${this.parser.line}) is not <tv>: it is not an XMLTV guide.`);
      return;
    }
    if (tag.name === 'programme') {
      this.programmeStart(tag);
      return;
    }
    const p = this.current;
    if (!p) return;
    if (tag.name === 'new') p.isNew = true;
    else if (tag.name === 'previously-shown') p.previouslyShown = true;
    else if (TEXT_ELEMENTS.has(tag.name)) {
      this.field = { name: tag.name, system: attr(tag, 'system')?.slice(0, MAX_ATTR), text: '', cut: false };
    }
  }

  private text(text: string): void {
    const f = this.field;
    if (!f) return;
    const max = f.name === 'desc' ? MAX_DESC : MAX_TITLE;
    if (f.text.length + text.length <= max) f.text += text;
    else {
      if (f.text.length < max) f.text += text.slice(0, max - f.text.length);
      f.cut = true;
    }
  }

  private close_(name: string): void {
    this.sinceTag = 0;
    this.depth--;
    if (this.failed) return;
    const p = this.current;
    if (!p) return;
    if (name === 'programme') {
      this.current = undefined;
      this.programmeEnd(p);
      return;
    }
    const f = this.field;
    if (!f || f.name !== name) return;
    this.field = undefined;
    const text = f.text.trim();
    if (text === '') return;
    if (f.cut) p.cut.push(f.name);
    if (name === 'title') p.title ??= text;
    else if (name === 'sub-title') p.subTitle ??= text;
    else if (name === 'desc') p.desc ??= text;
    else if (name === 'category') {
      if (p.categories.length < MAX_CATEGORIES) p.categories.push(text);
      else if (!p.cut.includes('category')) p.cut.push('category');
    } else if (f.system === 'xmltv_ns') p.episodeNs ??= text.replace(/\s+/g, '');
    else if (f.system === 'onscreen') p.episodeOnscreen ??= text;
    else p.episodeOther ??= text;
  }

  private where(channel: string | undefined, start?: string): string {
    const on = channel ? ` on channel ${quoteShort(channel)}` : '';
    const at = start ? ` starting ${quoteShort(start)}` : '';
    return `The programme${on}${at} (line ${this.parser.line})`;
  }

  private programmeStart(tag: SaxesTagPlain): void {
    const channel = attr(tag, 'channel');
    const startText = attr(tag, 'start');
    const stopText = attr(tag, 'stop');
    this.current = undefined;
    if (!channel || !startText) {
      this.problems.push(`${this.where(channel, startText)} has no ${channel ? 'start' : 'channel'}; it is left out.`);
      return;
    }
    const long = [
      ['channel', channel],
      ['start', startText],
      ['stop', stopText ?? ''],
    ].find(([, value]) => value.length > MAX_ATTR);
    if (long) {
      this.problems.push(
        `${this.where(channel, startText)} has a ${long[0]} attribute longer than ${MAX_ATTR} characters; it is left out.`,
      );
      return;
    }
    const start = parseXmltvTime(startText);
    if (start === undefined) {
      this.problems.push(`${this.where(channel, startText)} has a start that is not an XMLTV time; it is left out.`);
      return;
    }
    // the channel's next start ends the programme before it that has no stop (see finish)
    let starts = this.starts.get(channel);
    if (!starts) {
      starts = [];
      this.starts.set(channel, starts);
    }
    starts.push(start);
    let stop: number | undefined;
    if (stopText !== undefined) {
      stop = parseXmltvTime(stopText);
      if (stop === undefined) {
        this.problems.push(`${this.where(channel, startText)} has a stop that is not an XMLTV time; it is left out.`);
        return;
      }
      if (stop <= start) {
        this.problems.push(`${this.where(channel, startText)} stops (${stopText}) before it starts; it is left out.`);
        return;
      }
    }
    this.current = {
      channel,
      start,
      stop,
      categories: [],
      previouslyShown: false,
      isNew: false,
      line: this.parser.line,
      cut: [],
    };
  }

  private programmeEnd(p: Programme): void {
    if (p.start >= this.to) return;
    if (p.stop !== undefined && !overlaps(p.start, p.stop, this.from, this.to)) return;
    if (!matchesGuide(this.rules, p, () => localParts(p.start, this.opts.zone))) return;
    if (p.start >= this.cutoff) {
      this.overCap++;
      return;
    }
    if (p.cut.length > 0) {
      const what = p.cut.map((name) => (name === 'category' ? `more than ${MAX_CATEGORIES} categories` : `a ${name}`));
      this.problems.push(
        `The programme ${quoteShort(p.title ?? '')} on channel ${quoteShort(p.channel)} (line ${p.line}) has ${what.join(', ')} longer than the guide's limits (${MAX_TITLE} characters, ${MAX_DESC} for a desc); ${p.cut.length === 1 ? 'it is' : 'they are'} cut.`,
      );
    }
    flatten(p);
    if (p.stop !== undefined) this.kept.push({ p, stop: p.stop });
    else {
      this.pending.push(p);
      if (this.pending.length >= this.compactAt) this.compact(false);
    }
    if (this.kept.length + this.pending.length > MAX_PROGRAMMES + MAX_PROGRAMMES / 4) this.trim();
  }

  /**
   * Ends the pending programmes by their channel's next start (in start
   * order, whatever the file's order). Before the end of the file a later
   * programme can still end one earlier, never later: a pending programme
   * whose next start known so far is at or before `from` cannot reach the
   * range and is dropped; at the end (`final`) each is kept or dropped for
   * good. Linear in the programmes between two compactions (plus sorting
   * each channel's starts), and the next compaction waits for twice as many
   * pending, so the whole read stays O(n log n).
   */
  private compact(final: boolean): void {
    const byChannel = new Map<string, Programme[]>();
    for (const p of this.pending) {
      const list = byChannel.get(p.channel);
      if (list) list.push(p);
      else byChannel.set(p.channel, [p]);
    }
    const still: Programme[] = [];
    for (const [channel, list] of byChannel) {
      const starts = Float64Array.from(this.starts.get(channel) ?? []).sort();
      for (const p of list) {
        const stop = nextAfter(starts, p.start);
        if (stop === undefined) {
          if (final) {
            this.problems.push(
              `The programme ${quoteShort(p.title ?? '')} on channel ${quoteShort(p.channel)} (line ${p.line}) has no stop and no later programme on its channel; it is left out.`,
            );
          } else still.push(p);
        } else if (stop <= this.from) {
          // ends before the range, whatever comes later
        } else if (final) this.kept.push({ p, stop });
        else still.push(p);
      }
    }
    this.pending = still;
    this.compactAt = Math.max(4096, 2 * still.length);
  }

  /** Keeps the earliest MAX_PROGRAMMES matching programmes; a later one is counted and left out. */
  private trim(): void {
    this.compact(false);
    const all = [
      ...this.kept.map((k) => ({ start: k.p.start, k, p: undefined as Programme | undefined })),
      ...this.pending.map((p) => ({ start: p.start, k: undefined, p })),
    ];
    if (all.length <= MAX_PROGRAMMES) return;
    all.sort((a, b) => a.start - b.start);
    this.cutoff = Math.min(this.cutoff, all[MAX_PROGRAMMES].start);
    const keep = all.filter((x) => x.start < this.cutoff);
    this.overCap += all.length - keep.length;
    this.kept = keep.flatMap((x) => (x.k ? [x.k] : []));
    this.pending = keep.flatMap((x) => (x.p ? [x.p] : []));
    this.compactAt = Math.max(4096, 2 * this.pending.length);
  }

  /** The kept programmes as occurrences, the ones without stop ended by their channel's next programme. */
  finish(): Occurrence[] {
    this.compact(true);
    if (this.kept.length > MAX_PROGRAMMES) this.trim();
    if (this.overCap > 0) {
      this.problems.push(
        `The guide has more than ${MAX_PROGRAMMES.toLocaleString('en')} matching programmes in range; the earliest ${MAX_PROGRAMMES.toLocaleString('en')} are kept, the ${this.overCap.toLocaleString('en')} from ${isoSeconds(this.cutoff)} on are left out.`,
      );
    }
    this.kept.sort((a, b) => a.p.start - b.p.start);
    if (!this.withinTextBudget()) return [];
    const seen = new Set<string>();
    const ids = new Set<string>();
    const out: Occurrence[] = [];
    for (const { p, stop } of this.kept) {
      const episode = p.episodeNs ?? p.episodeOnscreen ?? p.episodeOther;
      let repeat = false;
      if (this.rules.once && episode !== undefined) {
        const key = `${p.title ?? ''}\n${episode}`;
        repeat = seen.has(key);
        seen.add(key);
      }
      let id = episode !== undefined ? `${p.channel}/${episode}` : `${p.channel}/${isoSeconds(p.start)}`;
      if (ids.has(id)) id = `${id}/${isoSeconds(p.start)}`; // the same episode twice on a channel
      ids.add(id);
      (repeat ? this.repeats : out).push(this.occurrence(p, stop, id, episode));
    }
    this.repeats.sort(byStart);
    return out.sort(byStart);
  }

  /**
   * Keeps the kept programmes' text under MAX_KEPT_TEXT (see there), in start order; false (and the
   * reader failed) when their titles, channels and episode numbers alone pass twice that.
   */
  private withinTextBudget(): boolean {
    const len = (text: string | undefined) => text?.length ?? 0;
    let total = 0;
    let stripped = 0;
    let from: number | undefined;
    for (const { p } of this.kept) {
      total += len(p.title) + len(p.channel) + len(p.episodeNs) + len(p.episodeOnscreen) + len(p.episodeOther);
      const rest = len(p.desc) + len(p.subTitle) + p.categories.reduce((n, c) => n + c.length, 0);
      if (total + rest <= MAX_KEPT_TEXT) total += rest;
      else if (rest > 0) {
        p.desc = undefined;
        p.subTitle = undefined;
        p.categories = [];
        stripped++;
        from ??= p.start;
      }
    }
    if (total > 2 * MAX_KEPT_TEXT) {
      this.fail(
        `The guide's matching programmes have more than ${(2 * MAX_KEPT_TEXT) / (1024 * 1024)} M characters of titles; it is refused.`,
      );
      return false;
    }
    if (stripped > 0) {
      this.problems.push(
        `The guide's matching programmes carry more than ${MAX_KEPT_TEXT / (1024 * 1024)} M characters of text; the ${stripped.toLocaleString('en')} from ${isoSeconds(from as number)} on are kept without their desc, sub-title and categories.`,
      );
    }
    return true;
  }

  private occurrence(p: Programme, stop: number, id: string, episode: string | undefined): Occurrence {
    const start = new Date(p.start);
    const end = new Date(stop);
    const details: OccurrenceDetails = { channel: p.channel };
    if (p.desc !== undefined) details.description = p.desc;
    if (p.subTitle !== undefined) details.subtitle = p.subTitle;
    const shown = p.episodeOnscreen ?? (p.episodeNs !== undefined ? onscreenOf(p.episodeNs) : episode);
    if (shown !== undefined) details.episode = shown;
    if (p.categories.length > 0) details.categories = p.categories;
    const sourceId = this.opts.sources?.[p.channel];
    if (sourceId !== undefined) details.sourceId = sourceId;
    return {
      id,
      windowId: this.opts.windowId,
      start,
      end,
      revision: revisionOf(start, end, p.title),
      ...(p.title !== undefined ? { title: p.title } : {}),
      details,
    };
  }
}

/**
 * A kept programme's texts as strings of their own: saxes hands text over as slices of the chunk it
 * came in, and a slice keeps its whole chunk (64 KB) alive as long as the programme is kept.
 */
function flatten(p: Programme): void {
  const own = (text: string | undefined) =>
    text === undefined || text.length < 13 ? text : Buffer.from(text).toString();
  p.title = own(p.title);
  p.subTitle = own(p.subTitle);
  p.desc = own(p.desc);
  p.channel = own(p.channel) as string;
  p.episodeNs = own(p.episodeNs);
  p.episodeOnscreen = own(p.episodeOnscreen);
  p.episodeOther = own(p.episodeOther);
  p.categories = p.categories.map((c) => own(c) as string);
}

/** The smallest start in `sorted` after `t`, or undefined. */
function nextAfter(sorted: Float64Array, t: number): number | undefined {
  let lo = 0;
  let hi = sorted.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (sorted[mid] <= t) lo = mid + 1;
    else hi = mid;
  }
  return lo < sorted.length ? sorted[lo] : undefined;
}

function attr(tag: SaxesTagPlain, name: string): string | undefined {
  const value = tag.attributes[name];
  return typeof value === 'string' && value.trim() !== '' ? value.trim() : undefined;
}

/**
 * Zone names XMLTV's own tools read (XMLTV::TZ, by Date::Manip) and guides
 * write after a time, as hours east of UTC: the unambiguous ones in use in
 * Europe and North America (`20010829000500 BST` is the DTD's own example).
 * An abbreviation that means two zones (IST: India, Ireland, Israel) is not read.
 */
export const XMLTV_ZONES: Readonly<Record<string, number>> = Object.freeze({
  Z: 0,
  UT: 0,
  UTC: 0,
  GMT: 0,
  WET: 0,
  WEST: 1,
  BST: 1,
  CET: 1,
  CEST: 2,
  MET: 1,
  MEST: 2,
  EET: 2,
  EEST: 3,
  MSK: 3,
  AST: -4,
  ADT: -3,
  EST: -5,
  EDT: -4,
  CST: -6,
  CDT: -5,
  MST: -7,
  MDT: -6,
  PST: -8,
  PDT: -7,
  AKST: -9,
  AKDT: -8,
  HST: -10,
});

/**
 * An XMLTV time as the DTD reads it: `YYYYMMDDhhmmss` with the fields from
 * the right optional (`YYYY`, `YYYYMM`, `YYYYMMDD`, `YYYYMMDDhh`, `YYYYMMDDhhmm`:
 * the start of that year, month, day, hour or minute), then an optional zone,
 * a numeric offset (`+0100`, `-05:30`) or a name (`BST`, see XMLTV_ZONES);
 * no zone means UTC. Undefined when it is none.
 */
export function parseXmltvTime(text: string): number | undefined {
  const m =
    /^(\d{4})(?:(\d{2})(?:(\d{2})(?:(\d{2})(?:(\d{2})(?:(\d{2}))?)?)?)?)?\s*(?:([+-])(\d{2}):?(\d{2})|([A-Za-z]{1,5}))?$/.exec(
      text.trim(),
    );
  if (!m) return undefined;
  const [, y, mo = '01', d = '01', h = '0', mi = '0', s = '0', sign, oh, om, name] = m;
  const local = Date.UTC(+y, +mo - 1, +d, +h, +mi, +s);
  const back = new Date(local);
  if (back.getUTCFullYear() !== +y || back.getUTCMonth() !== +mo - 1 || back.getUTCDate() !== +d) return undefined;
  if (+h > 23 || +mi > 59 || +s > 59) return undefined;
  if (name !== undefined) {
    const zone = name.toUpperCase();
    return Object.hasOwn(XMLTV_ZONES, zone) ? local - XMLTV_ZONES[zone] * 3_600_000 : undefined;
  }
  if (!sign) return local;
  if (+oh > 14 || +om > 59) return undefined;
  const offset = (+oh * 60 + +om) * 60_000;
  return sign === '+' ? local - offset : local + offset;
}

/** `1.4.0/1` (zero-based season, episode, part) as `S02E05`; the raw text when it has neither. */
function onscreenOf(ns: string): string {
  const [season, episode] = ns.split('.').map((part) => {
    const n = /^(\d+)/.exec(part);
    return n ? Number(n[1]) + 1 : undefined;
  });
  if (season === undefined && episode === undefined) return ns;
  const two = (n: number) => String(n).padStart(2, '0');
  return `${season !== undefined ? `S${two(season)}` : ''}${episode !== undefined ? `E${two(episode)}` : ''}`;
}

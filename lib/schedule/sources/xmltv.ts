import type { Readable } from 'node:stream';
import type { SaxesParser, SaxesTagPlain } from 'saxes';
import { quoteShort } from '../../quote';
import { isoSeconds, localParts } from '../tz';
import { compileGuideMatch, type GuideMatch, type GuideRules, matchesGuide } from './guide-match';
import { overlaps } from './match';
import { byStart, type Occurrence, type OccurrenceDetails, revisionOf, type SourceResult } from './occurrence';
import { Problems } from './problems';
import { openBody } from './stream-body';

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
}

/** Text kept of one element: a description past this is cut (a programme is not a book). */
const MAX_TEXT = 16 * 1024;
/** Characters between two tags at the most: saxes holds a run of text whole until the next tag. */
const MAX_RUN = 32 * 1024 * 1024;
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
    for await (const chunk of openBody(input)) {
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
  return { occurrences, problems: problems.list() };
}

function readFailure(error: unknown): string {
  const code = (error as { code?: string }).code;
  if (code === 'ERR_ENCODING_INVALID_ENCODED_DATA' || error instanceof TypeError) {
    return 'The guide is not UTF-8 text (it has bytes that are not UTF-8); only UTF-8 guides are read.';
  }
  if (code === 'Z_DATA_ERROR' || code === 'Z_BUF_ERROR') return 'The guide is gzip data that is corrupt or cut off.';
  const message = error instanceof Error ? error.message : String(error);
  return `The guide cannot be read: ${message.replace(/[.\s]+$/, '')}.`;
}

class GuideReader {
  failed: string | undefined;
  private readonly parser: SaxesParser;
  private current: Programme | undefined;
  private field: { name: string; system?: string; text: string } | undefined;
  private sawRoot = false;
  private blank = true;
  /** characters written since the last tag (see MAX_RUN) */
  private sinceTag = 0;
  private readonly from: number;
  private readonly to: number;
  private readonly kept: Array<{ p: Programme; stop: number }> = [];
  /** matching programmes without stop, by channel, until the channel's next programme ends them */
  private readonly open = new Map<string, Programme[]>();

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
    this.sinceTag += text.length;
    if (this.sinceTag > MAX_RUN) {
      this.fail(`The guide has more than 32 MB of text without markup (from line ${this.parser.line}); it is refused.`);
      return;
    }
    this.parser.write(text);
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
    else if (TEXT_ELEMENTS.has(tag.name)) this.field = { name: tag.name, system: attr(tag, 'system'), text: '' };
  }

  private text(text: string): void {
    const f = this.field;
    if (f && f.text.length < MAX_TEXT) f.text += text.slice(0, MAX_TEXT - f.text.length);
  }

  private close_(name: string): void {
    this.sinceTag = 0;
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
    if (name === 'title') p.title ??= text;
    else if (name === 'sub-title') p.subTitle ??= text;
    else if (name === 'desc') p.desc ??= text;
    else if (name === 'category') p.categories.push(text);
    else if (f.system === 'xmltv_ns') p.episodeNs ??= text.replace(/\s+/g, '');
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
    const start = parseXmltvTime(startText);
    if (start === undefined) {
      this.problems.push(`${this.where(channel, startText)} has a start that is not an XMLTV time; it is left out.`);
      return;
    }
    // the next programme on a channel ends the ones before it that had no stop
    for (const p of this.open.get(channel) ?? [])
      if (p.start < start && (p.stop === undefined || start < p.stop)) p.stop = start;
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
    };
  }

  private programmeEnd(p: Programme): void {
    if (p.start >= this.to) return;
    if (p.stop !== undefined && !overlaps(p.start, p.stop, this.from, this.to)) return;
    if (!matchesGuide(this.rules, p, () => localParts(p.start, this.opts.zone))) return;
    if (p.stop !== undefined) {
      this.kept.push({ p, stop: p.stop });
      return;
    }
    let list = this.open.get(p.channel);
    if (!list) {
      list = [];
      this.open.set(p.channel, list);
    }
    list.push(p);
  }

  /** The kept programmes as occurrences, the ones without stop ended by their channel's next programme. */
  finish(): Occurrence[] {
    for (const list of this.open.values()) {
      for (const p of list) {
        if (p.stop === undefined) {
          this.problems.push(
            `The programme ${quoteShort(p.title ?? '')} on channel ${quoteShort(p.channel)} (line ${p.line}) has no stop and no later programme on its channel; it is left out.`,
          );
        } else if (overlaps(p.start, p.stop, this.from, this.to)) this.kept.push({ p, stop: p.stop });
      }
    }
    this.kept.sort((a, b) => a.p.start - b.p.start);
    const seen = new Set<string>();
    const ids = new Set<string>();
    const out: Occurrence[] = [];
    for (const { p, stop } of this.kept) {
      const episode = p.episodeNs ?? p.episodeOnscreen ?? p.episodeOther;
      if (this.rules.once && episode !== undefined) {
        const key = `${p.title ?? ''}\n${episode}`;
        if (seen.has(key)) continue;
        seen.add(key);
      }
      let id = episode !== undefined ? `${p.channel}/${episode}` : `${p.channel}/${isoSeconds(p.start)}`;
      if (ids.has(id)) id = `${id}/${isoSeconds(p.start)}`; // the same episode twice on a channel
      ids.add(id);
      out.push(this.occurrence(p, stop, id, episode));
    }
    return out.sort(byStart);
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

function attr(tag: SaxesTagPlain, name: string): string | undefined {
  const value = tag.attributes[name];
  return typeof value === 'string' && value.trim() !== '' ? value.trim() : undefined;
}

/**
 * An XMLTV time: `YYYYMMDDhhmmss +HHMM`, the fields from the right optional,
 * the offset too (the DTD: no zone means UTC). Undefined when it is none.
 */
export function parseXmltvTime(text: string): number | undefined {
  const m = /^(\d{4})(\d{2})(\d{2})(?:(\d{2})(\d{2})(?:(\d{2}))?)?\s*(?:([+-])(\d{2}):?(\d{2})|Z|UTC|GMT)?$/.exec(
    text.trim(),
  );
  if (!m) return undefined;
  const [, y, mo, d, h = '0', mi = '0', s = '0', sign, oh, om] = m;
  const local = Date.UTC(+y, +mo - 1, +d, +h, +mi, +s);
  const back = new Date(local);
  if (back.getUTCMonth() !== +mo - 1 || back.getUTCDate() !== +d || +h > 23 || +mi > 59 || +s > 59) return undefined;
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

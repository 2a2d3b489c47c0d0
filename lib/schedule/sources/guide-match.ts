import { quoteShort } from '../../quote';
import { FEED_WINDOW_DEFAULTS } from '../feed-defaults';
import type { LocalParts } from '../tz';
import { compileRegex, type TitlePattern } from './match';

export const WEEKDAYS = ['sun', 'mon', 'tue', 'wed', 'thu', 'fri', 'sat'] as const;
type Weekday = (typeof WEEKDAYS)[number];

/** A guide window's rules: every one given must hold (days and `between` in the window's zone). */
export interface GuideMatch {
  /** the guide's channel id, or several */
  channel?: string | string[];
  /** a regular expression the title must match */
  title?: string;
  /** the programme has at least one of these categories (case does not matter) */
  categories?: string[];
  /** the weekdays it starts on: mon..sun */
  days?: string[];
  /** `HH:MM-HH:MM`: it starts in this range (the end excluded; `22:00-02:00` spans midnight) */
  between?: string;
  /** leave out programmes the guide marks as shown before (and not as new); unmarked ones are kept */
  new_only?: boolean;
  /** `once`: the same title and episode is kept once per rule, its first showing; `all` (default) */
  duplicates?: 'once' | 'all';
}

export interface GuideRules {
  channels?: Set<string>;
  title?: TitlePattern;
  categories?: Set<string>;
  days?: Set<number>;
  between?: { from: number; to: number };
  newOnly: boolean;
  once: boolean;
}

interface MatchedProgramme {
  channel: string;
  title?: string;
  categories: string[];
  previouslyShown: boolean;
  isNew: boolean;
}

/** The rules compiled, or the one sentence that says what is wrong with them. */
export function compileGuideMatch(match: GuideMatch | undefined): GuideRules | string {
  const rules: GuideRules = {
    newOnly: match?.new_only ?? FEED_WINDOW_DEFAULTS.new_only,
    once: (match?.duplicates ?? FEED_WINDOW_DEFAULTS.duplicates) === 'once',
  };
  if (!match) return rules;
  if (match.channel !== undefined) {
    rules.channels = new Set(Array.isArray(match.channel) ? match.channel : [match.channel]);
  }
  if (match.title !== undefined && match.title !== '') {
    const title = compileRegex(match.title, 'title');
    if (typeof title === 'string') return title;
    rules.title = title;
  }
  if (match.categories !== undefined && match.categories.length > 0) {
    rules.categories = new Set(match.categories.map((c) => c.toLowerCase()));
  }
  if (match.days !== undefined && match.days.length > 0) {
    const days = new Set<number>();
    for (const day of match.days) {
      const index = WEEKDAYS.indexOf(String(day).slice(0, 3).toLowerCase() as Weekday);
      if (index < 0)
        return `The day ${quoteShort(String(day))} is not a weekday (use mon, tue, wed, thu, fri, sat, sun).`;
      days.add(index);
    }
    rules.days = days;
  }
  if (match.between !== undefined) {
    const range = parseBetween(match.between);
    if (range === undefined) {
      return `The time range ${quoteShort(match.between)} is not HH:MM-HH:MM (for example 17:00-21:00).`;
    }
    rules.between = range;
  }
  return rules;
}

function parseBetween(text: string): { from: number; to: number } | undefined {
  const m = /^\s*(\d{1,2}):(\d{2})\s*-\s*(\d{1,2}):(\d{2})\s*$/.exec(text);
  if (!m) return undefined;
  const [h1, m1, h2, m2] = m.slice(1).map(Number);
  if (h1 > 24 || h2 > 24 || m1 > 59 || m2 > 59) return undefined;
  return { from: h1 * 60 + m1, to: h2 * 60 + m2 };
}

/**
 * Whether a programme matches; `local` gives its start's wall-clock fields in
 * the window's zone, asked for only when a rule needs them (Intl is the costly part).
 */
export function matchesGuide(rules: GuideRules, p: MatchedProgramme, localOf: () => LocalParts): boolean {
  if (rules.channels && !rules.channels.has(p.channel)) return false;
  if (rules.title && !rules.title.test(p.title ?? '')) return false;
  if (rules.categories && !p.categories.some((c) => rules.categories?.has(c.toLowerCase()))) return false;
  if (rules.newOnly && p.previouslyShown && !p.isNew) return false;
  if (!rules.days && !rules.between) return true;
  const local = localOf();
  if (rules.days && !rules.days.has(local.weekday)) return false;
  if (rules.between) {
    const minute = local.hour * 60 + local.minute;
    const { from, to } = rules.between;
    const inside = from <= to ? minute >= from && minute < to : minute >= from || minute < to;
    if (!inside) return false;
  }
  return true;
}

import { DurationError } from './duration';
import { type Padding, parsePadding } from './sources/occurrence';
import { type FeedWindowSource, parseSourceWindow } from './sources/window-config';

/**
 * Where a window's occurrences come from: its cron (the default), a calendar
 * or a programme guide (a feed), or `windows` messages an upstream flow sends.
 */
export type WindowSource = CronWindowSource | FeedWindowSource | MessagesWindowSource;

export interface CronWindowSource {
  kind: 'cron';
}

export interface MessagesWindowSource {
  kind: 'messages';
  id: string;
  padding: Padding;
}

/** The fields a window may carry besides the common ones, only with a feed or messages. */
export const SOURCE_FIELDS = [
  'ical',
  'xmltv',
  'messages',
  'match',
  'padding',
  'refresh',
  'on_cancel',
  'allow_empty',
  'all_day',
  'default_duration',
  'sources',
] as const;

const KINDS = ['cron', 'ical', 'xmltv', 'messages'] as const;
const FEED_ONLY = ['match', 'refresh', 'on_cancel', 'allow_empty'] as const;

type Problem = { at: (string | number)[]; message: string };

/**
 * A window's source, read from its raw fields: exactly one of cron, ical,
 * xmltv or messages; each problem names its field.
 */
export function readWindowSource(w: Record<string, unknown>): { source?: WindowSource; problems: Problem[] } {
  const kinds = KINDS.filter((k) => w[k] !== undefined);
  if (kinds.length === 0) {
    return { problems: [{ at: ['cron'], message: 'is required (or ical, xmltv or messages: true)' }] };
  }
  if (kinds.length > 1) {
    return {
      problems: [
        {
          at: [kinds[1]],
          message: `a window takes its times from one of cron, ical, xmltv or messages, not ${kinds.join(' and ')}`,
        },
      ],
    };
  }
  const kind = kinds[0];
  if (kind === 'cron')
    return { source: { kind: 'cron' }, problems: onlyWith(w, SOURCE_FIELDS, 'a calendar, a guide or messages') };
  if (kind === 'messages') return messagesSource(w);
  const parsed = parseSourceWindow(w);
  if (!parsed.ok) {
    return { problems: parsed.issues.map((i) => ({ at: i.path === '' ? [] : i.path.split('.'), message: i.message })) };
  }
  const wrong =
    kind === 'ical' ? onlyWith(w, ['sources'], 'a guide') : onlyWith(w, ['all_day', 'default_duration'], 'a calendar');
  return wrong.length ? { problems: wrong } : { source: parsed.window, problems: [] };
}

function messagesSource(w: Record<string, unknown>): { source?: WindowSource; problems: Problem[] } {
  if (w.messages !== true)
    return { problems: [{ at: ['messages'], message: 'must be true (the window takes its times from messages)' }] };
  const problems = onlyWith(w, [...FEED_ONLY, 'all_day', 'default_duration', 'sources'], 'a calendar or a guide');
  let padding: Padding = { before: 0, after: 0 };
  try {
    padding = parsePadding(w.padding as { before?: unknown; after?: unknown } | undefined);
  } catch (err) {
    problems.push({ at: ['padding'], message: err instanceof DurationError ? err.message : String(err) });
  }
  return problems.length ? { problems } : { source: { kind: 'messages', id: String(w.id), padding }, problems };
}

function onlyWith(w: Record<string, unknown>, fields: readonly string[], what: string): Problem[] {
  return fields
    .filter((f) => w[f] !== undefined)
    .map((f) => ({ at: [f], message: `is read only for a window that takes its times from ${what}` }));
}

import { z } from 'zod';
import { quoteShort } from '../../quote';
import { DurationError, parseDuration } from '../duration';
import { FEED_WINDOW_DEFAULTS } from '../feed-defaults';
import { ID_PATTERN } from '../ids';
import { compileGuideMatch, type GuideMatch, WEEKDAYS } from './guide-match';
import { compileRegex } from './match';
import { type Padding, paddingMs } from './occurrence';

/**
 * The fields of a schedule window that takes its occurrences from a feed, as
 * the schedule document writes them:
 *
 * ```yaml
 * - id: newsroom
 *   ical: https://calendar.example.com/newsroom.ics   # or a file path
 *   match: { title: "^REC " }
 *   padding: { before: 2m, after: 5m }
 *   all_day: false            # all-day events are left out unless true
 *   default_duration: 1h      # a timed event without DTEND or DURATION
 *   refresh: 15m              # default 15m
 *   on_cancel: keep           # a recording whose occurrence is cancelled: keep (default) runs to its end, stop
 * - id: doctor-who
 *   xmltv: /data/guide.xml.gz
 *   match: { channel: bbc1.uk, title: "^Doctor Who$", days: [sat], between: "17:00-21:00", new_only: true }
 *   padding: { before: 1m, after: 10m }
 *   sources: { bbc1.uk: 3c0f… }   # guide channel id -> live source id
 * ```
 *
 * The schemas check these fields only and let the window's other fields
 * (name, timezone, enabled, channel, followup) through, for the schedule
 * document's own schema to check.
 */

export const ON_CANCEL = ['keep', 'stop'] as const;
export type OnCancel = (typeof ON_CANCEL)[number];

/** ms: how often a feed is fetched again when the window names no `refresh` */
export const DEFAULT_REFRESH_MS = FEED_WINDOW_DEFAULTS.refreshMs;
/** ms: the shortest `refresh` a window may ask for (a feed server is somebody else's) */
export const MIN_REFRESH_MS = 60_000;

interface SourceCommon {
  id: string;
  /** URL (http, https, webcal, file) or file path */
  location: string;
  padding: Padding;
  /** ms */
  refresh: number;
  onCancel: OnCancel;
  /** a feed that suddenly reads to nothing is taken as it is rather than as broken */
  allowEmpty: boolean;
}

export interface IcalWindowSource extends SourceCommon {
  kind: 'ical';
  match: { title?: string };
  allDay: boolean;
  /** ms */
  defaultDuration?: number;
}

export interface XmltvWindowSource extends SourceCommon {
  kind: 'xmltv';
  match: GuideMatch;
  /** guide channel id -> live source id */
  sources: Record<string, string>;
}

export type FeedWindowSource = IcalWindowSource | XmltvWindowSource;

const text = (what: string) =>
  z.string({ error: (iss) => (iss.input === undefined ? 'is required' : `must be ${what}`) });

/** A strict mapping's error: an unknown field is named; anything else is not the mapping it should be. */
const mapping =
  (what: string) =>
  (iss: { code?: string; keys?: string[] }): string =>
    iss.code === 'unrecognized_keys' && iss.keys
      ? `has no field ${iss.keys.map((k) => quoteShort(k)).join(', ')}`
      : `must be ${what}`;

const DurationInput = z.union([z.string(), z.number()], {
  error: 'must be a duration such as 90s, 2m, 1h30m or a number of seconds',
});

/** A duration in ms; padding also takes 0 (none). */
const durationMs = (padding: boolean) =>
  DurationInput.transform((value, ctx) => {
    try {
      return padding ? paddingMs(value) : parseDuration(value) * 1000;
    } catch (error) {
      ctx.addIssue({ code: 'custom', message: error instanceof DurationError ? error.message : String(error) });
      return z.NEVER;
    }
  });

const LocationSchema = text('a URL (http, https, webcal) or a file path')
  .trim()
  .min(1, 'must not be empty')
  .superRefine((value, ctx) => {
    const scheme = /^([a-z][a-z0-9+.-]*):\/\//i.exec(value)?.[1]?.toLowerCase();
    if (scheme === undefined) return;
    if (!['http', 'https', 'webcal', 'webcals', 'file'].includes(scheme)) {
      ctx.addIssue({ code: 'custom', message: `must be an http, https, webcal or file address, not ${scheme}:` });
      return;
    }
    try {
      new URL(value);
    } catch {
      ctx.addIssue({ code: 'custom', message: `${quoteShort(value)} is not a valid URL` });
    }
  });

const RegexSchema = text('a regular expression').superRefine((value, ctx) => {
  const compiled = compileRegex(value, 'title');
  if (typeof compiled === 'string') ctx.addIssue({ code: 'custom', message: compiled });
});

const PaddingSchema = z.strictObject(
  { before: durationMs(true).optional(), after: durationMs(true).optional() },
  { error: mapping('a mapping such as { before: 2m, after: 5m }') },
);

const common = {
  id: text('a window id').regex(
    ID_PATTERN,
    'must be 1-64 letters, digits, "-", "_" or "." (starting with a letter or digit)',
  ),
  padding: PaddingSchema.optional(),
  refresh: durationMs(false)
    .refine((ms) => ms >= MIN_REFRESH_MS, { message: 'must be at least 1m (a feed server is not to be hammered)' })
    .optional(),
  on_cancel: z.enum(ON_CANCEL, { error: `must be one of ${ON_CANCEL.join(', ')}` }).optional(),
  allow_empty: z.boolean({ error: 'must be true or false' }).optional(),
};

const IcalMatchSchema = z.strictObject(
  { title: RegexSchema.optional() },
  { error: mapping('a mapping such as { title: "^REC " }') },
);

const GuideMatchSchema = z
  .strictObject(
    {
      channel: z.union([text('a channel id'), z.array(text('a channel id'))], {
        error: 'must be a channel id or a list of them',
      }),
      title: RegexSchema,
      categories: z.array(text('a category'), { error: 'must be a list of categories' }),
      days: z.array(z.enum(WEEKDAYS, { error: `must be one of ${WEEKDAYS.join(', ')}` }), {
        error: 'must be a list of weekdays such as [sat, sun]',
      }),
      between: text('a time range such as 17:00-21:00'),
      new_only: z.boolean({ error: 'must be true or false' }),
      duplicates: z.enum(['once', 'all'], { error: 'must be once or all' }),
    },
    { error: mapping('a mapping of rules such as { channel: bbc1.uk, title: "^News" }') },
  )
  .partial()
  .superRefine((match, ctx) => {
    const compiled = compileGuideMatch(match);
    // the title's own issue is already raised by its field
    if (typeof compiled === 'string' && !compiled.startsWith('The title pattern')) {
      ctx.addIssue({ code: 'custom', message: compiled, path: match.between !== undefined ? ['between'] : [] });
    }
  });

/** A window of the schedule document that reads an iCalendar feed. */
export const IcalWindowSchema = z.looseObject({
  ...common,
  ical: LocationSchema,
  match: IcalMatchSchema.optional(),
  all_day: z.boolean({ error: 'must be true or false' }).optional(),
  default_duration: durationMs(false).optional(),
});

/** A window of the schedule document that reads an XMLTV programme guide. */
export const XmltvWindowSchema = z.looseObject({
  ...common,
  xmltv: LocationSchema,
  match: GuideMatchSchema.optional(),
  sources: z
    .record(text('a channel id'), text('a live source id').min(1, 'must not be empty'), {
      error: 'must be a mapping of guide channel id to live source id',
    })
    .optional(),
});

export interface SourceWindowIssue {
  /** the field, as a path in the window: `padding.before`, `match.title` */
  path: string;
  message: string;
}

export type SourceWindowResult = { ok: true; window: FeedWindowSource } | { ok: false; issues: SourceWindowIssue[] };

/** Whether a window of the schedule document takes its occurrences from a feed (it has `ical` or `xmltv`). */
export function isFeedWindow(raw: unknown): boolean {
  return typeof raw === 'object' && raw !== null && ('ical' in raw || 'xmltv' in raw);
}

/**
 * A feed window's source fields checked and normalised (durations in ms,
 * defaults filled in); each issue names its field.
 */
export function parseSourceWindow(raw: unknown): SourceWindowResult {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) {
    return { ok: false, issues: [{ path: '', message: 'a window must be a mapping' }] };
  }
  const clash = sourceClash(raw);
  if (clash) return { ok: false, issues: [clash] };
  if ('xmltv' in raw) {
    const parsed = XmltvWindowSchema.safeParse(raw);
    if (!parsed.success) return { ok: false, issues: issuesOf(parsed.error) };
    const w = parsed.data;
    return {
      ok: true,
      window: {
        kind: 'xmltv',
        ...commonOf(w, w.xmltv),
        match: w.match ?? {},
        sources: w.sources ?? {},
      },
    };
  }
  const parsed = IcalWindowSchema.safeParse(raw);
  if (!parsed.success) return { ok: false, issues: issuesOf(parsed.error) };
  const w = parsed.data;
  return {
    ok: true,
    window: {
      kind: 'ical',
      ...commonOf(w, w.ical),
      match: w.match ?? {},
      allDay: w.all_day ?? FEED_WINDOW_DEFAULTS.all_day,
      ...(w.default_duration !== undefined ? { defaultDuration: w.default_duration } : {}),
    },
  };
}

/** A window reads one feed, and not beside cron. */
function sourceClash(raw: object): SourceWindowIssue | undefined {
  if ('ical' in raw && 'xmltv' in raw) {
    return { path: 'xmltv', message: 'a window reads either an ical or an xmltv feed, not both' };
  }
  if ('cron' in raw) return { path: 'cron', message: 'a window takes its times from cron or from a feed, not both' };
  return undefined;
}

function commonOf(
  w: {
    id: string;
    padding?: { before?: number; after?: number };
    refresh?: number;
    on_cancel?: OnCancel;
    allow_empty?: boolean;
  },
  location: string,
): SourceCommon {
  return {
    id: w.id,
    location,
    padding: { before: w.padding?.before ?? 0, after: w.padding?.after ?? 0 },
    refresh: w.refresh ?? DEFAULT_REFRESH_MS,
    onCancel: w.on_cancel ?? FEED_WINDOW_DEFAULTS.on_cancel,
    allowEmpty: w.allow_empty ?? FEED_WINDOW_DEFAULTS.allow_empty,
  };
}

function issuesOf(error: z.ZodError): SourceWindowIssue[] {
  return error.issues.map((issue) => ({ path: issue.path.map(String).join('.'), message: issue.message }));
}

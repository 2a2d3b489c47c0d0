import { isMap, isPair, isScalar, isSeq, LineCounter, parseDocument, stringify, type Node as YamlNode } from 'yaml';
import { z } from 'zod';
import { CHANNEL_FIELDS, type ChannelField, channelFieldsFromText } from '../channel-fields';
import { MediaSpacesError, quoteShort } from '../errors';
import { isPlainObject } from '../guards';
import type { InputKind } from '../rules';
import { ChannelCreateRequest, UUID_PATTERN } from '../schemas';
import { describeType } from '../submit-input';
import { cronError } from './cron';
import { DurationError, parseDuration } from './duration';
import { FEED_WINDOW_DEFAULTS } from './feed-defaults';
import { ID_PATTERN } from './ids';
import type { ScheduleIssue } from './issues';
import { DEFAULT_RERECORD, type RerecordRule } from './rerecord';
import { checkTemplates, renderTemplates } from './template';
import { templateContext } from './template-context';
import { canonicalTimeZone, isValidTimeZone, systemTimeZone } from './tz';
import { readWindowSource, SOURCE_FIELDS, type WindowSource } from './window-source';

/**
 * The schedule document (YAML, or the same object built by the editor):
 *
 * ```yaml
 * schedule_id: studio-a        # optional; part of every slot key (default: the node id)
 * timezone: Europe/London      # optional default zone of the windows
 * windows:
 *   - id: evening-news         # stable: used in slot keys
 *     name: Evening news
 *     cron: "0 18 * * mon-fri" # start times (node-cron syntax, optional seconds field)
 *     timezone: Europe/London
 *     duration: 1h30m          # 90m, 1h30m, PT1H30M, 5400 (seconds)
 *     enabled: true
 *     at_end: stop             # stop (default): the recording is stopped at the window's end; keep: it runs on
 *     alarm_after: 30s         # a start still failing this long after the window opened is reported (start_failing)
 *     priority: 2              # more overlapping than max_channels: higher records (default 0; ties: earlier start, then window order)
 *     rerecord: { within: 7d, min_lost: 10% }  # calendar and guide windows: a missed slot is recorded at the next airing
 *     channel: { ...create-channel request, templates allowed... }
 *     followup: { workflow_id, job_name, variables, media_nicknames, attachments, labels }
 * ```
 */

/** A window's channel template (create-channel request fields, templates allowed), as the schema reads it. */
export type ChannelTemplate = z.infer<typeof ChannelSchema>;

/** A window's follow-up template (a submit-job request: workflow_id or a workflow name, job name, inputs). */
export type FollowupTemplate = z.infer<typeof FollowupSchema>;

type RawDocument = z.infer<typeof DocumentSchema>;
type RawWindow = z.infer<typeof WindowSchema>;

/**
 * A window after normalisation (see normaliseWindow): the schema's fields with
 * the defaults filled in, the zone canonical and the duration in seconds.
 */
export type ScheduleWindow = Required<Pick<RawWindow, 'id' | 'name' | 'enabled' | 'channel' | 'at_end'>> &
  Pick<RawWindow, 'followup'> & {
    /** the cron of a cron window; '' for a window whose occurrences come from a feed or messages */
    cron: string;
    /** where the occurrences come from (absent in windows saved by earlier versions: cron) */
    source?: WindowSource;
    /** seconds after the start at which a start still failing is reported (start_failing); default 30 */
    alarm_after?: number;
    /** over max_channels, higher records (lib/schedule/conflicts decideConflicts); absent: 0 */
    priority?: number;
    /** calendar and guide windows: a slot missed (or mostly lost) is recorded at the next airing (lib/schedule/rerecord) */
    rerecord?: RerecordRule;
    /** IANA zone, canonical spelling */
    timezone: string;
    /** seconds: a cron window's length; a listed window's manual start (and a calendar event's default) */
    duration: number;
  };

/** A schedule after normalisation: the document's zone resolved (or the default), its windows normalised. */
export interface ScheduleConfig {
  scheduleId?: RawDocument['schedule_id'];
  timezone: string;
  windows: ScheduleWindow[];
  /** the space's limit of concurrent channels: over it, the windows' priorities decide which occurrences record */
  maxChannels?: number;
}

export type { ScheduleIssue } from './issues';

export interface ParseOptions {
  /** zone of windows that name none, when the document names none either (default: the machine's) */
  defaultTimezone?: string;
}

export type ParseResult =
  | { ok: true; config: ScheduleConfig; raw: unknown }
  | { ok: false; issues: ScheduleIssue[]; raw?: unknown };

export { ID_PATTERN } from './ids';

/** A window and slot to fill the template context with before any slot exists (checks at load time). */
const SAMPLE_START = Date.UTC(2000, 0, 1);

function sampleContext(w: Partial<RawWindow>): Record<string, unknown> {
  let duration = 3600;
  try {
    duration = parseDuration(w.duration ?? 3600);
  } catch {
    /* reported elsewhere */
  }
  const id = typeof w.id === 'string' ? w.id : 'window';
  const window: ScheduleWindow = {
    id,
    name: w.name ?? id,
    cron: typeof w.cron === 'string' ? w.cron : '',
    timezone: isValidTimeZone(w.timezone) ? w.timezone : 'UTC',
    duration,
    enabled: true,
    at_end: 'stop',
    channel: {},
  };
  // a programme as a calendar or guide gives one, so that `occurrence.*` templates check as they will render
  const programme = {
    title: 'Sample programme',
    description: 'Sample description',
    subtitle: 'Sample episode',
    channel: 'sample.channel',
    episode: '1.2.',
    categories: ['News'],
    location: 'Studio',
    sourceId: '00000000-0000-4000-8000-000000000000',
    start: SAMPLE_START,
    end: SAMPLE_START,
  };
  const slot = {
    key: `schedule:${id}:2000-01-01T00:00:00Z`,
    windowId: id,
    start: SAMPLE_START,
    end: SAMPLE_START,
    programme,
  };
  return templateContext('schedule', window, { ...slot, reason: 'scheduled' });
}

const fieldsOf = (root: 'window' | 'slot' | 'occurrence'): readonly string[] => {
  const value = sampleContext({})[root];
  return isPlainObject(value) ? Object.keys(value) : [];
};

/** Template fields of `window` and `slot`: exactly those the messages' template context gives. */
export const WINDOW_FIELDS = fieldsOf('window');
export const SLOT_FIELDS = fieldsOf('slot');
export const OCCURRENCE_FIELDS = fieldsOf('occurrence');
/** Template roots and fields allowed in the channel (before it exists) and in the follow-up. */
const CHANNEL_ROOTS = {
  window: WINDOW_FIELDS,
  slot: SLOT_FIELDS,
  schedule: ['id'],
  occurrence: OCCURRENCE_FIELDS,
} as const;
const FOLLOWUP_ROOTS = { ...CHANNEL_ROOTS, channel: 'any', segments: 'any' } as const;

/** A schedule document that does not validate; `issues` name line and field. */
export class ScheduleConfigError extends MediaSpacesError {
  readonly issues: ScheduleIssue[];

  constructor(issues: ScheduleIssue[], context = 'Schedule') {
    const lines = issues.map(formatIssue);
    // prototype-free: a field called "constructor" or "__proto__" is reported like any other
    const fieldErrors: Record<string, string> = Object.create(null);
    for (const issue of issues) {
      const key = issue.path || '(schedule)';
      if (!Object.hasOwn(fieldErrors, key))
        fieldErrors[key] = issue.line ? `line ${issue.line}: ${issue.message}` : issue.message;
    }
    super({
      code: 'invalid_input',
      message: `${context} is invalid: ${lines.slice(0, 5).join('; ')}${lines.length > 5 ? `; and ${lines.length - 5} more` : ''}`,
      fieldErrors,
    });
    this.name = 'ScheduleConfigError';
    this.issues = issues;
  }
}

/** `line 7: windows[1].cron: "61 * * * *" is not a valid cron expression (minute 61 out of range 0-59)` */
export function formatIssue(issue: ScheduleIssue): string {
  const where = issue.line ? `line ${issue.line}: ` : '';
  return `${where}${issue.path ? `${issue.path}: ` : ''}${issue.message}`;
}

/** `windows[1].channel.name` */
export function formatPath(path: readonly PropertyKey[]): string {
  let out = '';
  for (const seg of path) {
    if (typeof seg === 'number') out += `[${seg}]`;
    else if (typeof seg === 'string' && /^[A-Za-z_$][\w$-]*$/.test(seg)) out += out ? `.${seg}` : seg;
    else out += `[${JSON.stringify(String(seg))}]`;
  }
  return out;
}

// ------------------------------------------------------------ schema

const expectedWord = (expected: unknown): string => {
  switch (expected) {
    case 'string':
      return 'text';
    case 'number':
    case 'int':
      return 'a number';
    case 'boolean':
      return 'true or false';
    case 'object':
    case 'record':
      return 'a mapping (key: value)';
    case 'array':
      return 'a list';
    default:
      return String(expected);
  }
};

type RawIssue = { code?: string; input?: unknown; expected?: unknown };

const genericError = (iss: RawIssue): string | undefined => {
  if (iss.code === 'invalid_type') {
    return iss.input === undefined
      ? 'is required'
      : `must be ${expectedWord(iss.expected)}, got ${describeType(iss.input)}`;
  }
  return undefined;
};

const oneOf = (what: string) => (iss: RawIssue) =>
  iss.input === undefined ? 'is required' : `must be ${what}, got ${describeType(iss.input)}`;

const idString = (what: string) =>
  z
    .string({ error: genericError })
    .regex(ID_PATTERN, `${what} must be 1-64 letters, digits, "-", "_" or "." (starting with a letter or digit)`);

const TimeZoneSchema = z.string({ error: genericError }).refine(isValidTimeZone, {
  error: (iss) => `${shown(iss.input)} is not an IANA time zone known here (e.g. Europe/London, America/New_York, UTC)`,
});

const CronSchema = z.string({ error: genericError }).superRefine((value, ctx) => {
  const reason = cronError(value);
  if (reason)
    ctx.addIssue({ code: 'custom', message: `${quoteShort(value)} is not a valid cron expression (${reason})` });
});

const DurationSchema = z
  .union([z.string(), z.number()], { error: oneOf('a duration such as 90m, 1h30m, PT1H or a number of seconds') })
  .superRefine((value, ctx) => {
    try {
      parseDuration(value);
    } catch (err) {
      ctx.addIssue({ code: 'custom', message: err instanceof DurationError ? err.message : String(err) });
    }
  });

/**
 * How a window writes a create-request field that is not text: its own type,
 * or text (a template) channelFieldsFromText reads as it. Every other field
 * of the request (CHANNEL_FIELDS, the library's list) is text.
 */
const CHANNEL_FIELD_FORMS = {
  expected_properties: z
    .union([z.string(), z.record(z.string(), z.unknown())], {
      error: oneOf('a JSON string or a mapping'),
    })
    .optional(),
  continuous_recording: z.union([z.boolean(), z.string()], { error: oneOf('true, false or a template') }).optional(),
  recording_duration: z
    .union([z.number(), z.string()], { error: oneOf('a whole number of hours or a template') })
    .optional(),
  tags: z.array(z.string({ error: genericError }), { error: genericError }).optional(),
} satisfies Partial<Record<ChannelField, z.ZodType>>;

const channelText = () => z.string({ error: genericError }).optional();
type ChannelShape = {
  [F in ChannelField]: F extends keyof typeof CHANNEL_FIELD_FORMS
    ? (typeof CHANNEL_FIELD_FORMS)[F]
    : ReturnType<typeof channelText>;
};
const forms: Partial<Record<ChannelField, z.ZodType>> = CHANNEL_FIELD_FORMS;

const ChannelSchema = z.strictObject(
  Object.fromEntries(CHANNEL_FIELDS.map((field) => [field, forms[field] ?? channelText()])) as ChannelShape,
  { error: genericError },
);

/** How a follow-up writes each kind of input (INPUT_KINDS, the one list): the submit request's short form. */
const FOLLOWUP_INPUTS = {
  variables: z.record(z.string(), z.unknown(), { error: genericError }).optional(),
  media_nicknames: z
    .record(
      z.string(),
      z.union([z.string(), z.array(z.string()), z.record(z.string(), z.unknown())], {
        error: oneOf('a file URI, a list of files or a mapping'),
      }),
      { error: genericError },
    )
    .optional(),
  attachments: z
    .record(
      z.string(),
      z.union([z.string(), z.record(z.string(), z.unknown())], { error: oneOf('a file URI or a mapping') }),
      { error: genericError },
    )
    .optional(),
  labels: z
    .record(z.string(), z.record(z.string(), z.unknown(), { error: genericError }), { error: genericError })
    .optional(),
} satisfies Record<InputKind, z.ZodType>;

const FollowupSchema = z.strictObject(
  {
    workflow_id: z.string({ error: genericError }).optional(),
    workflow: z.string({ error: genericError }).optional(),
    job_name: z.string({ error: genericError }).optional(),
    ...FOLLOWUP_INPUTS,
  },
  { error: genericError },
);

/** `min_lost`: a share as `10%` or a fraction from 0 to 1. */
const ShareSchema = z
  .union([z.string(), z.number()], { error: oneOf('a share such as 10% or 0.1') })
  .superRefine((value, ctx) => {
    if (shareOf(value) === undefined)
      ctx.addIssue({ code: 'custom', message: 'must be a share from 0% to 100% (or 0 to 1)' });
  });

function shareOf(value: string | number): number | undefined {
  const n =
    typeof value === 'number' ? value : /^\s*\d+(\.\d+)?\s*%\s*$/.test(value) ? Number.parseFloat(value) / 100 : NaN;
  return Number.isFinite(n) && n >= 0 && n <= 1 ? n : undefined;
}

/** A window's `rerecord`: `true` (the defaults), or `{ within: 7d, min_lost: 10% }`. */
const RerecordSchema = z.union(
  [
    z.literal(true),
    z.strictObject({ within: DurationSchema.optional(), min_lost: ShareSchema.optional() }, { error: genericError }),
  ],
  { error: oneOf('true or a mapping with within and min_lost') },
);

function normaliseRerecord(value: NonNullable<RawWindow['rerecord']>): RerecordRule {
  if (value === true) return { ...DEFAULT_RERECORD };
  return {
    within: value.within !== undefined ? parseDuration(value.within) : DEFAULT_RERECORD.within,
    minLost:
      value.min_lost !== undefined ? (shareOf(value.min_lost) ?? DEFAULT_RERECORD.minLost) : DEFAULT_RERECORD.minLost,
  };
}

/** seconds: a manual start of a calendar, guide or messages window that names no duration */
const DEFAULT_LISTED_DURATION_S = FEED_WINDOW_DEFAULTS.durationS;

/** What happens to a window's recording at its end: stopped (default), or left running (a channel meant to run on). */
export const AT_END = ['stop', 'keep'] as const;

const WindowSchema = z.strictObject(
  {
    id: idString('a window id'),
    name: z.string({ error: genericError }).min(1, 'must not be empty').optional(),
    cron: CronSchema.optional(),
    timezone: TimeZoneSchema.optional(),
    duration: DurationSchema.optional(),
    enabled: z.boolean({ error: genericError }).optional(),
    at_end: z.enum(AT_END, { error: `must be one of ${AT_END.join(', ')}` }).optional(),
    alarm_after: DurationSchema.optional(),
    priority: z
      .number({ error: genericError })
      .int('must be a whole number')
      .min(-1000, 'must be at least -1000')
      .max(1000, 'must be at most 1000')
      .optional(),
    rerecord: RerecordSchema.optional(),
    channel: ChannelSchema.optional(),
    followup: FollowupSchema.optional(),
    // checked by readWindowSource, which names each field's problem
    ...Object.fromEntries(SOURCE_FIELDS.map((f) => [f, z.unknown().optional()])),
  },
  { error: genericError },
);

const DocumentSchema = z.strictObject(
  {
    schedule_id: idString('schedule_id').optional(),
    timezone: TimeZoneSchema.optional(),
    max_channels: z
      .number({ error: genericError })
      .int('must be a whole number')
      .min(1, 'must be at least 1')
      .optional(),
    windows: z.array(WindowSchema, { error: oneOf('a list of windows') }),
  },
  { error: oneOf('a mapping with a "windows" list') },
);

// ------------------------------------------------------------ parsing

/** Parses and validates YAML text; every issue names its line and field. */
export function parseScheduleYaml(text: string, options: ParseOptions = {}): ParseResult {
  const lineCounter = new LineCounter();
  const doc = parseDocument(typeof text === 'string' ? text : '', {
    lineCounter,
    prettyErrors: true,
    uniqueKeys: true,
    // no process warnings (e.g. for a list used as a key): such keys are reported as issues anyway
    logLevel: 'error',
  });
  if (doc.errors.length > 0) {
    return {
      ok: false,
      issues: doc.errors.map((err) => ({
        line: err.linePos?.[0]?.line,
        column: err.linePos?.[0]?.col,
        path: '',
        message: `YAML syntax: ${syntaxMessage(err.message)}`,
      })),
    };
  }
  let raw: unknown;
  try {
    raw = doc.toJS({ maxAliasCount: 100 });
  } catch (err) {
    return { ok: false, issues: [{ line: 1, path: '', message: `YAML: ${(err as Error).message}` }] };
  }
  if (raw === null || raw === undefined) {
    return {
      ok: false,
      issues: [{ line: 1, path: '', message: 'the schedule is empty: expected a mapping with a "windows" list' }],
      raw,
    };
  }
  const result = parseScheduleObject(raw, options);
  if (result.ok) return result;
  const issues = result.issues.map((issue) => ({ ...issue, ...locate(doc.contents, lineCounter, issue) }));
  issues.sort((a, b) => (a.line ?? 0) - (b.line ?? 0));
  return { ok: false, issues, raw };
}

/** Validates the object model (the editor's list, or parsed YAML); issues carry paths, not lines. */
export function parseScheduleObject(raw: unknown, options: ParseOptions = {}): ParseResult & { raw: unknown } {
  // the checks below walk values recursively: a value that contains itself would never end
  const shape = notPlainData(raw);
  if (shape) return { ok: false, issues: [{ path: formatPath(shape.at), message: shape.message }], raw };
  const parsed = DocumentSchema.safeParse(raw, { reportInput: true, error: genericError });
  const issues: (ScheduleIssue & { at: (string | number)[] })[] = [];
  const add = (at: (string | number)[], message: string): void => {
    issues.push({ at, path: formatPath(at), message });
  };
  if (!parsed.success) {
    for (const issue of parsed.error.issues) {
      const at = issue.path.map((p) => (typeof p === 'number' ? p : String(p)));
      if (issue.code === 'unrecognized_keys') {
        const known = knownKeysFor(at);
        for (const key of issue.keys) {
          const hint = closest(key, known);
          add(
            [...at, key],
            `unknown field ${quoteShort(key)}${hint ? ` (did you mean "${hint}"?)` : ''}; expected one of ${known.join(', ')}`,
          );
        }
      } else add(at, issue.message);
    }
  }

  // Checks that need more than one field, on the windows that passed the schema.
  const doc = (isPlainObject(raw) ? raw : {}) as Partial<RawDocument>;
  const rawWindows = Array.isArray(doc.windows) ? (doc.windows as unknown[]) : [];
  const bad = (index: number, part?: string): boolean =>
    issues.some((i) => i.at[0] === 'windows' && i.at[1] === index && (part === undefined || i.at[2] === part));
  const seen = new Map<string, number>();
  const sources = new Map<number, WindowSource>();
  rawWindows.forEach((w, index) => {
    if (!isPlainObject(w)) return;
    const read = readWindowSource(w);
    for (const problem of read.problems)
      if (!bad(index, String(problem.at[0]))) add(['windows', index, ...problem.at], problem.message);
    if (read.source) sources.set(index, read.source);
    if (w.rerecord !== undefined && read.source && read.source.kind !== 'ical' && read.source.kind !== 'xmltv') {
      add(
        ['windows', index, 'rerecord'],
        'needs a calendar (ical) or guide (xmltv) window: only a feed lists later airings',
      );
    }
    if (read.source?.kind === 'cron' && w.duration === undefined && !bad(index, 'duration')) {
      add(['windows', index, 'duration'], 'is required');
    }
    if (typeof w.id === 'string') {
      const first = seen.get(w.id);
      if (first !== undefined)
        add(['windows', index, 'id'], `duplicate window id ${quoteShort(w.id)} (also windows[${first}])`);
      else seen.set(w.id, index);
    }
    const checks = {
      channel: !bad(index, 'channel') && (w.channel === undefined || isPlainObject(w.channel)),
      followup: !bad(index, 'followup') && isPlainObject(w.followup),
    };
    for (const problem of semanticProblems(w as RawWindow, checks))
      add(['windows', index, ...problem.at], problem.message);
  });

  if (issues.length > 0) return { ok: false, issues: issues.map(({ at: _at, ...rest }) => rest), raw };
  const data = parsed.data as RawDocument;
  const fallbackZone = data.timezone ?? zoneOr(options.defaultTimezone);
  return {
    ok: true,
    raw,
    config: {
      scheduleId: data.schedule_id,
      timezone: canonicalTimeZone(fallbackZone),
      windows: data.windows.map((w, i) => normaliseWindow(w, fallbackZone, sources.get(i) ?? { kind: 'cron' })),
      ...(data.max_channels !== undefined ? { maxChannels: data.max_channels } : {}),
    },
  };
}

/**
 * The parser's message without its position (the issue has the line) and cut short: for an
 * unexpected token it quotes the token's whole source, which can be the rest of the document.
 */
function syntaxMessage(message: string): string {
  const first = message.split('\n')[0].replace(/ at line \d+, column \d+:?$/, '');
  return first.length > 200 ? `${first.slice(0, 200)}…` : first;
}

/** Deeper than any schedule needs; walking it would risk the stack. */
const MAX_NESTING = 1_000;

/**
 * Where a value stops being plain data: a value that contains itself (in YAML, an alias used
 * inside its own anchor, `x: &a [*a]`), or nesting deeper than MAX_NESTING. Shared values
 * (an alias used twice) are fine. Iterative, so that it cannot overflow the stack itself.
 */
function notPlainData(root: unknown): { at: (string | number)[]; message: string } | undefined {
  const onPath = new Set<object>();
  const stack: Array<{ value: unknown; at: (string | number)[]; leave?: boolean }> = [{ value: root, at: [] }];
  while (stack.length > 0) {
    const { value, at, leave } = stack.pop() as { value: unknown; at: (string | number)[]; leave?: boolean };
    if (value === null || typeof value !== 'object') continue;
    if (leave) {
      onPath.delete(value);
      continue;
    }
    if (onPath.has(value)) {
      return { at, message: 'contains itself (a YAML alias used inside its own anchor): a schedule is plain data' };
    }
    if (at.length > MAX_NESTING) {
      return { at: at.slice(0, 6), message: `is nested more than ${MAX_NESTING} levels deep` };
    }
    onPath.add(value);
    stack.push({ value, at, leave: true });
    const entries: [string | number, unknown][] = Array.isArray(value)
      ? value.map((v, i): [number, unknown] => [i, v])
      : Object.entries(value);
    for (const [key, v] of entries) stack.push({ value: v, at: [...at, key] });
  }
  return undefined;
}

/** parseScheduleYaml that throws a ScheduleConfigError. */
export function loadScheduleYaml(text: string, options: ParseOptions = {}, context = 'Schedule YAML'): ScheduleConfig {
  const result = parseScheduleYaml(text, options);
  if (!result.ok) throw new ScheduleConfigError(result.issues, context);
  return result.config;
}

/** parseScheduleObject that throws a ScheduleConfigError. */
export function loadScheduleObject(raw: unknown, options: ParseOptions = {}, context = 'Schedule'): ScheduleConfig {
  const result = parseScheduleObject(raw, options);
  if (!result.ok) throw new ScheduleConfigError(result.issues, context);
  return result.config;
}

/** The object model as YAML text (for the editor's switch from list to text). */
export function scheduleToYaml(raw: unknown): string {
  return stringify(raw, { lineWidth: 0 });
}

function zoneOr(zone: string | undefined): string {
  return zone && isValidTimeZone(zone) ? zone : systemTimeZone();
}

function normaliseWindow(w: RawWindow, fallbackZone: string, source: WindowSource): ScheduleWindow {
  const listedDuration =
    source.kind === 'ical' && source.defaultDuration !== undefined
      ? source.defaultDuration / 1000
      : DEFAULT_LISTED_DURATION_S;
  const out: ScheduleWindow = {
    id: w.id,
    name: w.name ?? w.id,
    cron: source.kind === 'cron' ? (w.cron ?? '').trim() : '',
    ...(source.kind === 'cron' ? {} : { source }),
    timezone: canonicalTimeZone(w.timezone ?? fallbackZone),
    duration: w.duration !== undefined ? parseDuration(w.duration) : listedDuration,
    enabled: w.enabled ?? true,
    at_end: w.at_end ?? 'stop',
    channel: { ...(w.channel ?? {}) },
  };
  // a guide's channel maps to its live source: the window's channel records from it unless it names one
  if (source.kind === 'xmltv' && out.channel.source_id === undefined && Object.keys(source.sources).length > 0) {
    out.channel.source_id = '{{occurrence.source_id}}';
  }
  if (w.followup) out.followup = structuredClone(w.followup);
  if (w.alarm_after !== undefined) out.alarm_after = parseDuration(w.alarm_after);
  if (w.priority !== undefined) out.priority = w.priority;
  if (w.rerecord !== undefined) out.rerecord = normaliseRerecord(w.rerecord);
  return out;
}

function semanticProblems(
  w: RawWindow,
  checks: { channel: boolean; followup: boolean },
): { at: (string | number)[]; message: string }[] {
  const problems: { at: (string | number)[]; message: string }[] = [];
  const channel = checks.channel ? (w.channel ?? {}) : {};
  const channelTemplates = checkTemplates(channel, CHANNEL_ROOTS, ['channel']).map((p) => ({
    at: p.at,
    message: /must start with/.test(p.message)
      ? `${p.message} (the channel does not exist yet when it is created)`
      : p.message,
  }));
  problems.push(...channelTemplates);
  if (checks.channel) {
    // Render with a sample slot and check against the service's request schema
    // (fields whose templates are wrong are already reported).
    const sample: Record<string, unknown> = { ...channel };
    for (const p of channelTemplates) delete sample[String(p.at[1])];
    const rendered = renderTemplates(sample, sampleContext(w)) as Record<string, unknown>;
    const request = channelRequestFrom(rendered);
    const parsed = ChannelCreateRequest.safeParse(request, { reportInput: true });
    if (!parsed.success) {
      for (const issue of parsed.error.issues) {
        const at = ['channel', ...issue.path.map((p) => (typeof p === 'number' ? p : String(p)))];
        const original = valueAt(w, at);
        const value = typeof original === 'string' || typeof original === 'number' ? `${shown(original)} ` : '';
        problems.push({ at, message: `${value}${friendlyMessage(issue)}` });
      }
    }
  }
  const followup = checks.followup ? w.followup : undefined;
  if (followup) {
    problems.push(...checkTemplates(followup, FOLLOWUP_ROOTS, ['followup']));
    if (followup.workflow_id === undefined && followup.workflow === undefined) {
      problems.push({ at: ['followup'], message: 'needs workflow_id (or workflow, a workflow name)' });
    } else if (followup.workflow_id !== undefined && followup.workflow !== undefined) {
      problems.push({ at: ['followup', 'workflow'], message: 'give workflow_id or workflow, not both' });
    }
    const id = followup.workflow_id;
    if (typeof id === 'string' && !id.includes('{{') && !UUID_PATTERN.test(id)) {
      problems.push({
        at: ['followup', 'workflow_id'],
        message: `${quoteShort(id)} must be a UUID (8-4-4-4-12 hex digits)`,
      });
    }
  }
  return problems;
}

/** The channel template after rendering, as a create request (the create-channel node's conversions). */
export function channelRequestFrom(rendered: Record<string, unknown>): Record<string, unknown> {
  return channelFieldsFromText(rendered);
}

function friendlyMessage(issue: z.core.$ZodIssue): string {
  if (issue.code === 'too_small' && /^Too small/.test(issue.message)) {
    return issue.origin === 'string'
      ? `must be at least ${issue.minimum} characters`
      : `must be at least ${issue.minimum}`;
  }
  if (issue.code === 'too_big' && /^Too big/.test(issue.message)) {
    return issue.origin === 'string'
      ? `must be at most ${issue.maximum} characters`
      : `must be at most ${issue.maximum}`;
  }
  if (issue.code === 'invalid_type') return genericError(issue as RawIssue) ?? issue.message;
  return issue.message;
}

/** The fields an unknown one is compared with, straight from the schema of its level. */
function knownKeysFor(at: (string | number)[]): readonly string[] {
  if (at.length === 0) return DocumentSchema.keyof().options;
  if (at[0] === 'windows' && at.length === 2) return WindowSchema.keyof().options;
  if (at[0] === 'windows' && at[2] === 'channel') return ChannelSchema.keyof().options;
  if (at[0] === 'windows' && at[2] === 'followup') return FollowupSchema.keyof().options;
  if (at[0] === 'windows' && at[2] === 'rerecord') return ['within', 'min_lost'];
  return [];
}

function closest(word: string, candidates: readonly string[]): string | undefined {
  let best: string | undefined;
  let bestDistance = 3;
  for (const c of candidates) {
    const d = editDistance(word.toLowerCase(), c.toLowerCase());
    if (d < bestDistance) {
      best = c;
      bestDistance = d;
    }
  }
  return best;
}

function editDistance(a: string, b: string): number {
  const row = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    let prev = row[0];
    row[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const tmp = row[j];
      row[j] = Math.min(row[j] + 1, row[j - 1] + 1, prev + (a[i - 1] === b[j - 1] ? 0 : 1));
      prev = tmp;
    }
  }
  return row[b.length];
}

function valueAt(root: unknown, at: (string | number)[]): unknown {
  let v: unknown = root;
  for (const seg of at) {
    if (v === null || typeof v !== 'object') return undefined;
    v = (v as Record<string | number, unknown>)[seg];
  }
  return v;
}

// ------------------------------------------------------------ line numbers

/**
 * The line of the deepest node of the document on the issue's path: the key
 * of a mapping entry, the item of a list; the parent when the field is missing.
 */
function locate(
  contents: YamlNode | null,
  lineCounter: LineCounter,
  issue: ScheduleIssue,
): { line?: number; column?: number } {
  const at = parsePath(issue.path);
  let node: unknown = contents;
  let offset = rangeStart(contents) ?? 0;
  for (const seg of at) {
    if (isMap(node)) {
      const pair = node.items.find((p) => isPair(p) && isScalar(p.key) && String(p.key.value) === String(seg));
      if (!pair) break;
      offset = rangeStart(pair.key as YamlNode) ?? offset;
      node = pair.value;
    } else if (isSeq(node) && typeof seg === 'number') {
      const item = node.items[seg];
      if (item === undefined) break;
      offset = rangeStart(item as YamlNode) ?? offset;
      node = item;
    } else break;
  }
  const pos = lineCounter.linePos(offset);
  return { line: pos.line, column: pos.col };
}

function rangeStart(node: unknown): number | undefined {
  const range = (node as { range?: [number, number, number] } | null)?.range;
  return range ? range[0] : undefined;
}

function parsePath(path: string): (string | number)[] {
  const out: (string | number)[] = [];
  for (const m of path.matchAll(/([A-Za-z_$][\w$-]*)|\[(\d+)\]|\[("(?:[^"\\]|\\.)*")\]/g)) {
    if (m[1] !== undefined) out.push(m[1]);
    else if (m[2] !== undefined) out.push(Number(m[2]));
    else out.push(JSON.parse(m[3]) as string);
  }
  return out;
}

/** A value quoted for an issue message, long text cut short. */
function shown(value: unknown): string {
  return typeof value === 'string' ? quoteShort(value) : (JSON.stringify(value) ?? String(value));
}

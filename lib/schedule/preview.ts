import { quoteShort } from '../errors';
import { isPlainObject } from '../guards';
import {
  formatIssue,
  type ParseResult,
  parseScheduleObject,
  parseScheduleYaml,
  type ScheduleWindow,
  scheduleToYaml,
} from './config';
import { type Contender, decideConflicts } from './conflicts';
import { describeCron } from './cron';
import { formatDuration } from './duration';
import type { ScheduleIssue } from './issues';
import { CronPlan } from './plan';
import {
  PREVIEW_WINDOWS,
  type PreviewLimits,
  type PreviewOmitted,
  type PreviewResponse,
  type PreviewWindow,
} from './preview-response';
import { formatLocalIso, formatShort, isoSeconds } from './tz';
import { lineInWhole, scanWindows, type TextPart, textWith } from './window-cut';

export interface PreviewRequest {
  /** YAML text (takes precedence) */
  yaml?: unknown;
  /** or the object model the editor's list builds */
  model?: unknown;
  /** windows in the whole list, when `model` holds only its first ones (the editor sends at most PREVIEW_WINDOWS) */
  total?: unknown;
  /** zone of windows that name none */
  timezone?: unknown;
  /** starts per window (1-20, default 5) */
  count?: unknown;
  /** preview from this instant (default now) */
  now?: number;
}

export type { PreviewLimits, PreviewOmitted, PreviewResponse, PreviewWindow };

/**
 * What one preview does at most, whatever the document: the editor shows the
 * first windows and counts the rest, and a deploy checks every window anyway.
 * Sized so that each step of a preview (reading the first windows, one
 * window's starts) takes a few milliseconds and the whole preview tens.
 */
export const PREVIEW_LIMITS: Readonly<PreviewLimits> = Object.freeze({
  windows: PREVIEW_WINDOWS,
  occurrences: 250,
  issues: 50,
  bytes: 256 * 1024,
});

/** YAML text longer than this, once cut to the first windows, is not parsed for a preview. */
const MAX_TEXT_FACTOR = 2;
/** Text parsed in one step (no block list to cut into parts, or anchors): at most this long. */
const MAX_WHOLE_TEXT = 128 * 1024;

/**
 * Validates a schedule and lists the next starts of each window, for the
 * editor, within `limits` (see PREVIEW_LIMITS): what it leaves out is counted
 * in `omitted`.
 */
export function previewSchedule(request: PreviewRequest, limits: Partial<PreviewLimits> = {}): PreviewResponse {
  const work = previewSteps(request, { ...PREVIEW_LIMITS, ...limits });
  for (;;) {
    const step = work.next();
    if (step.done) return step.value;
  }
}

/**
 * previewSchedule, giving the event loop a turn (setImmediate) whenever it
 * has computed for `sliceMs`: a preview never holds up the runtime's timers
 * (a schedule's starts and ends) for long. The first turn is given before
 * it starts, timers included: the request's body was parsed in this one, as
 * long as that took.
 */
export async function previewScheduleAsync(
  request: PreviewRequest,
  limits: Partial<PreviewLimits> = {},
  sliceMs = 5,
): Promise<PreviewResponse> {
  const work = previewSteps(request, { ...PREVIEW_LIMITS, ...limits });
  // two check phases: the route runs in the poll phase that parsed the body, and a single setImmediate would
  // start the preview in that same turn of the loop, before the timers that waited for the parse
  await new Promise<void>((resolve) => setImmediate(() => setImmediate(resolve)));
  let sliceStart = performance.now();
  for (;;) {
    const step = work.next();
    if (step.done) return step.value;
    if (performance.now() - sliceStart >= sliceMs) {
      await new Promise<void>((resolve) => setImmediate(resolve));
      sliceStart = performance.now();
    }
  }
}

/** The preview as steps: each `yield` is a point where the caller may give the event loop a turn. */
function* previewSteps(request: PreviewRequest, limits: PreviewLimits): Generator<void, PreviewResponse> {
  const count = clampCount(request.count);
  const now = typeof request.now === 'number' ? request.now : Date.now();
  const defaultTimezone = typeof request.timezone === 'string' && request.timezone ? request.timezone : undefined;
  const response: PreviewResponse = { ok: false, issues: [], windows: [] };
  const omitted: PreviewOmitted = { windows: 0, listed: 0, occurrences: 0, issues: 0, echo: false };
  let result: ParseResult;
  if (typeof request.yaml === 'string') {
    const checked = yield* checkYaml(request.yaml, limits, defaultTimezone);
    if (checked === undefined) {
      response.issues = [tooLarge(limits)];
      return finish(response, omitted, limits);
    }
    result = checked.result;
    response.total_windows = checked.total;
    if (checked.total !== undefined && checked.total > limits.windows) {
      omitted.windows = checked.total - limits.windows;
      // the model of the first windows only: the editor's list must not take it for the document
      omitted.echo = true;
    } else if (result.raw !== undefined) response.model = result.raw;
  } else if (request.model !== undefined) {
    const sent = windowCount(request.model);
    const total = listLength(request.model, request.total);
    response.total_windows = total;
    result = yield* checkModel(request.model, limits, defaultTimezone);
    if (total === undefined || (total <= limits.windows && total === sent)) {
      try {
        response.yaml = scheduleToYaml(request.model);
      } catch {
        /* not serialisable: the issues say why */
      }
      yield;
    } else {
      // the YAML of the windows read is not the whole list's
      omitted.windows = total - Math.min(sent ?? 0, limits.windows);
      omitted.echo = true;
    }
  } else {
    result = { ok: false, issues: [{ path: '', message: 'give the schedule as yaml (text) or model (object)' }] };
  }
  if (!result.ok) {
    const issues = result.issues;
    omitted.issues = Math.max(0, issues.length - limits.issues);
    response.issues = issues.slice(0, limits.issues).map((i) => ({ ...i, text: formatIssue(i) }));
    return finish(response, omitted, limits);
  }
  response.ok = true;
  response.schedule_id = result.config.scheduleId;
  let budget = limits.occurrences;
  for (const w of result.config.windows) {
    const kind = w.source?.kind ?? 'cron';
    if (kind !== 'cron') {
      response.windows.push(listedWindow(w, kind));
      yield;
      continue;
    }
    const listed = Math.min(count, budget);
    budget -= listed;
    omitted.occurrences += count - listed;
    response.windows.push({
      id: w.id,
      name: w.name,
      cron: w.cron,
      description: describeCron(w.cron),
      timezone: w.timezone,
      duration: formatDuration(w.duration),
      enabled: w.enabled,
      ...(w.priority !== undefined ? { priority: w.priority } : {}),
      next:
        listed === 0
          ? []
          : // the scheduler's own plan of the window: the preview lists the starts it will time
            new CronPlan(w.cron, w.timezone, w.duration * 1000).first(now, listed).map(({ start, end }) => ({
              start: isoSeconds(start),
              end: isoSeconds(end),
              local: formatLocalIso(start, w.timezone),
              label: `${formatShort(start, w.timezone)} ${w.timezone}`,
            })),
    });
    yield;
  }
  const limit = result.config.maxChannels;
  if (limit !== undefined) {
    response.max_channels = limit;
    markConflicts(response.windows, result.config.windows, limit);
  }
  return finish(response, omitted, limits);
}

/**
 * With max_channels: the starts listed that would not record, each with what it loses to (lib/schedule/conflicts,
 * the rule the running schedule follows), decided among the starts listed.
 */
function markConflicts(shown: PreviewWindow[], windows: readonly ScheduleWindow[], limit: number): void {
  const order = new Map(windows.map((w, i) => [w.id, i]));
  const byId = new Map(windows.map((w) => [w.id, w]));
  const entries: Contender[] = [];
  const items = new Map<string, { label: string; item: PreviewWindow['next'][number] }>();
  for (const w of shown) {
    if (!w.enabled) continue;
    for (const item of w.next) {
      const key = `${w.id}@${item.start}`;
      items.set(key, { label: `${w.name} ${item.label}`, item });
      entries.push({
        key,
        windowId: w.id,
        start: Date.parse(item.start),
        end: Date.parse(item.end),
        priority: byId.get(w.id)?.priority ?? 0,
        order: order.get(w.id) ?? 0,
      });
    }
  }
  for (const loss of decideConflicts(entries, limit).losers.values()) {
    const shownItem = items.get(loss.key);
    if (shownItem) shownItem.item.lost_to = loss.lostTo.map((c) => items.get(c.key)?.label ?? c.key);
  }
}

/** A calendar, guide or messages window: its occurrences are read by fetching the feed (Test feed), never by a preview any viewer may ask for. */
function listedWindow(w: ScheduleWindow, kind: keyof typeof LISTED_DESCRIPTIONS): PreviewResponse['windows'][number] {
  return {
    id: w.id,
    name: w.name,
    cron: '',
    description: LISTED_DESCRIPTIONS[kind],
    timezone: w.timezone,
    duration: formatDuration(w.duration),
    lengths: listedLengths(w, kind),
    enabled: w.enabled,
    ...(w.priority !== undefined ? { priority: w.priority } : {}),
    ...(w.rerecord
      ? {
          rerecord: { within: formatDuration(w.rerecord.within), min_lost: `${Math.round(w.rerecord.minLost * 100)}%` },
        }
      : {}),
    next: [],
  };
}

/**
 * How long a listed window's recordings are: each occurrence keeps its own length (a calendar's event, a
 * guide's programme, a message's entry), padded; the window's `duration` is a manual start's only.
 */
function listedLengths(w: ScheduleWindow, kind: keyof typeof LISTED_DESCRIPTIONS): string {
  const source = w.source;
  const own =
    kind === 'ical'
      ? `each event as long as the calendar says (${formatDuration(
          source?.kind === 'ical' && source.defaultDuration ? source.defaultDuration / 1000 : w.duration,
        )} when it gives no end)`
      : kind === 'xmltv'
        ? 'each programme as long as the guide says'
        : 'each entry as long as its message says';
  const padding = source && 'padding' in source ? source.padding : undefined;
  const pads = [
    padding?.before ? `${formatDuration(padding.before / 1000)} before` : '',
    padding?.after ? `${formatDuration(padding.after / 1000)} after` : '',
  ].filter(Boolean);
  const padded = pads.length > 0 ? `, padded ${pads.join(' and ')}` : '';
  return `${own}${padded}; ${formatDuration(w.duration)} for a manual start`;
}

const LISTED_DESCRIPTIONS = {
  ical: 'the events of a calendar (Test feed lists the next ones)',
  xmltv: 'the programmes of a guide that match (Test feed lists the next ones)',
  messages: 'the windows that windows messages give',
} as const;

/**
 * The answer within `limits.bytes`: first without the model or YAML sent back,
 * then without the last windows listed, then without the last issues.
 */
function finish(response: PreviewResponse, omitted: PreviewOmitted, limits: PreviewLimits): PreviewResponse {
  let size = jsonBytes(response);
  if (size > limits.bytes && (response.model !== undefined || response.yaml !== undefined)) {
    response.model = undefined;
    response.yaml = undefined;
    omitted.echo = true;
    size = jsonBytes(response);
  }
  // room for the summary added below
  const room = limits.bytes - 512;
  size = trimList(response.windows, size, room, () => omitted.listed++);
  trimList(response.issues, size, room, () => omitted.issues++);
  if (omitted.windows + omitted.listed + omitted.occurrences + omitted.issues > 0 || omitted.echo) {
    response.omitted = omitted;
    response.limits = { ...limits };
  }
  return response;
}

/** Drops items from the end of `list` until the answer's size is within `room`; the new size. */
function trimList(list: unknown[], size: number, room: number, dropped: () => void): number {
  let left = size;
  while (left > room && list.length > 0) {
    left -= jsonBytes(list.pop()) + 1;
    dropped();
  }
  return left;
}

function jsonBytes(value: unknown): number {
  return Buffer.byteLength(JSON.stringify(value) ?? '', 'utf8');
}

function windowCount(doc: unknown): number | undefined {
  return isPlainObject(doc) && Array.isArray(doc.windows) ? doc.windows.length : undefined;
}

/** The windows of the editor's whole list: those sent, or the count it gave when it sent only the first. */
function listLength(model: unknown, total: unknown): number | undefined {
  const sent = windowCount(model);
  if (sent === undefined) return undefined;
  return typeof total === 'number' && Number.isSafeInteger(total) && total > sent ? total : sent;
}

/** Windows checked per step: a step parses and checks five windows, a few milliseconds. */
const WINDOWS_PER_STEP = 5;
/** An anchor (`&name`): an alias in one part of the text could name an anchor in another, so such a text is checked whole. */
const ANCHOR = /(^|[\s[{,])&[^\s]/m;

/**
 * The first `limits.windows` windows of YAML text checked as deploy checks
 * them (parseScheduleYaml), five at a time: each part is the text before the
 * list, five of its items and what follows it, so issues keep their lines.
 * Undefined when the text to parse is too large to preview.
 */
function* checkYaml(
  text: string,
  limits: PreviewLimits,
  defaultTimezone: string | undefined,
): Generator<void, { result: ParseResult; total: number | undefined } | undefined> {
  const layout = yield* scanWindows(text);
  const maxText = limits.bytes * MAX_TEXT_FACTOR;
  if (layout === undefined) {
    if (text.length > MAX_WHOLE_TEXT) return undefined;
    const result = parseScheduleYaml(text, { defaultTimezone });
    return { result, total: windowCount(result.raw) };
  }
  const total = layout.items.length;
  const checked = Math.min(total, limits.windows);
  const whole = textWith(text, layout, 0, checked, true);
  if (whole.text.length > maxText) return undefined;
  const anchored = ANCHOR.test(whole.text);
  if (anchored && whole.text.length > MAX_WHOLE_TEXT) return undefined;
  const step = anchored ? checked : WINDOWS_PER_STEP;
  const merged = new Merged();
  for (let from = 0; from < checked; from += step) {
    const part = step === checked ? whole : textWith(text, layout, from, Math.min(checked, from + step), true);
    merged.add(parseScheduleYaml(part.text, { defaultTimezone }), from, part, (i) => layout.items[i].line);
    yield;
  }
  return { result: merged.result(true), total };
}

/** The first `limits.windows` windows of the editor's model checked as deploy checks them, five at a time. */
function* checkModel(
  model: unknown,
  limits: PreviewLimits,
  defaultTimezone: string | undefined,
): Generator<void, ParseResult> {
  if (!isPlainObject(model) || !Array.isArray(model.windows) || model.windows.length <= WINDOWS_PER_STEP) {
    return parseScheduleObject(model, { defaultTimezone });
  }
  const windows = model.windows as unknown[];
  const checked = Math.min(windows.length, limits.windows);
  const merged = new Merged();
  for (let from = 0; from < checked; from += WINDOWS_PER_STEP) {
    const part = { ...model, windows: windows.slice(from, Math.min(checked, from + WINDOWS_PER_STEP)) };
    merged.add(parseScheduleObject(part, { defaultTimezone }), from);
    yield;
  }
  return merged.result(false);
}

/**
 * The results of checking a document part by part, as one: window paths and
 * lines as in the whole document, issues about the document itself once,
 * and a window id used twice found across parts too.
 */
class Merged {
  private readonly issues: ScheduleIssue[] = [];
  private readonly seen = new Set<string>();
  private readonly ids = new Map<string, number>();
  private readonly windows: ScheduleWindow[] = [];
  private readonly rawWindows: unknown[] = [];
  private head: Record<string, unknown> | undefined;
  private unreadable = false;
  private first: Extract<ParseResult, { ok: true }>['config'] | undefined;

  add(result: ParseResult, from: number, part?: TextPart, lineOfItem?: (index: number) => number): void {
    const raw = isPlainObject(result.raw) ? result.raw : undefined;
    // a part that could not be read (a YAML syntax error) leaves no whole document to send back
    if (raw === undefined) this.unreadable = true;
    this.head ??= raw;
    const rawWindows = raw && Array.isArray(raw.windows) ? raw.windows : [];
    rawWindows.forEach((w, i) => {
      this.rawWindows.push(w);
      if (!isPlainObject(w) || typeof w.id !== 'string') return;
      const index = from + i;
      const earlier = this.ids.get(w.id);
      if (earlier === undefined) this.ids.set(w.id, index);
      // within one part the check itself names it
      else if (earlier < from)
        this.issues.push({
          ...(lineOfItem ? { line: lineOfItem(index) } : {}),
          path: `windows[${index}].id`,
          message: `duplicate window id ${quoteShort(w.id)} (also windows[${earlier}])`,
        });
    });
    if (result.ok) {
      this.first ??= result.config;
      this.windows.push(...result.config.windows);
      return;
    }
    for (const issue of result.issues) {
      const path = issue.path.replace(/^windows\[(\d+)\]/, (_m, i: string) => `windows[${from + Number(i)}]`);
      const line = part && issue.line !== undefined ? lineInWhole(part, issue.line) : issue.line;
      const moved = { ...issue, path, ...(line === undefined ? {} : { line }) };
      // an issue outside the windows comes with every part: reported once
      if (path === issue.path && !path.startsWith('windows[')) {
        const key = `${line ?? ''}\n${path}\n${issue.message}`;
        if (this.seen.has(key)) continue;
        this.seen.add(key);
      }
      this.issues.push(moved);
    }
  }

  result(byLine: boolean): ParseResult {
    const raw = this.head === undefined || this.unreadable ? undefined : { ...this.head, windows: this.rawWindows };
    if (this.issues.length > 0 || this.first === undefined) {
      if (byLine) this.issues.sort((a, b) => (a.line ?? 0) - (b.line ?? 0));
      return { ok: false, issues: this.issues, raw };
    }
    return { ok: true, config: { ...this.first, windows: this.windows }, raw };
  }
}

function tooLarge(limits: PreviewLimits): ScheduleIssue & { text: string } {
  const issue = {
    path: '',
    message:
      `the document is too large to preview here (the preview reads the first ${limits.windows} windows of a ` +
      `"windows:" block list, up to ${Math.round((limits.bytes * MAX_TEXT_FACTOR) / 1024)} KB, or ` +
      `${Math.round(MAX_WHOLE_TEXT / 1024)} KB of any other YAML or of YAML with anchors); it is still checked when deployed`,
  };
  return { ...issue, text: formatIssue(issue) };
}

function clampCount(value: unknown): number {
  const n = typeof value === 'string' ? Number.parseInt(value, 10) : typeof value === 'number' ? value : 5;
  return Number.isFinite(n) ? Math.min(20, Math.max(1, Math.floor(n))) : 5;
}

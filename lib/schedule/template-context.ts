import type { Programme } from './plan';
import { formatDate, formatLocalIso, formatTime, isoSeconds } from './tz';

/**
 * A slot of a window and what templates can read of it: the piece both the schedule document's
 * checks (config.ts, which lists the fields a template may name) and the messages build on.
 */

/** Why a start was emitted. */
export type StartReason = 'scheduled' | 'catch-up' | 'manual';

/** One occurrence of a window. Times are epoch milliseconds: the recording's (padded). */
export interface Slot {
  key: string;
  windowId: string;
  start: number;
  end: number;
  reason: StartReason;
  /** the occurrence's id in its window's plan (absent for cron slots saved by earlier versions: the ISO start) */
  occurrence?: string;
  /** what the calendar or guide says of the programme (times unpadded) */
  programme?: Programme;
  /** the earlier slot this one records again (a re-record at the next airing) */
  rerecordOf?: string;
}

/** A slot's occurrence id: a cron slot's is its start's ISO time. */
export function occurrenceOf(slot: Pick<Slot, 'start' | 'occurrence'>): string {
  return slot.occurrence ?? isoSeconds(slot.start);
}

/**
 * How a slot is named wherever it is shown or named (channel and job names, Debug topics, reports, the
 * sidebar, the node's status): the programme's title with its episode ("REC Headlines · S01E02"), else the
 * window's name. Never shortened: the editor cuts long names on screen, the data keeps them whole.
 */
export function occurrenceName(windowName: string, programme?: { title?: string; episode?: string }): string {
  const title = programme?.title?.trim();
  if (!title) return windowName;
  const episode = programme?.episode?.trim();
  return cutName(episode ? `${title} · ${episode}` : title);
}

/**
 * Characters of an occurrence's name at the most: the default channel and job names add the date and time
 * (20 characters) and the service refuses a name over NAME_MAX (256), so a guide's 4 KB title would fail
 * the start. The title itself (`occurrence.title`) stays whole.
 */
export const OCCURRENCE_NAME_MAX = 200;

function cutName(name: string): string {
  if (name.length <= OCCURRENCE_NAME_MAX) return name;
  const cut = name.slice(0, OCCURRENCE_NAME_MAX - 1);
  // a surrogate pair is never cut in two (the service counts UTF-16 units, as String length does)
  return `${/[\uD800-\uDBFF]$/.test(cut) ? cut.slice(0, -1) : cut}…`;
}

/** `msg.window` of start and end messages. */
export interface WindowInfo {
  id: string;
  name: string;
  /** ISO 8601, UTC */
  start: string;
  end: string;
  timezone: string;
  slotKey: string;
  reason: StartReason;
  /** the earlier slot this one records again, at a later airing (a window's rerecord) */
  rerecord_of?: string;
}

/** What the template context reads of a window: a ScheduleWindow, or a sample of one. */
export interface ContextWindow {
  id: string;
  name: string;
  cron: string;
  /** seconds */
  duration: number;
  /** IANA zone */
  timezone: string;
}

/**
 * `<schedule id>:<window id>:<occurrence id>` — the Idempotency-Key of the slot's channel. A cron slot's
 * occurrence id is its start, ISO 8601 UTC (a number is taken as that start).
 */
export function slotKey(scheduleId: string, windowId: string, occurrence: string | number): string {
  return `${scheduleId}:${windowId}:${typeof occurrence === 'number' ? isoSeconds(occurrence) : occurrence}`;
}

export function windowInfo(window: ContextWindow, slot: Slot): WindowInfo {
  return {
    id: window.id,
    name: window.name,
    start: isoSeconds(slot.start),
    end: isoSeconds(slot.end),
    timezone: window.timezone,
    slotKey: slot.key,
    reason: slot.reason,
    ...(slot.rerecordOf ? { rerecord_of: slot.rerecordOf } : {}),
  };
}

/**
 * What templates can read: `window`, `slot`, `schedule` and, for the follow-up, `channel` (the last channel that
 * recorded the window) and `segments` (every channel that recorded part of it, in order, when it was interrupted).
 */
export function templateContext(
  scheduleId: string,
  window: ContextWindow,
  slot: Slot,
  channel?: unknown,
  segments?: readonly unknown[],
): Record<string, unknown> {
  const tz = window.timezone;
  const info = windowInfo(window, slot);
  const context: Record<string, unknown> = {
    window: {
      ...info,
      cron: window.cron,
      duration: window.duration,
      duration_hours: Math.max(1, Math.ceil(window.duration / 3600)),
    },
    slot: {
      key: slot.key,
      start: info.start,
      end: info.end,
      date: formatDate(slot.start, tz),
      time: formatTime(slot.start, tz),
      end_date: formatDate(slot.end, tz),
      end_time: formatTime(slot.end, tz),
      local_start: formatLocalIso(slot.start, tz),
      local_end: formatLocalIso(slot.end, tz),
      epoch: Math.floor(slot.start / 1000),
      reason: slot.reason,
    },
    schedule: { id: scheduleId },
    occurrence: occurrenceContext(window.name, slot, tz),
  };
  if (channel !== undefined && channel !== null) context.channel = channel;
  if (channel !== undefined && channel !== null) context.segments = segments ?? [channel];
  return context;
}

/** `occurrence` in templates: the programme as its calendar or guide gives it, unpadded (a cron slot's own times). */
function occurrenceContext(windowName: string, slot: Slot, tz: string): Record<string, unknown> {
  const p = slot.programme;
  const start = p?.start ?? slot.start;
  const end = p?.end ?? slot.end;
  return {
    id: occurrenceOf(slot),
    // the title and episode, else the window's name: what the default channel and job names begin with
    name: occurrenceName(windowName, p),
    title: p?.title ?? '',
    description: p?.description ?? '',
    subtitle: p?.subtitle ?? '',
    channel: p?.channel ?? '',
    episode: p?.episode ?? '',
    categories: p?.categories ?? [],
    location: p?.location ?? '',
    source_id: p?.sourceId ?? '',
    start: isoSeconds(start),
    end: isoSeconds(end),
    local_start: formatLocalIso(start, tz),
    local_end: formatLocalIso(end, tz),
  };
}

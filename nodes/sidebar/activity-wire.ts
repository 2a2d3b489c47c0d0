/**
 * The activity route's answer, as it travels: the same state as ActivitySnapshot, packed. A week of
 * planned starts at broadcast scale is tens of thousands of slots, and as objects with their keys
 * repeated it was megabytes on every poll. Types and pure functions only: the editor bundle imports it.
 */
import type { ActivitySignal, JobView, ScheduleView, SlotView, ZoneDay } from './activity-types';

/** Raised when the answer's shape changes: an editor left open across an upgrade says so rather than misreads it. */
export const ACTIVITY_FORMAT = 2;

/** How far back reported slots and ended jobs are shown. */
export const HISTORY_MS = 24 * 3_600_000;

/**
 * One window's planned starts. Times are offsets from the answer's `base` in seconds, or in ms (`unit: 1`)
 * when one is not a whole second: `starts[0]` from the base, each next one from the start before it.
 */
export interface PlannedRun {
  window: string;
  /** absent: 1000 */
  unit?: 1;
  starts: number[];
  /** the slots' length: one for all, or one per start; absent: the window's duration */
  lengths?: number | number[];
  /** the programme's title of a start, by its index (calendars and guides) */
  titles?: Record<string, string>;
  /** indices of starts planned over the space's max_channels */
  conflicts?: number[];
  /** indices of starts booked to record a failed slot again */
  rerecords?: number[];
  /** indices of starts that stand for "too many to list: it goes on from here to the end" */
  bands?: number[];
}

/** What a reported slot looks like apart from its times and title; a day of slots has only a handful of these. */
export type SlotLook = Omit<SlotView, 'slotKey' | 'windowId' | 'start' | 'end' | 'band' | 'title'>;

/**
 * A reported slot: [window, start, length, look index, follow-up sent at, late by ms, programme title], times
 * in ms from `base`, trailing ones left out when absent (null when a later one is there); the window by its
 * index in the schedule's windows, or by its id when it is no longer one of them.
 */
export type ReportedRow = [number | string, number, number, number, ...(number | string | null)[]];

type WindowView = ScheduleView['windows'][number];

export interface WireSchedule extends Omit<ScheduleView, 'slots' | 'windows'> {
  /** `enabled` absent: true */
  windows: (Omit<WindowView, 'enabled'> & { enabled?: false })[];
  planned: PlannedRun[];
  reported: ReportedRow[];
}

export interface WireSnapshot {
  format: typeof ACTIVITY_FORMAT;
  now: number;
  signal: ActivitySignal;
  /** what the answer covers: reported slots from `from`, planned ones until `to` */
  range: { from: number; to: number };
  /** the instant the packed times count from */
  base: number;
  looks: SlotLook[];
  schedules: WireSchedule[];
  jobs: JobView[];
  days: ZoneDay[];
}

/** A schedule's windows as sent: enabled unless said. */
export function packWindows(windows: readonly WindowView[]): WireSchedule['windows'] {
  return windows.map(({ enabled, ...w }) => (enabled ? w : { ...w, enabled: false }));
}

/**
 * Packs a schedule's planned slots (SlotViews of phase upcoming, reported ones left out), a run per window;
 * `durations`: each window's length in seconds, by id.
 */
export function packPlanned(
  slots: readonly SlotView[],
  base: number,
  durations: ReadonlyMap<string, number>,
): PlannedRun[] {
  const byWindow = new Map<string, SlotView[]>();
  for (const slot of slots) {
    const list = byWindow.get(slot.windowId) ?? [];
    list.push(slot);
    byWindow.set(slot.windowId, list);
  }
  return [...byWindow].map(([window, list]) => packRun(window, list, base, durations.get(window)));
}

function packRun(window: string, list: SlotView[], base: number, duration: number | undefined): PlannedRun {
  list.sort((a, b) => a.start - b.start);
  const unit = list.every((s) => (s.start - base) % 1000 === 0 && (s.end - s.start) % 1000 === 0) ? 1000 : 1;
  const starts: number[] = [];
  const lengths: number[] = [];
  const titles: Record<string, string> = {};
  const conflicts: number[] = [];
  const rerecords: number[] = [];
  const bands: number[] = [];
  let previous = base;
  list.forEach((s, i) => {
    starts.push((s.start - previous) / unit);
    previous = s.start;
    lengths.push((s.end - s.start) / unit);
    if (s.title) titles[i] = s.title;
    if (s.conflict) conflicts.push(i);
    if (s.rerecord) rerecords.push(i);
    if (s.band) bands.push(i);
  });
  const length = lengths.every((l) => l === lengths[0]) ? (lengths[0] ?? 0) : lengths;
  return {
    window,
    ...(unit === 1 ? { unit } : {}),
    starts,
    ...(duration !== undefined && length === (duration * 1000) / unit ? {} : { lengths: length }),
    ...(Object.keys(titles).length > 0 ? { titles } : {}),
    ...(conflicts.length > 0 ? { conflicts } : {}),
    ...(rerecords.length > 0 ? { rerecords } : {}),
    ...(bands.length > 0 ? { bands } : {}),
  };
}

/**
 * Packs reported slots: times as offsets, the rest as an index into `looks` (shared across the answer).
 * The slot's key and the channel's and job's ids are left out: the tab shows none of them.
 */
export function packReported(
  slots: readonly SlotView[],
  windowIds: readonly string[],
  base: number,
  looks: Looks,
): ReportedRow[] {
  return slots.map((s) => {
    const index = windowIds.indexOf(s.windowId);
    const { followupAt, lateMs, ...life } = s.life ?? { stage: 'starting' };
    const look: SlotLook = {
      phase: s.phase,
      ...(s.channel ? { channel: { state: s.channel.state } } : {}),
      ...(s.life ? { life } : {}),
      ...(s.outcome ? { outcome: lookOutcome(s.outcome) } : {}),
    };
    const row: ReportedRow = [index < 0 ? s.windowId : index, s.start - base, s.end - s.start, looks.index(look)];
    const tail = [
      followupAt === undefined ? null : followupAt - base,
      lateMs ?? null,
      typeof s.title === 'string' ? s.title : null,
    ];
    while (tail.length > 0 && tail.at(-1) === null) tail.pop();
    row.push(...tail);
    return row;
  });
}

function lookOutcome(o: NonNullable<SlotView['outcome']>): NonNullable<SlotView['outcome']> {
  const { job, ...rest } = o;
  return job ? { ...rest, job: { state: job.state } } : rest;
}

/** The distinct looks of an answer, each once. */
export class Looks {
  readonly list: SlotLook[] = [];
  private readonly seen = new Map<string, number>();

  index(look: SlotLook): number {
    const key = JSON.stringify(look);
    let i = this.seen.get(key);
    if (i === undefined) {
      i = this.list.length;
      this.list.push(look);
      this.seen.set(key, i);
    }
    return i;
  }
}

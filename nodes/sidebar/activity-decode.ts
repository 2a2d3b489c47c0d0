import type { ActivitySnapshot, ScheduleView, SlotView } from './activity-types';
import { HISTORY_MS, type PlannedRun, type ReportedRow, type SlotLook, type WireSnapshot } from './activity-wire';

/**
 * The state the tab draws, unpacked from the route's answer as of `now` (the runtime's clock): a planned
 * start that passed with no report is "due" until its end and gone after it; reported slots and ended jobs
 * older than a day are left out. The answer stays valid for its hour, so a "not modified" reply unpacks it
 * again at a later `now`.
 */
export function decodeActivity(wire: WireSnapshot, now: number): ActivitySnapshot {
  const schedules: ScheduleView[] = wire.schedules.map(({ planned, reported, windows: sent, ...head }) => {
    const slots: SlotView[] = [];
    const windows = sent.map((w) => ({ ...w, enabled: w.enabled !== false }));
    const windowIds = windows.map((w) => w.id);
    for (const row of reported) {
      const slot = reportedSlot(row, windowIds, wire.looks, wire.base);
      if (slot.end >= now - HISTORY_MS) slots.push(slot);
    }
    const durations = new Map(windows.map((w) => [w.id, w.duration]));
    for (const run of planned) unpackRun(run, wire.base, now, durations.get(run.window) ?? 0, slots);
    slots.sort((a, b) => a.start - b.start);
    return { ...head, windows, slots };
  });
  const from = now - HISTORY_MS;
  const jobs = wire.jobs.filter((j) => !j.terminal || j.updatedAt >= from);
  return { now, signal: wire.signal, range: { from, to: wire.range.to }, schedules, jobs, days: wire.days };
}

function reportedSlot(row: ReportedRow, windowIds: readonly string[], looks: SlotLook[], base: number): SlotView {
  const [window, start, length, look, followupAt, lateMs, title] = row;
  const { life, ...rest } = looks[look] ?? { phase: 'past' };
  const times = {
    ...(typeof followupAt === 'number' ? { followupAt: base + followupAt } : {}),
    ...(typeof lateMs === 'number' ? { lateMs } : {}),
  };
  return {
    windowId: typeof window === 'string' ? window : (windowIds[window] ?? String(window)),
    start: base + start,
    end: base + start + length,
    ...rest,
    ...(life ? { life: { ...life, ...times } } : {}),
    ...(typeof title === 'string' ? { title } : {}),
  };
}

/** `duration`: the window's, in seconds (the length of a run that gives none). */
function unpackRun(run: PlannedRun, base: number, now: number, duration: number, into: SlotView[]): void {
  const conflicts = new Set(run.conflicts);
  const rerecords = new Set(run.rerecords);
  const bands = new Set(run.bands);
  const unit = run.unit ?? 1000;
  const lengths = run.lengths ?? (duration * 1000) / unit;
  let start = base;
  run.starts.forEach((delta, i) => {
    start += delta * unit;
    const length = (typeof lengths === 'number' ? lengths : (lengths[i] ?? 0)) * unit;
    const end = start + length;
    const band = bands.has(i);
    // a start that passed unreported is no recording: shown "due" while its window lasts (a band goes on)
    if (end <= now) return;
    const title = run.titles?.[i];
    into.push({
      windowId: run.window,
      start,
      end,
      phase: start <= now && !band ? 'due' : 'upcoming',
      ...(title ? { title } : {}),
      ...(conflicts.has(i) ? { conflict: true as const } : {}),
      ...(rerecords.has(i) ? { rerecord: true as const } : {}),
      ...(band ? { band: true as const } : {}),
    });
  });
}

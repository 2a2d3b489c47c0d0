import type { PlannedSlotView, SlotView, WindowPlan } from './activity-types';

/** More starts than a timeline can show per window (a minutely window over a week would be 10,080). */
export const MAX_STARTS_PER_WINDOW = 400;

/**
 * A registered schedule's planned slots overlapping [from, to): its own plan (the scheduler's: cron, calendar,
 * guide or messages) when it gives one, else each cron window's plan as lib/schedule computes it. Past
 * MAX_STARTS_PER_WINDOW starts of a window, the rest of the range is one `band` slot.
 */
export function plannedSlots(
  windows: readonly WindowPlan[],
  plan: ((from: number, to: number, perWindow: number) => PlannedSlotView[]) | undefined,
  from: number,
  to: number,
): SlotView[] {
  const views = plan ? plan(from, to, MAX_STARTS_PER_WINDOW) : windows.flatMap((w) => cronPlanned(w, from, to));
  return views.map((v) => ({ ...v, phase: 'upcoming' }));
}

function cronPlanned(window: WindowPlan, from: number, to: number): PlannedSlotView[] {
  if (window.enabled === false || (window.source ?? 'cron') !== 'cron') return [];
  // node-cron loads when a schedule first reports windows, not at Node-RED start
  const { CronPlan } = require('../../lib/schedule/plan') as typeof import('../../lib/schedule/plan');
  const list = new CronPlan(window.cron, window.timezone, Math.max(0, window.duration) * 1000).overlapping(
    from,
    to,
    MAX_STARTS_PER_WINDOW + 1,
  );
  const out: PlannedSlotView[] = list
    .slice(0, MAX_STARTS_PER_WINDOW)
    .map((o) => ({ windowId: window.id, start: o.start, end: o.end }));
  const over = list[MAX_STARTS_PER_WINDOW];
  if (over) out.push({ windowId: window.id, start: over.start, end: to, band: true });
  return out;
}

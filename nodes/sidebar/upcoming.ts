import type { SlotView, WindowPlan } from './activity-types';

/** More starts than a timeline can show per window (a minutely window over a week would be 10,080). */
export const MAX_STARTS_PER_WINDOW = 400;

/**
 * The starts of a window's cron in its zone whose slot overlaps [from, to),
 * as lib/schedule's scheduler computes them; a window still running at
 * `from` is included. Past MAX_STARTS_PER_WINDOW starts, the rest of the
 * range is one `band` slot (the window goes on starting; it does not stop
 * where the list does). A cron that no longer compiles yields no slots.
 */
export function plannedSlots(window: WindowPlan, from: number, to: number): SlotView[] {
  if (window.enabled === false) return [];
  const durationMs = Math.max(0, window.duration) * 1000;
  // node-cron loads when a schedule first reports windows, not at Node-RED start
  const { compileCron, nextOccurrence } =
    require('../../lib/schedule/cron') as typeof import('../../lib/schedule/cron');
  let spec: ReturnType<typeof compileCron>;
  try {
    spec = compileCron(window.cron);
  } catch {
    return [];
  }
  const slots: SlotView[] = [];
  let cursor = from - durationMs - 1;
  for (;;) {
    const start = nextOccurrence(spec, cursor, window.timezone);
    if (start === null || start >= to) break;
    if (slots.length === MAX_STARTS_PER_WINDOW) {
      slots.push({ windowId: window.id, start, end: to, phase: 'upcoming', band: true });
      break;
    }
    cursor = start;
    if (start + durationMs > from)
      slots.push({ windowId: window.id, start, end: start + durationMs, phase: 'upcoming' });
  }
  return slots;
}

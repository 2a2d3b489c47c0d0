import type { ActionName, ScheduleView } from '../activity-types';
import { slotWhen } from './format';

/** The schedule's next planned start (what "Start now" starts and "Skip next" skips): its window and when. */
function nextStart(schedule: ScheduleView, now: number): { window: string; when: string } | undefined {
  const slot = schedule.slots.find((s) => s.phase === 'upcoming' && !s.band && s.start > now);
  if (!slot) return undefined;
  const window = schedule.windows.find((w) => w.id === slot.windowId);
  return {
    window: window?.name || slot.windowId,
    when: slotWhen(slot.start, slot.end, window?.timezone ?? 'UTC', now),
  };
}

/** What the tab asks before acting: the schedule, and for start and skip the window and its start. */
export function question(schedule: ScheduleView, action: ActionName, now: number): string {
  const n = schedule.name;
  const next = action === 'start' || action === 'skip' ? nextStart(schedule, now) : undefined;
  switch (action) {
    case 'pause':
      return `Pause the schedule "${n}"? No window starts until it is resumed.`;
    case 'resume':
      return `Resume the schedule "${n}"?`;
    case 'start':
      return next
        ? `Start "${next.window}" of "${n}" now? Its next planned start is ${next.when}.`
        : `Start the next window of "${n}" now?`;
    case 'skip':
      return next
        ? `Skip the next window of "${n}": "${next.window}", ${next.when}?`
        : `Skip the next window of "${n}"?`;
  }
}

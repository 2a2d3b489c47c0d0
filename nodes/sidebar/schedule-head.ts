import type { ActionName, ScheduleControl, ScheduleRegistration, ScheduleView } from './activity-types';

/** The control's method behind each of the tab's actions. */
export const ACTION_METHODS: Record<ActionName, Exclude<keyof ScheduleControl, 'plan' | 'reloadFeed'>> = {
  pause: 'pause',
  resume: 'resume',
  start: 'startNow',
  skip: 'skipNext',
};

/** A schedule as the tab lists it, without its slots. */
export function scheduleHead(r: ScheduleRegistration, control: ScheduleControl): Omit<ScheduleView, 'slots'> {
  return {
    nodeId: r.nodeId,
    name: r.name || unnamedSchedule(r),
    ...(r.z ? { z: r.z } : {}),
    paused: r.paused,
    actions: (Object.keys(ACTION_METHODS) as ActionName[]).filter(
      (a) => typeof control[ACTION_METHODS[a]] === 'function',
    ),
    windows: r.windows.map((w) => ({
      id: w.id,
      name: w.name,
      timezone: w.timezone,
      duration: w.duration,
      enabled: w.enabled !== false,
      ...(w.source && w.source !== 'cron' ? { source: w.source } : {}),
    })),
  };
}

/** "Schedule: Evening news, Live desk" for a schedule node without a name. */
function unnamedSchedule(r: ScheduleRegistration): string {
  const names = r.windows.map((w) => w.name || w.id);
  if (names.length === 0) return 'Schedule (no windows)';
  const shown = names.slice(0, 3).join(', ');
  return `Schedule: ${shown}${names.length > 3 ? ` and ${names.length - 3} more` : ''}`;
}

/** Where the windows come from: YAML typed in the node, a watched YAML file, or the editor's list. */
export const SCHEDULE_SOURCES = ['yaml', 'file', 'editor'] as const;

export type ScheduleSourceName = (typeof SCHEDULE_SOURCES)[number];

export function isScheduleSource(value: unknown): value is ScheduleSourceName {
  return SCHEDULE_SOURCES.some((s) => s === value);
}

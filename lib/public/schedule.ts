/**
 * The public part of lib/schedule, by name (the `schedule` namespace of the
 * package). Parsing helpers, tokenizers and time-zone arithmetic stay internal.
 */
export {
  type ChannelTemplate,
  type FollowupTemplate,
  loadScheduleObject,
  loadScheduleYaml,
  type ParseOptions,
  type ParseResult,
  parseScheduleObject,
  parseScheduleYaml,
  type ScheduleConfig,
  ScheduleConfigError,
  type ScheduleIssue,
  type ScheduleWindow,
  scheduleToYaml,
} from '../schedule/config';
export {
  type CronSpec,
  CronSyntaxError,
  describeCron,
  nextOccurrence,
  nextOccurrences,
  occurrencesBetween,
  parseCron,
} from '../schedule/cron';
export { DurationError, formatDuration, parseDuration } from '../schedule/duration';
export type { EndMessage, StartMessage } from '../schedule/messages';
export { type PreviewRequest, type PreviewResponse, type PreviewWindow, previewSchedule } from '../schedule/preview';
export {
  type EndEvent,
  Scheduler,
  type SchedulerOptions,
  type SchedulerState,
  type SchedulerStore,
  type StartEvent,
  type UpcomingStart,
} from '../schedule/scheduler';
export { isValidTimeZone } from '../schedule/tz';

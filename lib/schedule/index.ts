/**
 * Recording schedules without Node-RED: the schedule document (YAML or
 * object) with line-numbered validation, cron occurrences in IANA time zones
 * with a daylight-saving rule, templates, start/end messages, and a
 * Scheduler driven by an injectable clock and store.
 */
export * from './config';
export * from './cron';
export * from './duration';
export * from './messages';
export * from './plan';
export * from './preview';
export * from './scheduler';
export * from './template';
export { occurrenceOf } from './template-context';
export * from './tz';
export * from './window-source';

export { type ZoneDay, zoneDay } from './day';
export { CSV_COLUMNS, recordsToCsv, recordsToJsonl } from './export';
export { finishedRecord } from './finished';
export { DEFAULT_RETENTION_DAYS, JsonlAsRunStore } from './jsonl-store';
export {
  AS_RUN_OUTCOMES,
  type AsRunChannel,
  type AsRunEntry,
  type AsRunOutcome,
  type AsRunRecord,
  foldRecords,
} from './record';
export { type AsRunQuery, AsRunRecorder, type AsRunRecorderOptions } from './recorder';
export { RedisAsRunStore, type RedisCommands } from './redis-store';

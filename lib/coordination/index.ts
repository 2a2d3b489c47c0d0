/**
 * Coordination of several Node-RED instances through Redis: exactly-once
 * schedule steps (claim / complete with fencing), catch-up mutex, and a shared
 * registry of followed jobs. See README.md in this folder.
 */
export {
  type ConnectionState,
  type ConnectionStatus,
  RedisConnection,
  type RedisConnectionOptions,
} from './connection';
export {
  type ClaimOptions,
  type ClaimResult,
  type CompleteResult,
  Coordinator,
  type CoordinatorOptions,
  type LeaseKeeper,
  type LockResult,
} from './coordinator';
export { CoordinationError, type CoordinationErrorCode, isTransientCoordinationError } from './errors';
export {
  type JobRecord,
  JobRegistry,
  type JobRegistryOptions,
  type JobReport,
  type RegisterResult,
} from './job-registry';
export { DEFAULT_KEY_PREFIX, normalizeSlot, type SlotRef } from './keys';
export {
  adopted,
  keptPending,
  type ListHead,
  type ListSync,
  type LocalList,
  laterList,
  mayWrite,
  nextVersion,
  type PendingList,
  readLocalList,
  syncAction,
  written,
} from './list-versions';
export type { DoneRecord, HeldBy } from './records';
export { type ListRef, type PublishResult, type SharedList, SharedLists } from './shared-lists';
export { checkRedisUrl, parseRedisUrl, REDIS_URL_RULE, type RedisEndpoint, type RedisUrlCheck } from './url';

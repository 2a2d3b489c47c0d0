/**
 * Rules the runtime and the editor share, as plain constants: the editor
 * bundles import this module, so it stays free of zod and of Node built-ins.
 */

/** Workflow statuses of the service description. */
export const WORKFLOW_STATUSES = ['active', 'archived', 'deleted', 'idle'] as const;

/** Polling defaults of lib/watch and of the polling nodes' dialogs. */
export const DEFAULT_INTERVAL_MS = 5000;
export const DEFAULT_BACKOFF_MAX_MS = 60_000;
export const DEFAULT_CONCURRENCY = 8;
export const DEFAULT_ACTIVE_TIMEOUT_MS = 600_000;

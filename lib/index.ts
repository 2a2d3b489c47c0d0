/**
 * The typed library of `@media-spaces/node-red`: a client for the workflow and
 * live-capture areas of the service, its schemas, errors and typecode rules.
 * Usable without Node-RED.
 */
export * from './client';
export * from './errors';
export * from './oauth';
export * from './retry';
/** Recording schedules: YAML windows, cron in IANA time zones, the durable scheduler. */
export * as schedule from './schedule';
export * from './schemas';
export * from './submit-input';
export type { ApiResponse } from './transport';
export * from './typecodes';
/** Polling: following jobs, waiting for workflows, watching the workflow list. */
export * as watch from './watch';

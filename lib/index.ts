/**
 * The typed library of `@media-spaces/node-red`: a client for the workflow and
 * live-capture areas of the service, its schemas, errors and typecode rules.
 * Usable without Node-RED.
 */
export * from './client';
export * from './errors';
export * from './retry';
export * from './schemas';
export * from './submit-input';
export type { ApiResponse } from './transport';
export * from './typecodes';

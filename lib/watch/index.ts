/** Polling: follow jobs, watch the workflow list, wait for a workflow to become active, read channels back. */

export * from '../clock';
export * from './backoff';
export * from './channel-state';
export * from './errors';
export * from './heap';
export * from './job-follower';
export * from './serialize';
export * from './workflow-active';
export * from './workflow-watcher';

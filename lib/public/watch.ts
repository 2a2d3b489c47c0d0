/**
 * The public part of lib/watch, by name (the `watch` namespace of the
 * package). Its heap, backoff arithmetic and serialisation stay internal.
 */
export type { PollTiming } from '../watch/backoff';
export { WatchError, type WatchErrorCode } from '../watch/errors';
export { type FollowedJob, type FollowRequest, JobFollower, type JobFollowerOptions } from '../watch/job-follower';
export {
  type WaitForWorkflowActiveOptions,
  WorkflowActiveWaiter,
  type WorkflowActiveWaiterOptions,
  waitForWorkflowActive,
} from '../watch/workflow-active';
export {
  diffWorkflows,
  type WorkflowChange,
  type WorkflowChangeType,
  WorkflowWatcher,
  type WorkflowWatcherOptions,
} from '../watch/workflow-watcher';

import type { WorkflowJob } from '../../lib/schemas';
import type { ActivityFeed } from '../sidebar/feed';
import { activityFeed, type FeedHost } from '../sidebar/feed-host';

/**
 * What the Media Spaces sidebar shows of one follow-job node: each job it
 * follows (state, progress), how it ended, and why it failed. The controller
 * calls it where a job changes; this module turns that into feed reports.
 */
export class FollowJobSidebar {
  private readonly feed: ActivityFeed;

  constructor(
    RED: FeedHost,
    private readonly nodeId: string,
  ) {
    this.feed = activityFeed(RED);
  }

  /** A read of the job: its state and progress; `reason` when it ended failed or stopped. */
  job(job: WorkflowJob, workflowId: string, reason?: string): void {
    this.feed.reportJob({
      nodeId: this.nodeId,
      jobId: String(job.id),
      workflowId: job.workflow_id ?? workflowId,
      ...(job.name ? { name: job.name } : {}),
      state: String(job.state ?? 'unknown'),
      ...(typeof job.progress === 'number' ? { progress: job.progress } : {}),
      ...(reason ? { reason } : {}),
    });
  }

  /** Following stopped on an error (not found, refused, timed out): the job shows as failed, with why. */
  failed(jobId: string, workflowId: string, error: Error): void {
    this.feed.reportJob({ nodeId: this.nodeId, jobId, workflowId, state: 'failed', reason: error.message });
  }

  /** The node closes: the jobs it still followed leave the tab (a redeployed node reports them again). */
  close(): void {
    this.feed.unregister(this.nodeId);
  }
}

import type { WorkflowJob } from '../../lib/schemas';
import type { ActivityFeed, LiveJobs } from '../sidebar/feed';
import { activityFeed, type FeedHost } from '../sidebar/feed-host';
import type { JobRef } from './job-message';

/**
 * What the Media Spaces sidebar shows of one follow-job node: each job it
 * follows (state, progress), how it ended, and why it failed. The jobs
 * followed now are listed straight from the node's follower (`followed`),
 * so the feed keeps no copy of them; the controller says when one changed,
 * and reports each job's end, which the feed keeps.
 */
export class FollowJobSidebar {
  private readonly feed: ActivityFeed;

  constructor(
    RED: FeedHost,
    private readonly nodeId: string,
    followed: LiveJobs,
  ) {
    this.feed = activityFeed(RED);
    this.feed.followJobs(nodeId, followed);
  }

  /** A job is followed from now on: shown at once, as the input tells of it (until the first read). */
  following(ref: JobRef): void {
    this.feed.forgetJob(this.nodeId, ref.jobId);
    this.feed.jobsChanged();
  }

  /** A followed job's state or progress changed, or jobs joined or left the list. */
  changed(): void {
    this.feed.jobsChanged();
  }

  /** The job's last read: it ended; `reason` when it ended failed or stopped. */
  ended(job: WorkflowJob, workflowId: string, reason?: string, jobId?: string): void {
    const id = String(job.id);
    const wf = job.workflow_id ?? workflowId;
    this.feed.reportJob({
      nodeId: this.nodeId,
      // the follower's own id strings when they are the same text: the feed then keeps no copy of each read's
      jobId: id === jobId ? jobId : id,
      workflowId: wf === workflowId ? workflowId : wf,
      ...(job.name ? { name: job.name } : {}),
      state: String(job.state ?? 'unknown'),
      ...(typeof job.progress === 'number' ? { progress: job.progress } : {}),
      ...(reason ? { reason } : {}),
    });
  }

  /** The follow-up job of a schedule's slot ended: the slot shows it. */
  slotJob(slotKey: string, job: { id: string; state: string }): void {
    this.feed.slotJob(slotKey, job);
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

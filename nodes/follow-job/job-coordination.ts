import {
  CoordinationError,
  type Coordinator,
  isTransientCoordinationError,
  type JobRecord,
} from '../../lib/coordination';
import { isPlainObject } from '../../lib/guards';
import { doublingDelay, retryUntilDeadline } from '../../lib/retry-until';
import type { JobFollower } from '../../lib/watch';
import type { CoordinationProvider } from '../shared/coordination-provider';

/** What the coordination needs from the follow-job node. */
interface JobHost {
  /** Follows a job another instance followed (its message as it was registered). */
  adopt(record: JobRecord): void;
  /** Stops following a job now owned (or reported) by another instance. */
  drop(jobId: string): void;
  /** The jobs this instance follows, with the message each was given with. */
  followed(): { jobId: string; workflowId: string; data: unknown }[];
  log(text: string): void;
  warn(text: string): void;
}

/** The host for a JobFollower: a job taken over is followed with the message it was registered with. */
export function followerHost<H>(
  follower: Pick<JobFollower<H>, 'follow' | 'unfollow' | 'list'>,
  node: { log(text: string): void; warn(text: string): void },
  show: () => void,
): JobHost {
  return {
    adopt: (record) => {
      const data = isPlainObject(record.meta) ? record.meta.data : undefined;
      if (!record.workflowId) return node.warn(`job ${record.jobId} taken over without a workflow id`);
      follower.follow({
        jobId: record.jobId,
        workflowId: record.workflowId,
        data,
        deadline: null,
        key: isPlainObject(data) && typeof data.idempotency_key === 'string' ? data.idempotency_key : undefined,
      });
      show();
    },
    drop: (jobId) => {
      for (const e of follower.list()) if (e.jobId === jobId) follower.unfollow(e.workflowId, e.jobId);
      show();
    },
    followed: () =>
      follower.list().map((e) => ({ jobId: e.jobId, workflowId: e.workflowId, data: e.waiters[0]?.data })),
    log: (text) => node.log(text),
    warn: (text) => node.warn(text),
  };
}

/** What register() decided for a job given to this node. */
type Admission = 'follow' | 'owned' | 'reported';

/**
 * How long a terminal state waits for Redis (a restart, a reconnect, a stall) before this instance reports it
 * alone: the schedule's reports wait as long (slot-coordination.ts).
 */
const REPORT_WAIT_MS = 10_000;
/** Backoff between two tries of a report while Redis cannot be used. */
const REPORT_RETRY_FIRST_MS = 250;
const REPORT_RETRY_MAX_MS = 2_000;

/**
 * The follow-job node's part in the coordination: each followed job is
 * registered in Redis with this instance as owner and a heartbeat; jobs whose
 * owner went silent (a dead instance) are taken over; the terminal state is
 * reported by exactly one instance (reportOnce). Without Redis a job is
 * followed and reported locally: a report twice beats none.
 */
export class JobCoordination {
  private readonly timer: ReturnType<typeof setInterval>;
  private busy = false;
  private warned = false;
  private closed = false;
  private readonly abort = new AbortController();
  /** Redis was out of use when a report last waited for it: reports go without waiting, until one goes through */
  private reportingAlone = false;
  /**
   * Jobs this instance reported alone, Redis out of use: their report is written to Redis once it is back, so
   * that the job leaves the registry and no other instance takes it over (its heartbeat stopped) and reports it
   * again.
   */
  private readonly reportedAlone = new Map<string, string>();
  private readonly reportWaitMs: number;

  constructor(
    private readonly provider: CoordinationProvider | undefined,
    private readonly problem: string | undefined,
    private readonly host: JobHost,
    options: { reportWaitMs?: number } = {},
  ) {
    this.reportWaitMs = options.reportWaitMs ?? REPORT_WAIT_MS;
    const heartbeatMs = this.tryCoordinator()?.jobs.heartbeatMs ?? 30_000;
    this.timer = setInterval(() => void this.beat(), Math.max(100, Math.floor(heartbeatMs / 3)));
    this.timer.unref?.();
  }

  async admit(jobId: string, workflowId: string, data: unknown): Promise<Admission> {
    try {
      const result = await this.coordinator().jobs.register({ jobId, workflowId, meta: { data } });
      if (result.status === 'registered') return 'follow';
      this.host.log(
        result.status === 'owned'
          ? `job ${jobId} is followed by ${result.record.owner}: not followed here`
          : `job ${jobId} was already reported (${result.report.state}) by ${result.report.instance}`,
      );
      return result.status;
    } catch (err) {
      this.unusable(err, `job ${jobId} followed by this instance without Redis`);
      return 'follow';
    }
  }

  /**
   * True when this instance is the one to send the job's terminal state. While Redis cannot be used (a restart,
   * a reconnect) the report is tried again for up to REPORT_WAIT_MS: a report sent alone at once would leave
   * the job in the registry under a heartbeat that stops, for another instance to take over and report again.
   * Past the wait this instance reports alone (a report twice beats none) and writes it to Redis once back.
   */
  async report(jobId: string, state: string): Promise<boolean> {
    const terminal = state || 'unknown';
    try {
      const { won, report } = await retryUntilDeadline({
        deadline: this.reportingAlone ? Date.now() : Date.now() + this.reportWaitMs,
        signal: this.abort.signal,
        attempt: () => this.coordinator().jobs.reportOnce(jobId, terminal),
        decide: (err, n) =>
          isTransientCoordinationError(err) && !this.closed
            ? { retry: true, delayMs: doublingDelay(n, REPORT_RETRY_FIRST_MS, REPORT_RETRY_MAX_MS) }
            : { retry: false },
      });
      this.reportingAlone = false;
      if (!won) this.host.log(`job ${jobId}: ${report.instance} already reported it (${report.state})`);
      return won;
    } catch (err) {
      if (this.closed || this.abort.signal.aborted) return false;
      if (isTransientCoordinationError(err)) {
        this.reportingAlone = true;
        this.reportedAlone.set(jobId, terminal);
      }
      this.unusable(err, `job ${jobId} reported by this instance without Redis`);
      return true;
    }
  }

  /** On removal: the jobs go back to the registry at once, for another instance to take over. */
  close(removed: boolean): void {
    this.closed = true;
    this.abort.abort();
    clearInterval(this.timer);
    if (!removed) return;
    const coordinator = this.tryCoordinator();
    for (const { jobId } of this.host.followed()) void coordinator?.jobs.release(jobId).catch(() => false);
  }

  private async beat(): Promise<void> {
    if (this.busy || this.closed) return;
    this.busy = true;
    try {
      const jobs = this.coordinator().jobs;
      await this.recordReportedAlone();
      const followed = this.host.followed();
      const { lost } = await jobs.heartbeat(followed.map((f) => f.jobId));
      for (const id of lost) {
        const job = followed.find((f) => f.jobId === id);
        if (job && (await this.vanished(id))) await this.admit(job.jobId, job.workflowId, job.data);
        else this.host.drop(id);
      }
      for (const record of await jobs.takeOver()) {
        if (this.closed) break;
        this.host.log(`taking over job ${record.jobId} from ${record.previousOwner ?? 'an instance that went silent'}`);
        this.host.adopt(record);
      }
      this.warned = false;
      this.reportingAlone = false;
    } catch (err) {
      this.unusable(err, 'followed jobs not shared with other instances until it is back');
    } finally {
      this.busy = false;
    }
  }

  /** The reports sent alone while Redis was out of use, written to it now that it answers. */
  private async recordReportedAlone(): Promise<void> {
    const jobs = this.coordinator().jobs;
    for (const [jobId, state] of [...this.reportedAlone]) {
      const { won, report } = await jobs.reportOnce(jobId, state);
      this.reportedAlone.delete(jobId);
      if (!won) this.host.warn(`job ${jobId} was reported by ${report.instance} too, while Redis was out of use`);
    }
  }

  /** Neither owned nor reported: Redis lost its data (restart without persistence). We follow on, registered again. */
  private async vanished(jobId: string): Promise<boolean> {
    const jobs = this.coordinator().jobs;
    return (await jobs.get(jobId)) === undefined && (await jobs.getReport(jobId)) === undefined;
  }

  private coordinator(): Coordinator {
    if (!this.provider) throw new CoordinationError('invalid_config', this.problem ?? 'no coordination node');
    return this.provider.getCoordinator();
  }

  private tryCoordinator(): Coordinator | undefined {
    try {
      return this.coordinator();
    } catch {
      return undefined;
    }
  }

  /** Warned once per outage, not on every heartbeat. */
  private unusable(err: unknown, consequence: string): void {
    if (this.warned || this.closed) return;
    this.warned = true;
    this.host.warn(`Redis coordination unusable (${err instanceof Error ? err.message : String(err)}): ${consequence}`);
  }
}

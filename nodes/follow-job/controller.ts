import type { MediaSpacesClient } from '../../lib/client';
import { isPlainObject } from '../../lib/guards';
import type { WorkflowJob } from '../../lib/schemas';
import { JobFollower, type JobWaiter, type PersistedJob, serializableOrSelf, toSerializable } from '../../lib/watch';
import { findCoordination } from '../shared/coordination-provider';
import { resolveMessageInputs } from '../shared/inputs';
import type { DoneFunction, NodeAPI, NodeContext, NodeDef, NodeMessage, NodeStatus } from '../shared/node-red-types';
import { Handover } from '../shared/node-state';
import { closeWith, errorStatus, failWith, type PollNode, retryStatus } from '../shared/poll-node';
import { pollTiming } from '../shared/poll-settings';
import { clientFor } from '../shared/server-client';
import { dialogLabels, settingsWithWarnings } from '../shared/settings';
import { StatusBoard } from '../shared/status-board';
import { FIELDS } from './fields';
import { followerHost, JobCoordination } from './job-coordination';
import { describeJob, type JobRef, jobFailure, jobRef } from './job-message';
import { ReportedJobs, type ReportedRecord } from './reported-jobs';
import { FOLLOW_INPUTS, type FollowJobSettings, followJobSettings } from './settings';
import { FollowJobSidebar } from './sidebar-report';
import { reportSlotJob } from './slot-outcome';

/** Node context keys of the followed jobs and of the jobs reported lately. */
const FOLLOWED_KEY = 'mediaSpacesFollowedJobs';
const REPORTED_KEY = 'mediaSpacesReportedJobs';

const followedHandover = new Handover<PersistedJob[]>();
const reportedHandover = new Handover<ReportedRecord[]>();

/**
 * A live input: its done, and its message unless the waiter's data is the
 * message itself (a plain one: see serializableOrSelf), so that most
 * followed jobs need no object for it. Not its send: for a node with one
 * input handler, Node-RED's send calls node.send (Node.js _emitInput), so the
 * node sends through node.send and no followed job holds a closure for it.
 */
type Handle = DoneFunction | { msg: NodeMessage; done: DoneFunction };

type Waiter = JobWaiter<Handle>;

/**
 * Follows each input's job until a terminal state: progress on output 2,
 * succeeded on output 1, failed or stopped as an error. The followed jobs
 * live in the node context (and pass to a redeployed successor), so they are
 * followed on after a redeploy or a restart.
 */
class FollowJobController {
  private readonly follower: JobFollower<Handle>;
  private readonly reported = new ReportedJobs();
  private readonly context: NodeContext;
  private loaded = false;
  private closed = false;
  private last: NodeStatus | undefined;
  private readonly sidebar: FollowJobSidebar;
  private readonly coordination: JobCoordination | undefined;

  constructor(
    private readonly RED: NodeAPI,
    private readonly node: PollNode,
    private readonly settings: FollowJobSettings,
    private readonly status: StatusBoard,
    client: () => MediaSpacesClient,
  ) {
    this.context = node.context();
    const timing = pollTiming(settings);
    this.follower = new JobFollower<Handle>({
      ...timing,
      concurrency: settings.concurrency,
      timeoutMs: settings.timeout ?? 0,
      // saves at most once a second (or once per interval when shorter)
      persistDelayMs: Math.min(1000, timing.intervalMs),
      // the callbacks get each read; nothing here looks at the last one later
      keepJobBodies: false,
      // no retries inside the call: the follower reads again at its next interval, never twice within one
      getJob: async (workflowId, jobId, signal) =>
        (await client().getJob(workflowId, jobId, { signal, retries: 0 })).data,
      onProgress: (job, entry) => this.progressed(job, entry.waiters, entry.workflowId),
      onDone: (job, entry) => this.ended(job, entry.waiters, entry.jobId, entry.workflowId),
      onError: (error, waiters, entry) => this.failed(error, waiters, entry.jobId, entry.workflowId),
      onRetry: (error, _entry, delayMs) =>
        status.set(retryStatus(error, 'Get job', delayMs, `following ${this.follower.size}; `)),
      onPersist: (records) => this.persist(records),
    });
    this.sidebar = new FollowJobSidebar(RED, node.id, () => this.follower.list());
    this.coordination = this.coordinate();
    this.load();
  }

  input(msg: NodeMessage, done: DoneFunction): void {
    try {
      const inputs = resolveMessageInputs(this.RED, this.node, msg, this.settings, FOLLOW_INPUTS);
      const ref = jobRef(msg, inputs);
      const timeoutMs = inputs.timeout;
      if (msg.replay === true && this.reported.jobOf(msg.idempotency_key) === ref.jobId) {
        // a schedule's end replayed after a restart, for a job this node already reported
        this.node.debug(`job ${ref.jobId} was reported before the restart; replay of ${msg.idempotency_key} ignored`);
        done();
        return;
      }
      if (!this.coordination) {
        this.followNow(msg, ref, timeoutMs, done);
        return;
      }
      this.coordination.admit(ref.jobId, ref.workflowId, toSerializable(msg)).then((admission) => {
        if (this.closed || admission !== 'follow') done();
        else this.followNow(msg, ref, timeoutMs, done);
      });
    } catch (error) {
      this.status.set(errorStatus(error));
      failWith(this.node, msg, error, done);
    }
  }

  private followNow(msg: NodeMessage, ref: JobRef, timeoutMs: number | undefined, done: DoneFunction): void {
    try {
      // the message itself when it is plain JSON: it is held for its output anyway, and stays unchanged until then
      const data = serializableOrSelf(msg);
      this.follower.follow({
        jobId: ref.jobId,
        workflowId: ref.workflowId,
        job: ref.known,
        data,
        handle: data === msg ? done : { msg, done },
        timeoutMs: timeoutMs === 0 ? undefined : timeoutMs,
        deadline: timeoutMs === 0 ? null : undefined,
        // a submission replayed after a restart (same idempotency key) takes over the resumed waiter
        key: typeof msg.idempotency_key === 'string' ? msg.idempotency_key : undefined,
      });
      this.sidebar.following(ref);
      this.show();
    } catch (error) {
      this.status.set(errorStatus(error));
      failWith(this.node, msg, error, done);
    }
  }

  /** With a coordination node: followed jobs are shared through Redis (see job-coordination.ts). */
  private coordinate(): JobCoordination | undefined {
    if (!this.settings.coordination) return undefined;
    const { provider, problem } = findCoordination((id) => this.RED.nodes.getNode(id), this.settings.coordination);
    if (problem) this.node.error(problem);
    return new JobCoordination(
      provider,
      problem,
      followerHost(this.follower, this.node, () => {
        this.sidebar.changed();
        this.show();
      }),
    );
  }

  /** Sends the terminal outcome unless another instance already did (coordination); either way the inputs are done. */
  private reportOnce(jobId: string, state: string, waiters: Waiter[], send: () => void): void {
    if (!this.coordination) {
      send();
      return;
    }
    this.coordination.report(jobId, state).then((won) => {
      if (won && !this.closed) send();
      else for (const w of waiters) doneOf(w)?.();
    });
  }

  /** A removed node forgets its jobs; a redeployed one saves them for its successor. */
  close(removed: boolean): Promise<void> {
    this.closed = true;
    this.sidebar.close();
    this.coordination?.close(removed);
    const records = this.loaded ? this.follower.snapshot() : [];
    this.follower.close({ persist: false });
    if (removed) {
      followedHandover.drop(this.node.id);
      reportedHandover.drop(this.node.id);
      return this.save(undefined, undefined);
    }
    if (records.length > 0) followedHandover.keep(this.node.id, records);
    const reported = this.reported.records();
    if (reported !== undefined) reportedHandover.keep(this.node.id, reported);
    if (!this.loaded) return Promise.resolve();
    return this.save(records.length > 0 ? records : undefined, reported);
  }

  /** Resumes what the previous instance of this node was following: from a predecessor, else the context. */
  private load(): void {
    const handed = followedHandover.take(this.node.id);
    const handedReported = reportedHandover.take(this.node.id);
    if (handed !== undefined || handedReported !== undefined) {
      this.reported.restore(handedReported);
      this.finishLoading(handed);
      return;
    }
    try {
      this.context.get(REPORTED_KEY, (err, value) => {
        if (!err) this.reported.restore(value);
        this.context.get(FOLLOWED_KEY, (err2, records) => this.finishLoading(err2 ? undefined : records));
      });
    } catch {
      this.finishLoading(undefined);
    }
  }

  private finishLoading(value: unknown): void {
    if (this.loaded || this.closed) return;
    this.loaded = true;
    const resumed = this.follower.resume(value);
    if (resumed > 0) this.node.log(`resuming ${resumed} followed job${resumed === 1 ? '' : 's'}`);
    // after a restart this process has a new instance id: claim the jobs again, unless a survivor took them over
    for (const e of this.coordination ? this.follower.list() : []) {
      void this.coordination?.admit(e.jobId, e.workflowId, e.waiters[0]?.data).then((admission) => {
        if (admission !== 'follow' && this.follower.unfollow(e.workflowId, e.jobId)) this.sidebar.changed();
      });
    }
    this.follower.flush();
    if (resumed > 0) this.sidebar.changed();
    this.show();
  }

  private progressed(job: WorkflowJob, waiters: Waiter[], workflowId: string): void {
    this.sidebar.changed();
    for (const w of waiters) {
      // the input's payload is not cloned: the job read replaces it
      const { payload: _replaced, ...rest } = this.messageOf(w);
      const msg = this.RED.util.cloneMessage(rest);
      describeJob(msg, job, workflowId);
      this.node.send([null, msg]);
    }
    this.show();
  }

  private ended(job: WorkflowJob, waiters: Waiter[], jobId: string, workflowId: string): void {
    const state = String(job.state ?? '').toLowerCase();
    this.sidebar.ended(job, workflowId, state === 'succeeded' ? undefined : jobFailure(job, workflowId).message, jobId);
    this.reportOnce(jobId, state, waiters, () => this.sendEnded(job, waiters, jobId, workflowId, state));
  }

  private sendEnded(job: WorkflowJob, waiters: Waiter[], jobId: string, workflowId: string, state: string): void {
    this.reported.note(
      waiters.map((w) => w.key),
      jobId,
    );
    for (const w of waiters) {
      const msg = this.messageOf(w);
      // before describeJob: the job read replaces the payload, never the slot the message names
      reportSlotJob(msg, job, workflowId, (slot, outcome) => this.sidebar.slotJob(slot, outcome));
      describeJob(msg, job, workflowId);
      if (state === 'succeeded') {
        this.node.send([msg, null]);
        doneOf(w)?.();
      } else {
        failWith(this.node, msg, jobFailure(job, workflowId), doneOf(w));
      }
    }
    this.show(
      state === 'succeeded'
        ? { fill: 'green', shape: 'dot', text: `succeeded: ${job.name ?? job.id}` }
        : { fill: 'red', shape: 'ring', text: `${state}: ${job.name ?? job.id}` },
    );
  }

  private failed(error: Error, waiters: Waiter[], jobId: string, workflowId: string): void {
    // a timeout of some of a job's messages: the job is still followed for the others, and shows as such
    if (this.follower.get(workflowId, jobId) === undefined) this.sidebar.failed(jobId, workflowId, error);
    this.reportOnce(jobId, 'error', waiters, () => this.sendFailed(error, waiters, jobId, workflowId));
  }

  private sendFailed(error: Error, waiters: Waiter[], jobId: string, workflowId: string): void {
    this.reported.note(
      waiters.map((w) => w.key),
      jobId,
    );
    for (const w of waiters) {
      const msg = this.messageOf(w);
      msg.job_id = jobId;
      msg.workflow_id = workflowId;
      failWith(this.node, msg, error, doneOf(w));
    }
    this.show(errorStatus(error));
  }

  private persist(records: PersistedJob[]): void {
    if (!this.loaded || this.closed) return;
    this.context.set(FOLLOWED_KEY, records.length > 0 ? records : undefined, () => undefined);
    this.context.set(REPORTED_KEY, this.reported.records(), () => undefined);
  }

  private save(followed: PersistedJob[] | undefined, reported: ReportedRecord[] | undefined): Promise<void> {
    return new Promise<void>((resolve) => {
      try {
        this.context.set(REPORTED_KEY, reported);
        this.context.set(FOLLOWED_KEY, followed, () => resolve());
      } catch {
        resolve();
      }
    });
  }

  /** The number of followed jobs while there are any (one job with its progress), else the last outcome. */
  private show(outcome?: NodeStatus): void {
    if (outcome) this.last = outcome;
    const n = this.follower.size;
    if (n === 0) {
      this.status.set(this.last ?? {});
      return;
    }
    // one job: its progress says more than the count (a snapshot of one entry is cheap)
    const progress = n === 1 ? this.follower.snapshot()[0]?.progress : undefined;
    const percent = typeof progress === 'number' && Number.isFinite(progress) ? `: ${Math.round(progress)}%` : '';
    this.status.set({ fill: 'blue', shape: 'dot', text: `following ${n} job${n === 1 ? '' : 's'}${percent}` });
  }

  private messageOf(w: Waiter): NodeMessage {
    const handle = w.handle;
    if (handle !== undefined && typeof handle !== 'function') return handle.msg;
    return isPlainObject(w.data) ? w.data : {};
  }
}

/** The live input's done; undefined for a job resumed after a restart. */
function doneOf(w: Waiter): DoneFunction | undefined {
  const handle = w.handle;
  return typeof handle === 'function' ? handle : handle?.done;
}

/** The node's runtime, from its deploy on. */
export function start(RED: NodeAPI, node: PollNode, def: NodeDef): void {
  const warn = (text: string) => node.warn(text);
  const settings = settingsWithWarnings(followJobSettings, def, dialogLabels(RED, def.type, FIELDS), warn);
  const status = new StatusBoard(node);
  const controller = new FollowJobController(RED, node, settings, status, () => clientFor(RED, def.server, 'workflow'));
  // the controller sends through node.send, which is what Node-RED's send does for one input handler
  node.on('input', (msg, _send, done) => controller.input(msg, done));
  closeWith(node, status, (removed) => controller.close(removed));
}

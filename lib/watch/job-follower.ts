import { setMaxListeners } from 'node:events';
import { type Clock, MAX_TIMER_MS, systemClock } from '../clock';
import { MediaSpacesError } from '../errors';
import { DEFAULT_CONCURRENCY, TERMINAL_JOB_STATES } from '../rules';
import type { WorkflowJob } from '../schemas';
import {
  finitePositive,
  isAbortError,
  isTransientError,
  type PollTiming,
  pollDelay,
  type ResolvedTiming,
  resolveTiming,
} from './backoff';
import { WatchError } from './errors';
import { MinHeap } from './heap';

/** Reads one job; given an AbortSignal that fires when the follower closes. */
export type GetJob = (workflowId: string, jobId: string, signal: AbortSignal) => Promise<WorkflowJob>;

/**
 * One party interested in a job. `data` is plain JSON and survives a restart
 * (it is what `snapshot()` returns); `handle` is runtime-only (for a
 * Node-RED node: the message's send/done) and is absent after a restart.
 */
export interface JobWaiter<H = unknown> {
  data: unknown;
  handle?: H;
  /** Absolute time (clock ms) after which this waiter gives up; none when absent. */
  deadline?: number;
  /** Identifies the party (e.g. the message's idempotency key); see FollowRequest.key. */
  key?: string;
}

export interface FollowedJob<H = unknown> {
  readonly key: string;
  readonly jobId: string;
  readonly workflowId: string;
  waiters: JobWaiter<H>[];
  /** The last job body read (or given to follow()); not kept with `keepJobBodies: false`. */
  job?: WorkflowJob;
  state?: string;
  progress?: number;
  /** Requests sent for this job so far (by this follower). */
  polls: number;
  /** Consecutive transient errors. */
  errors: number;
}

/** The persisted form of a followed job. */
export interface PersistedJob {
  jobId: string;
  workflowId: string;
  state?: string;
  progress?: number;
  waiters: { data: unknown; deadline?: number; key?: string }[];
}

export interface FollowRequest<H = unknown> {
  jobId: string;
  workflowId: string;
  /** What the caller already knows (e.g. the submit response); progress is reported relative to it. */
  job?: Partial<WorkflowJob>;
  data?: unknown;
  handle?: H;
  /** Give up after this many ms (0 or absent: the follower's timeoutMs). */
  timeoutMs?: number;
  /** Absolute deadline, used when resuming; overrides timeoutMs (null: no deadline). */
  deadline?: number | null;
  /**
   * Identifies the party waiting, so that a request delivered again (a
   * replay after a restart) does not wait twice: a waiter with a handle
   * takes the place of a resumed one (no handle) with the same key, and a
   * resumed one is not added next to a waiter with its key.
   */
  key?: string;
}

export interface JobFollowerOptions<H = unknown> extends PollTiming {
  getJob: GetJob;
  clock?: Clock;
  /** Requests in flight at most (default 8). */
  concurrency?: number;
  /** Default give-up time per followed job in ms; 0 = never (default). */
  timeoutMs?: number;
  /**
   * Keep each job's last body on its FollowedJob (default true). The callbacks get
   * the body anyway; a caller that follows thousands of jobs and never reads
   * `FollowedJob.job` saves about half a kilobyte per job with false.
   */
  keepJobBodies?: boolean;
  /** States that end the follow (default succeeded, failed, stopped). */
  terminalStates?: readonly string[];
  isTransient?: (error: unknown) => boolean;
  /** State or progress changed (not called for the terminal read). */
  onProgress?: (job: WorkflowJob, entry: FollowedJob<H>) => void;
  /** The job reached a terminal state; it is no longer followed. */
  onDone?: (job: WorkflowJob, entry: FollowedJob<H>) => void;
  /**
   * A non-transient error (404, 401, 403, a bad id, ...) or a timeout ended
   * the follow for `waiters` (all of them, except for a timeout).
   */
  onError?: (error: MediaSpacesError | Error, waiters: JobWaiter<H>[], entry: FollowedJob<H>) => void;
  /** A transient error; the job is polled again after `delayMs`. */
  onRetry?: (error: unknown, entry: FollowedJob<H>, delayMs: number) => void;
  /** The set of followed jobs changed; save `records` to survive a restart. */
  onPersist?: (records: PersistedJob[]) => void;
  /**
   * Least time between two saves (default 1000 ms): changes are saved at once
   * after a quiet period, then at most once per this delay.
   */
  persistDelayMs?: number;
}

interface Entry<H> extends FollowedJob<H> {
  nextPollAt: number;
  lastPollAt: number;
  inFlight: boolean;
  removed: boolean;
  ticket: number;
}

interface HeapNode<H> {
  entry: Entry<H>;
  ticket: number;
}

/**
 * Follows many jobs until each reaches a terminal state, with one timer for
 * all of them: jobs wait in a min-heap ordered by their next due time, at most
 * `concurrency` requests are in flight, and a job is read at most once per
 * interval, measured from the answer to its previous request: the service
 * received that request before its answer came back, so it never sees two
 * requests for one job less than an interval apart, whatever the network's
 * delays (measured from the request's start, a slow first request
 * let the next one arrive early). Transient errors
 * back off exponentially per job; other errors end that job's follow.
 */
export class JobFollower<H = unknown> {
  private readonly clock: Clock;
  private readonly timing: ResolvedTiming;
  private readonly concurrency: number;
  private readonly timeoutMs: number;
  private readonly terminal: Set<string>;
  private readonly isTransient: (error: unknown) => boolean;
  private readonly persistDelayMs: number;
  private readonly keepJobBodies: boolean;
  private readonly entries = new Map<string, Entry<H>>();
  private readonly heap = new MinHeap<HeapNode<H>>();
  // one controller for every read, aborted on close: the transport adds and removes a listener per
  // request, so nothing accumulates on it, and a controller per read cost ~17 us and 2 KB
  private readonly closing = new AbortController();
  private inFlightCount = 0;
  private requestCount = 0;
  private timer: unknown;
  private timerAt = Number.POSITIVE_INFINITY;
  private closed = false;
  private dirty = false;
  private lastPersistAt = Number.NEGATIVE_INFINITY;

  constructor(private readonly options: JobFollowerOptions<H>) {
    if (typeof options?.getJob !== 'function') throw new TypeError('JobFollower needs a getJob function');
    this.clock = options.clock ?? systemClock;
    this.timing = resolveTiming(options);
    this.concurrency = Math.max(1, Math.floor(finitePositive(options.concurrency, DEFAULT_CONCURRENCY)));
    this.timeoutMs = finitePositive(options.timeoutMs, 0);
    this.terminal = new Set((options.terminalStates ?? TERMINAL_JOB_STATES).map((s) => s.toLowerCase()));
    this.isTransient = options.isTransient ?? isTransientError;
    this.persistDelayMs = typeof options.persistDelayMs === 'number' ? Math.max(0, options.persistDelayMs) : 1000;
    this.keepJobBodies = options.keepJobBodies !== false;
    setMaxListeners(0, this.closing.signal);
  }

  /** Jobs being followed. */
  get size(): number {
    return this.entries.size;
  }

  /** Requests currently in flight. */
  get inFlight(): number {
    return this.inFlightCount;
  }

  /** Requests started since construction. */
  get requests(): number {
    return this.requestCount;
  }

  get isClosed(): boolean {
    return this.closed;
  }

  isTerminal(state: unknown): boolean {
    return typeof state === 'string' && this.terminal.has(state.toLowerCase());
  }

  get(workflowId: string, jobId: string): FollowedJob<H> | undefined {
    return this.entries.get(keyOf(workflowId, jobId));
  }

  list(): FollowedJob<H>[] {
    return [...this.entries.values()];
  }

  /**
   * Starts following a job (or adds a waiter to a job already followed).
   * The first read happens at once (on the next timer tick), or one interval
   * later when `request.job` gives the job's id and a state that is not final.
   * Throws MediaSpacesError `invalid_input` when the ids are missing.
   */
  follow(request: FollowRequest<H>): FollowedJob<H> {
    if (this.closed) throw new MediaSpacesError({ code: 'aborted', message: 'the job follower is closed' });
    const jobId = idText(request.jobId, 'job_id');
    const workflowId = idText(request.workflowId, 'workflow_id');
    const now = this.clock.now();
    const timeoutMs = finitePositive(request.timeoutMs, this.timeoutMs);
    const deadline =
      request.deadline === null
        ? undefined
        : typeof request.deadline === 'number' && Number.isFinite(request.deadline)
          ? request.deadline
          : timeoutMs > 0
            ? now + timeoutMs
            : undefined;
    const waiter: JobWaiter<H> = { data: request.data, handle: request.handle, deadline };
    if (typeof request.key === 'string' && request.key !== '') waiter.key = request.key;
    const key = keyOf(workflowId, jobId);
    let entry = this.entries.get(key);
    if (entry) {
      const same = waiter.key === undefined ? -1 : entry.waiters.findIndex((w) => w.key === waiter.key);
      if (same < 0 || (waiter.handle !== undefined && entry.waiters[same].handle !== undefined)) {
        entry.waiters.push(waiter);
      } else if (waiter.handle !== undefined) {
        entry.waiters[same] = waiter;
      } else {
        return entry;
      }
      if (!entry.inFlight && deadline !== undefined) this.schedule(entry);
    } else {
      const known = request.job;
      // a job body given with a state that is not final is what the service said a moment ago (the submit
      // response, or the predecessor's last read on a redeploy): reading it again at once would be a second
      // request for it within one interval, so its first read comes one interval later
      const fresh = known !== undefined && typeof known.id === 'string' && typeof known.state === 'string';
      entry = {
        key,
        jobId,
        workflowId,
        waiters: [waiter],
        job: this.keepJobBodies && known && typeof known.id === 'string' ? (known as WorkflowJob) : undefined,
        state: typeof known?.state === 'string' ? known.state : undefined,
        progress: typeof known?.progress === 'number' ? known.progress : undefined,
        polls: 0,
        errors: 0,
        nextPollAt: fresh && !this.isTerminal(known.state) ? now + this.timing.intervalMs : now,
        lastPollAt: Number.NEGATIVE_INFINITY,
        inFlight: false,
        removed: false,
        ticket: 0,
      };
      this.entries.set(key, entry);
      this.schedule(entry);
    }
    this.markDirty();
    return entry;
  }

  /** Re-follows jobs saved by onPersist (after a restart); their waiters have no handle. */
  resume(records: unknown): number {
    if (!Array.isArray(records)) return 0;
    let count = 0;
    for (const record of records as PersistedJob[]) {
      if (record === null || typeof record !== 'object') continue;
      if (typeof record.jobId !== 'string' || typeof record.workflowId !== 'string') continue;
      const waiters = Array.isArray(record.waiters) && record.waiters.length > 0 ? record.waiters : [{ data: {} }];
      for (const w of waiters) {
        try {
          this.follow({
            jobId: record.jobId,
            workflowId: record.workflowId,
            job: { id: record.jobId, state: record.state, progress: record.progress } as Partial<WorkflowJob>,
            data: w?.data,
            deadline: typeof w?.deadline === 'number' ? w.deadline : null,
            key: typeof w?.key === 'string' ? w.key : undefined,
          });
          count++;
        } catch {
          // an unusable record is skipped
        }
      }
    }
    return count;
  }

  /** Stops following a job without calling any callback. */
  unfollow(workflowId: string, jobId: string): boolean {
    const entry = this.entries.get(keyOf(workflowId, jobId));
    if (!entry) return false;
    this.remove(entry);
    this.pump();
    return true;
  }

  /** The persisted form of every followed job. */
  snapshot(): PersistedJob[] {
    const out: PersistedJob[] = [];
    for (const e of this.entries.values()) {
      const record: PersistedJob = {
        jobId: e.jobId,
        workflowId: e.workflowId,
        waiters: e.waiters.map((w) => {
          const out: PersistedJob['waiters'][number] = { data: w.data };
          if (w.deadline !== undefined) out.deadline = w.deadline;
          if (w.key !== undefined) out.key = w.key;
          return out;
        }),
      };
      if (e.state !== undefined) record.state = e.state;
      if (e.progress !== undefined) record.progress = e.progress;
      out.push(record);
    }
    return out;
  }

  /** Saves now if anything changed since the last save. */
  flush(): void {
    if (!this.dirty || !this.options.onPersist) return;
    this.dirty = false;
    this.lastPersistAt = this.clock.now();
    try {
      this.options.onPersist(this.snapshot());
    } catch {
      // persistence is best effort; the follow goes on
    }
  }

  /**
   * Stops everything: clears the timer, aborts in-flight requests, and calls
   * no callback afterwards. With `persist` (default) the current set is saved
   * first so that a restart resumes it.
   */
  close(options: { persist?: boolean } = {}): void {
    if (this.closed) return;
    if (options.persist !== false) {
      this.dirty = true;
      this.flush();
    }
    this.closed = true;
    this.disarm();
    this.closing.abort();
    this.heap.clear();
    this.entries.clear();
  }

  // ------------------------------------------------------------------ loop

  private schedule(entry: Entry<H>): void {
    let at = entry.nextPollAt;
    for (const w of entry.waiters) if (w.deadline !== undefined && w.deadline < at) at = w.deadline;
    entry.ticket++;
    this.heap.push(at, { entry, ticket: entry.ticket });
    this.arm(at);
  }

  private arm(at: number): void {
    if (this.closed) return;
    if (this.timer !== undefined && this.timerAt <= at) return;
    this.disarm();
    const delay = Math.min(MAX_TIMER_MS, Math.max(0, at - this.clock.now()));
    this.timerAt = at;
    this.timer = this.clock.setTimeout(() => {
      this.timer = undefined;
      this.timerAt = Number.POSITIVE_INFINITY;
      this.pump();
    }, delay);
  }

  private disarm(): void {
    if (this.timer !== undefined) this.clock.clearTimeout(this.timer);
    this.timer = undefined;
    this.timerAt = Number.POSITIVE_INFINITY;
  }

  private pump(): void {
    if (this.closed) return;
    const now = this.clock.now();
    while (this.inFlightCount < this.concurrency) {
      const top = this.heap.peek();
      if (top === undefined) break;
      const { entry, ticket } = top;
      if (entry.removed || entry.inFlight || ticket !== entry.ticket) {
        this.heap.pop();
        continue;
      }
      if ((this.heap.peekKey() ?? 0) > now) break;
      this.heap.pop();
      if (this.expire(entry, now)) continue;
      if (entry.nextPollAt > now) {
        this.schedule(entry);
        continue;
      }
      this.start(entry, now);
    }
    this.dropStaleTop();
    let wake = Number.POSITIVE_INFINITY;
    if (this.inFlightCount < this.concurrency) wake = this.heap.peekKey() ?? wake;
    if (this.dirty && this.options.onPersist) {
      // one save per persistDelayMs at most: 5,000 jobs finishing together cost one snapshot, not 5,000
      const saveAt = this.lastPersistAt + this.persistDelayMs;
      if (saveAt <= now) this.flush();
      else wake = Math.min(wake, saveAt);
    }
    if (wake !== Number.POSITIVE_INFINITY) this.arm(wake);
  }

  private dropStaleTop(): void {
    for (;;) {
      const top = this.heap.peek();
      if (top === undefined) return;
      if (!top.entry.removed && !top.entry.inFlight && top.ticket === top.entry.ticket) return;
      this.heap.pop();
    }
  }

  /** Ends the waiters whose deadline has passed; true when none is left. */
  private expire(entry: Entry<H>, now: number): boolean {
    const expired = entry.waiters.filter((w) => w.deadline !== undefined && w.deadline <= now);
    if (expired.length === 0) return false;
    entry.waiters = entry.waiters.filter((w) => !expired.includes(w));
    const last = entry.state
      ? ` (last state ${entry.state}${entry.progress !== undefined ? `, progress ${entry.progress}` : ''})`
      : '';
    const error = new WatchError({
      code: 'timeout',
      message: `Job ${entry.jobId} did not reach a terminal state in time${last}`,
      details: { jobId: entry.jobId, workflowId: entry.workflowId, state: entry.state, progress: entry.progress },
    });
    const gone = entry.waiters.length === 0;
    if (gone) this.remove(entry);
    else this.markDirty();
    this.call(() => this.options.onError?.(error, expired, entry));
    return gone;
  }

  private start(entry: Entry<H>, now: number): void {
    entry.inFlight = true;
    entry.lastPollAt = now;
    entry.polls++;
    this.inFlightCount++;
    this.requestCount++;
    let pending: Promise<WorkflowJob>;
    try {
      pending = Promise.resolve(this.options.getJob(entry.workflowId, entry.jobId, this.closing.signal));
    } catch (error) {
      pending = Promise.reject(error);
    }
    pending.then(
      (job) => this.settle(entry, () => this.onJob(entry, job)),
      (error) => this.settle(entry, () => this.onFailure(entry, error)),
    );
  }

  private settle(entry: Entry<H>, handle: () => void): void {
    if (this.closed) return;
    this.inFlightCount--;
    entry.inFlight = false;
    if (!entry.removed) this.call(handle);
    this.pump();
  }

  private onJob(entry: Entry<H>, job: WorkflowJob): void {
    if (job === null || typeof job !== 'object') {
      this.onFailure(
        entry,
        new MediaSpacesError({ code: 'invalid_response', message: `Get job ${entry.jobId}: empty response` }),
      );
      return;
    }
    entry.errors = 0;
    const state = typeof job.state === 'string' ? job.state : entry.state;
    const progress = typeof job.progress === 'number' ? job.progress : undefined;
    const changed = state !== entry.state || progress !== entry.progress;
    if (this.keepJobBodies) entry.job = job;
    entry.state = state;
    entry.progress = progress;
    if (this.isTerminal(state)) {
      this.remove(entry);
      this.options.onDone?.(job, entry);
      return;
    }
    if (changed) this.markDirty();
    entry.nextPollAt = Math.max(entry.lastPollAt, this.clock.now()) + this.timing.intervalMs;
    this.schedule(entry);
    if (changed) this.options.onProgress?.(job, entry);
  }

  private onFailure(entry: Entry<H>, error: unknown): void {
    if (this.closed) return;
    // an abort we did not ask for (the shared client closing first on a
    // redeploy) is retried like a transient error, so the job stays followed
    if (isAbortError(error) || this.isTransient(error)) {
      entry.errors++;
      const delay = pollDelay(this.timing, entry.errors);
      entry.nextPollAt = Math.max(this.clock.now(), entry.lastPollAt) + delay;
      this.schedule(entry);
      this.options.onRetry?.(error, entry, delay);
      return;
    }
    this.remove(entry);
    const err = error instanceof Error ? error : new Error(String(error));
    this.options.onError?.(err, entry.waiters, entry);
  }

  private remove(entry: Entry<H>): void {
    if (entry.removed) return;
    entry.removed = true;
    this.entries.delete(entry.key);
    this.markDirty();
  }

  private markDirty(): void {
    this.dirty = true;
  }

  private call(fn: () => void): void {
    try {
      fn();
    } catch {
      // a throwing callback must not stop the loop
    }
  }
}

function keyOf(workflowId: string, jobId: string): string {
  return `${workflowId}\u0000${jobId}`;
}

function idText(value: unknown, name: string): string {
  if (typeof value === 'number' && Number.isFinite(value)) return String(value);
  if (typeof value !== 'string' || value.trim() === '') {
    throw MediaSpacesError.invalidInput(`${name} is required to follow a job`, { [name]: 'is required' });
  }
  return value.trim();
}

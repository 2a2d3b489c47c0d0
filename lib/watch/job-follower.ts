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
import { type HeapSlot, IndexedHeap } from './heap';

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
  /** The job's name, from the last read (or the body given to follow()) that had one. */
  name?: string;
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
  /**
   * The set of followed jobs changed; save `records` to survive a restart.
   * The records are the follower's own entries, not copies (thousands of
   * followed jobs need no second record each): each reads as its job is now,
   * and JSON.stringify gives its saved form. A store that keeps them as
   * objects (Node-RED's memory context, or a file store's cache until it
   * writes) thus holds the current state; one that needs a fixed copy takes
   * `snapshot()` or a JSON round trip.
   */
  onPersist?: (records: PersistedJob[]) => void;
  /**
   * Least time between two saves (default 1000 ms): changes are saved at once
   * after a quiet period, then at most once per this delay.
   */
  persistDelayMs?: number;
}

/**
 * A waiter as the follower makes it: its fields are its saved form as they
 * are (the snapshot lists the waiter itself, no copy of it), and its handle,
 * runtime-only, is a private field: no JSON, no Object.keys and no context
 * store sees it.
 */
class Waiter<H> implements JobWaiter<H> {
  readonly #handle: H | undefined;

  constructor(
    readonly data: unknown,
    handle: H | undefined,
    readonly deadline: number | undefined,
    readonly key: string | undefined,
  ) {
    this.#handle = handle;
  }

  get handle(): H | undefined {
    return this.#handle;
  }
}

const IDLE = 0;
const IN_FLIGHT = 1;
const REMOVED = 2;

/**
 * One followed job: the public fields, its place in the heap and its polling
 * state, on one object (a class, so that every entry shares one shape). Its
 * map key is computed when asked for: the follower finds entries by workflow,
 * then job id, so no entry holds a key string of its own. Its times count
 * from the follower's start: small whole numbers, held in the object itself,
 * where epoch milliseconds would take a boxed double each.
 */
class Entry<H> implements FollowedJob<H>, HeapSlot {
  job: WorkflowJob | undefined = undefined;
  state: string | undefined = undefined;
  progress: number | undefined = undefined;
  name: string | undefined = undefined;
  polls = 0;
  errors = 0;
  /** When to read it next; while a read is in flight, when that read started. */
  nextPollAt: number;
  dueAt = 0;
  seq = 0;
  heapIndex = -1;
  phase: typeof IDLE | typeof IN_FLIGHT | typeof REMOVED = IDLE;

  /** The one waiter, or the list when there are several: most jobs have one, and need no array for it. */
  private one: JobWaiter<H> | JobWaiter<H>[];

  constructor(
    readonly jobId: string,
    readonly workflowId: string,
    waiter: JobWaiter<H>,
    nextPollAt: number,
  ) {
    this.one = waiter;
    this.nextPollAt = nextPollAt;
  }

  /** The waiters (a new array when there is one: change them through the setter). */
  get waiters(): JobWaiter<H>[] {
    const one = this.one;
    return Array.isArray(one) ? one : [one];
  }

  set waiters(list: JobWaiter<H>[]) {
    this.one = list.length === 1 ? list[0] : list;
  }

  /** The earliest deadline of a waiter, if any has one. */
  earliestDeadline(): number | undefined {
    const one = this.one;
    if (!Array.isArray(one)) return one.deadline;
    let at: number | undefined;
    for (const w of one) if (w.deadline !== undefined && (at === undefined || w.deadline < at)) at = w.deadline;
    return at;
  }

  /** The saved form of the waiters: the follower's waiters are their own saved form (see Waiter). */
  persistedWaiters(): PersistedJob['waiters'] {
    const one = this.one;
    return Array.isArray(one) ? one.map(savedWaiter) : [savedWaiter(one)];
  }

  get key(): string {
    return keyOf(this.workflowId, this.jobId);
  }

  /** What a context store writes of it (see onPersist): its saved form, nothing of the polling state. */
  toJSON(): PersistedJob {
    return persisted(this);
  }
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
  /** workflow id -> job id -> entry: the workflow's id string is held once, not once per job */
  private readonly entries = new Map<string, Map<string, Entry<H>>>();
  private count = 0;
  private readonly heap = new IndexedHeap<Entry<H>>();
  // one controller for every read, aborted on close: the transport adds and removes a listener per
  // request, so nothing accumulates on it, and a controller per read cost ~17 us and 2 KB
  private readonly closing = new AbortController();
  private inFlightCount = 0;
  private requestCount = 0;
  private timer: unknown;
  private timerAt = Number.POSITIVE_INFINITY;
  /** The clock's time at construction: the follower's own times count from it. */
  private readonly epoch: number;
  private closed = false;
  private dirty = false;
  private lastPersistAt = Number.NEGATIVE_INFINITY;

  constructor(private readonly options: JobFollowerOptions<H>) {
    if (typeof options?.getJob !== 'function') throw new TypeError('JobFollower needs a getJob function');
    this.clock = options.clock ?? systemClock;
    this.epoch = this.clock.now();
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
    return this.count;
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
    return this.entries.get(workflowId)?.get(jobId);
  }

  list(): FollowedJob<H>[] {
    return this.all();
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
    const key = typeof request.key === 'string' && request.key !== '' ? request.key : undefined;
    const waiter = new Waiter<H>(request.data, request.handle, deadline, key);
    let jobs = this.entries.get(workflowId);
    let entry = jobs?.get(jobId);
    if (entry) {
      const waiters = entry.waiters;
      const same = key === undefined ? -1 : waiters.findIndex((w) => w.key === key);
      if (same < 0 || (waiter.handle !== undefined && waiters[same].handle !== undefined)) {
        waiters.push(waiter);
      } else if (waiter.handle !== undefined) {
        waiters[same] = waiter;
      } else {
        return entry;
      }
      entry.waiters = waiters;
      if (entry.phase === IDLE && deadline !== undefined) this.schedule(entry);
    } else {
      const known = request.job;
      // a job body given with a state that is not final is what the service said a moment ago (the submit
      // response, or the predecessor's last read on a redeploy): reading it again at once would be a second
      // request for it within one interval, so its first read comes one interval later
      const fresh = known !== undefined && typeof known.id === 'string' && typeof known.state === 'string';
      entry = new Entry<H>(
        jobId,
        workflowId,
        waiter,
        now - this.epoch + (fresh && !this.isTerminal(known.state) ? this.timing.intervalMs : 0),
      );
      if (this.keepJobBodies && known && typeof known.id === 'string') entry.job = known as WorkflowJob;
      if (typeof known?.state === 'string') entry.state = sharedText(known.state);
      if (typeof known?.progress === 'number') entry.progress = known.progress;
      if (typeof known?.name === 'string' && known.name !== '') entry.name = known.name;
      if (!jobs) {
        jobs = new Map();
        this.entries.set(workflowId, jobs);
      }
      jobs.set(jobId, entry);
      this.count++;
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
    const entry = this.entries.get(workflowId)?.get(jobId);
    if (!entry) return false;
    this.remove(entry);
    this.pump();
    return true;
  }

  /** The persisted form of every followed job. */
  snapshot(): PersistedJob[] {
    return this.all().map(persisted);
  }

  /** Saves now if anything changed since the last save. */
  flush(): void {
    if (!this.dirty || !this.options.onPersist) return;
    this.dirty = false;
    this.lastPersistAt = this.since();
    try {
      // the entries themselves, which JSON gives their saved form (see onPersist)
      this.options.onPersist(this.all());
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
    this.count = 0;
  }

  // ------------------------------------------------------------------ loop

  private schedule(entry: Entry<H>): void {
    let at = entry.nextPollAt;
    const deadline = entry.earliestDeadline();
    if (deadline !== undefined && deadline - this.epoch < at) at = deadline - this.epoch;
    this.heap.set(entry, at);
    this.arm(at);
  }

  private arm(at: number): void {
    if (this.closed) return;
    if (this.timer !== undefined && this.timerAt <= at) return;
    this.disarm();
    const delay = Math.min(MAX_TIMER_MS, Math.max(0, at - this.since()));
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
    const now = this.since();
    while (this.inFlightCount < this.concurrency) {
      const entry = this.heap.peek();
      if (entry === undefined || entry.dueAt > now) break;
      this.heap.pop();
      if (this.expire(entry, now + this.epoch)) continue;
      if (entry.nextPollAt > now) {
        this.schedule(entry);
        continue;
      }
      this.start(entry, now);
    }
    let wake = Number.POSITIVE_INFINITY;
    if (this.inFlightCount < this.concurrency) wake = this.heap.peek()?.dueAt ?? wake;
    if (this.dirty && this.options.onPersist) {
      // one save per persistDelayMs at most: 5,000 jobs finishing together cost one snapshot, not 5,000
      const saveAt = this.lastPersistAt + this.persistDelayMs;
      if (saveAt <= now) this.flush();
      else wake = Math.min(wake, saveAt);
    }
    if (wake !== Number.POSITIVE_INFINITY) this.arm(wake);
  }

  /** Every entry, in one new array. */
  private all(): Entry<H>[] {
    const out: Entry<H>[] = new Array(this.count);
    let i = 0;
    for (const jobs of this.entries.values()) for (const e of jobs.values()) out[i++] = e;
    return out;
  }

  /** The clock's time since the follower started: what its own times count. */
  private since(): number {
    return this.clock.now() - this.epoch;
  }

  /** Ends the waiters whose deadline has passed (`now`: the clock's time); true when none is left. */
  private expire(entry: Entry<H>, now: number): boolean {
    const first = entry.earliestDeadline();
    if (first === undefined || first > now) return false;
    const expired = entry.waiters.filter((w) => w.deadline !== undefined && w.deadline <= now);
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
    entry.phase = IN_FLIGHT;
    entry.nextPollAt = now;
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
      (job) => this.settle(entry, true, job),
      (error) => this.settle(entry, false, error),
    );
  }

  /** One read's outcome: `ok` with the job read, else the error. */
  private settle(entry: Entry<H>, ok: boolean, outcome: unknown): void {
    if (this.closed) return;
    this.inFlightCount--;
    if (entry.phase === IN_FLIGHT) {
      entry.phase = IDLE;
      try {
        if (ok) this.onJob(entry, outcome as WorkflowJob);
        else this.onFailure(entry, outcome);
      } catch {
        // a throwing callback must not stop the loop
      }
    }
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
    // each read parses its own copy of the state's text: the entry keeps one copy shared by all jobs
    if (state !== entry.state) entry.state = state === undefined ? undefined : sharedText(state);
    // the held name changes only when the text does: an equal name of each read is not kept
    if (typeof job.name === 'string' && job.name !== '' && job.name !== entry.name) entry.name = job.name;
    entry.progress = progress;
    if (this.isTerminal(state)) {
      this.remove(entry);
      this.options.onDone?.(job, entry);
      return;
    }
    if (changed) this.markDirty();
    // measured from the answer (nextPollAt holds when the read started, in case the clock went back)
    entry.nextPollAt = Math.max(entry.nextPollAt, this.since()) + this.timing.intervalMs;
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
      entry.nextPollAt = Math.max(this.since(), entry.nextPollAt) + delay;
      this.schedule(entry);
      this.options.onRetry?.(error, entry, delay);
      return;
    }
    this.remove(entry);
    const err = error instanceof Error ? error : new Error(String(error));
    this.options.onError?.(err, entry.waiters, entry);
  }

  private remove(entry: Entry<H>): void {
    if (entry.phase === REMOVED) return;
    entry.phase = REMOVED;
    this.heap.remove(entry);
    const jobs = this.entries.get(entry.workflowId);
    if (jobs?.get(entry.jobId) === entry) {
      jobs.delete(entry.jobId);
      this.count--;
      if (jobs.size === 0) this.entries.delete(entry.workflowId);
    }
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

/**
 * The saved form of a followed job. Each object is made with all its fields
 * at once (no field added afterwards): thousands of them stay in the node
 * context, and an object that gains a field after it was made takes a
 * second allocation for it.
 */
function persisted<H>(e: Entry<H>): PersistedJob {
  const { jobId, workflowId, state, progress } = e;
  const waiters = e.persistedWaiters();
  if (state !== undefined) {
    return progress !== undefined
      ? { jobId, workflowId, state, progress, waiters }
      : { jobId, workflowId, state, waiters };
  }
  return progress !== undefined ? { jobId, workflowId, progress, waiters } : { jobId, workflowId, waiters };
}

function savedWaiter(w: JobWaiter<unknown>): PersistedJob['waiters'][number] {
  return w instanceof Waiter ? w : persistedWaiter(w);
}

function persistedWaiter(w: JobWaiter<unknown>): PersistedJob['waiters'][number] {
  const { data, deadline, key } = w;
  if (deadline === undefined) return key === undefined ? { data } : { data, key };
  return key === undefined ? { data, deadline } : { data, deadline, key };
}

/** One copy of each of the few texts a job's state takes, whoever read it. */
const SHARED_TEXTS = new Map<string, string>();
const MAX_SHARED_TEXTS = 64;

function sharedText(text: string): string {
  const shared = SHARED_TEXTS.get(text);
  if (shared !== undefined) return shared;
  // states are a handful of words: a service that invents more is not worth a growing table
  if (SHARED_TEXTS.size < MAX_SHARED_TEXTS && text.length <= 32) SHARED_TEXTS.set(text, text);
  return text;
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

import { type Clock, MAX_TIMER_MS, systemClock } from '../clock';
import { MediaSpacesError, quoteShort } from '../errors';
import { DEFAULT_ACTIVE_TIMEOUT_MS } from '../rules';
import { UUID_PATTERN, type Workflow } from '../schemas';
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

export interface ActiveWait<H = unknown> {
  /** Workflow id (UUID) or name. */
  workflow: string;
  handle: H;
  /** Give up after this many ms; absent: the waiter's timeoutMs; 0: never. */
  timeoutMs?: number;
}

export interface WorkflowActiveWaiterOptions<H = unknown> extends PollTiming {
  /** Reads the whole list (every page), e.g. `(signal) => client.listAllWorkflows({signal})`. */
  list: (signal: AbortSignal) => Promise<Workflow[]>;
  clock?: Clock;
  /** Default give-up time in ms (default 600 000; 0 = never). */
  timeoutMs?: number;
  /** Statuses that end the wait with an error (default deleted and archived). */
  failOnStatuses?: readonly string[];
  isTransient?: (error: unknown) => boolean;
  onActive: (workflow: Workflow, handle: H) => void;
  onFail: (error: Error, handle: H) => void;
  /** A transient error; the list is read again after `delayMs`. */
  onRetry?: (error: unknown, delayMs: number) => void;
}

interface Waiter<H> {
  workflow: string;
  handle: H;
  deadline: number | undefined;
}

export { DEFAULT_ACTIVE_TIMEOUT_MS };

/**
 * Waits for workflows to become active. Every wait shares one poll of the
 * list per interval, so a thousand waiting messages cost one request (or one
 * request per page) per interval.
 *
 * A wait ends with:
 * - onActive when a workflow whose id or name equals `workflow` has status active;
 * - onFail `workflow_deleted` / `workflow_archived` when every workflow that
 *   matches has one of `failOnStatuses` (the description gives no way back);
 * - onFail `workflow_not_found` when `workflow` is a UUID that no workflow has
 *   (a name may appear later, so an unknown name keeps waiting);
 * - onFail `timeout` when the deadline passes;
 * - onFail with the MediaSpacesError of a poll that failed non-transiently
 *   (401, 403, ...), for every wait then pending.
 */
export class WorkflowActiveWaiter<H = unknown> {
  private readonly clock: Clock;
  private readonly timing: ResolvedTiming;
  private readonly timeoutMs: number;
  private readonly failOn: Set<string>;
  private readonly isTransient: (error: unknown) => boolean;
  private waiters: Waiter<H>[] = [];
  private timer: unknown;
  private nextPollAt = Number.NEGATIVE_INFINITY;
  private inFlight: AbortController | undefined;
  private errors = 0;
  private closed = false;
  private requestCount = 0;

  constructor(private readonly options: WorkflowActiveWaiterOptions<H>) {
    if (typeof options?.list !== 'function') throw new TypeError('WorkflowActiveWaiter needs a list function');
    this.clock = options.clock ?? systemClock;
    this.timing = resolveTiming(options);
    this.timeoutMs = options.timeoutMs === undefined ? DEFAULT_ACTIVE_TIMEOUT_MS : finitePositive(options.timeoutMs, 0);
    this.failOn = new Set((options.failOnStatuses ?? ['deleted', 'archived']).map((s) => s.toLowerCase()));
    this.isTransient = options.isTransient ?? isTransientError;
  }

  get size(): number {
    return this.waiters.length;
  }

  get requests(): number {
    return this.requestCount;
  }

  /** Adds a wait; the list is read at once unless a read is already due within the interval. */
  wait(request: ActiveWait<H>): void {
    if (this.closed) throw new MediaSpacesError({ code: 'aborted', message: 'the workflow wait is closed' });
    const workflow = typeof request.workflow === 'string' ? request.workflow.trim() : '';
    if (workflow === '') {
      throw MediaSpacesError.invalidInput('a workflow id or name is required to wait for it', {
        workflow_id: 'is required',
      });
    }
    const timeoutMs = request.timeoutMs === undefined ? this.timeoutMs : finitePositive(request.timeoutMs, 0);
    const deadline = timeoutMs > 0 ? this.clock.now() + timeoutMs : undefined;
    this.waiters.push({ workflow, handle: request.handle, deadline });
    this.arm();
  }

  /** Stops: no callback is called afterwards; pending waits are dropped. */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.disarm();
    this.inFlight?.abort();
    this.waiters = [];
  }

  private arm(): void {
    if (this.closed || this.inFlight) return;
    if (this.waiters.length === 0) {
      this.disarm();
      return;
    }
    let at = this.nextPollAt;
    for (const w of this.waiters) if (w.deadline !== undefined && w.deadline < at) at = w.deadline;
    this.disarm();
    const delay = Math.min(MAX_TIMER_MS, Math.max(0, at - this.clock.now()));
    this.timer = this.clock.setTimeout(() => {
      this.timer = undefined;
      this.tick();
    }, delay);
  }

  private disarm(): void {
    if (this.timer !== undefined) this.clock.clearTimeout(this.timer);
    this.timer = undefined;
  }

  private tick(): void {
    if (this.closed) return;
    const now = this.clock.now();
    this.expire(now);
    if (this.waiters.length > 0 && this.nextPollAt <= now) this.poll(now);
    else this.arm();
  }

  private expire(now: number): void {
    const expired = this.waiters.filter((w) => w.deadline !== undefined && w.deadline <= now);
    if (expired.length === 0) return;
    this.waiters = this.waiters.filter((w) => !expired.includes(w));
    for (const w of expired) {
      this.fail(
        new WatchError({
          code: 'timeout',
          message: `Workflow ${quoteShort(w.workflow)} did not become active in time`,
          details: { workflow: w.workflow },
        }),
        w.handle,
      );
    }
  }

  private poll(now: number): void {
    const controller = new AbortController();
    this.inFlight = controller;
    this.requestCount++;
    let pending: Promise<Workflow[]>;
    try {
      pending = Promise.resolve(this.options.list(controller.signal));
    } catch (error) {
      pending = Promise.reject(error);
    }
    pending.then(
      (list) => this.done(controller, now, () => this.evaluate(Array.isArray(list) ? list : [])),
      (error) => this.done(controller, now, () => this.failed(error)),
    );
  }

  private done(controller: AbortController, startedAt: number, handle: () => void): void {
    if (this.closed || this.inFlight !== controller) return;
    this.inFlight = undefined;
    this.nextPollAt = startedAt + this.timing.intervalMs;
    handle();
    this.expire(this.clock.now());
    this.arm();
  }

  private evaluate(list: Workflow[]): void {
    this.errors = 0;
    const remaining: Waiter<H>[] = [];
    const settled: (() => void)[] = [];
    for (const w of this.waiters) {
      const outcome = this.outcome(w.workflow, list);
      if (outcome === undefined) remaining.push(w);
      else if (outcome instanceof Error) settled.push(() => this.fail(outcome, w.handle));
      else settled.push(() => this.call(() => this.options.onActive(outcome, w.handle)));
    }
    this.waiters = remaining;
    for (const s of settled) s();
  }

  /** The active workflow, the error that ends the wait, or undefined to keep waiting. */
  private outcome(wanted: string, list: Workflow[]): Workflow | Error | undefined {
    const matches = list.filter((wf) => wf.id === wanted || wf.name === wanted);
    const active = matches.find((wf) => statusOf(wf) === 'active');
    if (active) return active;
    if (matches.length === 0) {
      if (!UUID_PATTERN.test(wanted)) return undefined;
      return new WatchError({
        code: 'workflow_not_found',
        message: `No workflow with id ${wanted} in the space`,
        details: { workflow: wanted },
      });
    }
    if (matches.every((wf) => this.failOn.has(statusOf(wf)))) {
      const status = statusOf(matches[0]);
      return new WatchError({
        code: status === 'deleted' ? 'workflow_deleted' : 'workflow_archived',
        message: `Workflow "${matches[0].name ?? wanted}" has status ${status}; it will not become active`,
        details: { workflow: wanted, workflowId: matches[0].id, status },
      });
    }
    return undefined;
  }

  private failed(error: unknown): void {
    if (isAbortError(error) || this.isTransient(error)) {
      this.errors++;
      const delay = pollDelay(this.timing, this.errors);
      this.nextPollAt = this.clock.now() + delay;
      this.call(() => this.options.onRetry?.(error, delay));
      return;
    }
    const waiters = this.waiters;
    this.waiters = [];
    this.errors = 0;
    const err = error instanceof Error ? error : new Error(String(error));
    for (const w of waiters) this.fail(err, w.handle);
  }

  private fail(error: Error, handle: H): void {
    this.call(() => this.options.onFail(error, handle));
  }

  private call(fn: () => void): void {
    try {
      fn();
    } catch {
      // a throwing callback must not stop the loop
    }
  }
}

function statusOf(wf: Workflow): string {
  return typeof wf.status === 'string' ? wf.status.toLowerCase() : '';
}

export interface WaitForWorkflowActiveOptions extends PollTiming {
  list: (signal: AbortSignal) => Promise<Workflow[]>;
  /** Workflow id or name. */
  workflow: string;
  clock?: Clock;
  /** Default 600 000 ms; 0 = never. */
  timeoutMs?: number;
  failOnStatuses?: readonly string[];
  signal?: AbortSignal;
}

/** Resolves with the workflow once it is active; rejects as WorkflowActiveWaiter describes, or when `signal` aborts. */
export function waitForWorkflowActive(options: WaitForWorkflowActiveOptions): Promise<Workflow> {
  return new Promise((resolve, reject) => {
    if (options.signal?.aborted) {
      reject(new MediaSpacesError({ code: 'aborted', message: 'wait for workflow aborted' }));
      return;
    }
    const onAbort = () => {
      waiter.close();
      reject(new MediaSpacesError({ code: 'aborted', message: 'wait for workflow aborted' }));
    };
    const finish = () => {
      options.signal?.removeEventListener('abort', onAbort);
      waiter.close();
    };
    const waiter = new WorkflowActiveWaiter<null>({
      ...options,
      onActive: (wf) => {
        finish();
        resolve(wf);
      },
      onFail: (error) => {
        finish();
        reject(error);
      },
    });
    options.signal?.addEventListener('abort', onAbort, { once: true });
    try {
      waiter.wait({ workflow: options.workflow, handle: null });
    } catch (error) {
      finish();
      reject(error);
    }
  });
}

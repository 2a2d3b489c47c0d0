import { type Clock, systemClock } from '../clock';
import { MediaSpacesError } from '../errors';
import type { Workflow } from '../schemas';
import {
  isAbortError,
  isTransientError,
  type PollTiming,
  pollDelay,
  type ResolvedTiming,
  resolveTiming,
} from './backoff';

export type WorkflowChangeType = 'added' | 'changed' | 'removed';

export interface WorkflowChange {
  type: WorkflowChangeType;
  /** The workflow as it is now (as it was last seen, for `removed`). */
  workflow: Workflow;
  /** The workflow as it was before, for `changed`. */
  previous?: Workflow;
}

/**
 * Differences between two snapshots of the workflow list, keyed by id:
 * `added` and `changed` in the order of `next`, then `removed` in the order of
 * `previous`. A workflow counts as changed when any field differs (key order
 * is ignored), so a new `updated_at` alone is a change.
 */
export function diffWorkflows(
  previous: Iterable<Workflow> | ReadonlyMap<string, Workflow>,
  next: Iterable<Workflow>,
): WorkflowChange[] {
  const before =
    previous instanceof Map ? (previous as ReadonlyMap<string, Workflow>) : indexById(previous as Iterable<Workflow>);
  const after = indexById(next);
  const changes: WorkflowChange[] = [];
  for (const [id, wf] of after) {
    const old = before.get(id);
    if (old === undefined) changes.push({ type: 'added', workflow: wf });
    else if (stableStringify(old) !== stableStringify(wf))
      changes.push({ type: 'changed', workflow: wf, previous: old });
  }
  for (const [id, wf] of before) if (!after.has(id)) changes.push({ type: 'removed', workflow: wf });
  return changes;
}

function indexById(list: Iterable<Workflow>): Map<string, Workflow> {
  const map = new Map<string, Workflow>();
  for (const wf of list) if (wf && typeof wf.id === 'string') map.set(wf.id, wf);
  return map;
}

/** JSON with object keys sorted, for order-insensitive comparison. */
export function stableStringify(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) => {
    if (v === null || typeof v !== 'object' || Array.isArray(v)) return v;
    const sorted: Record<string, unknown> = {};
    for (const k of Object.keys(v as object).sort()) sorted[k] = (v as Record<string, unknown>)[k];
    return sorted;
  });
}

export interface PollResult {
  workflows: Workflow[];
  changes: WorkflowChange[];
  /** True for the first successful poll, which sets the baseline (changes empty unless emitInitial). */
  baseline: boolean;
}

export interface WorkflowWatcherOptions extends PollTiming {
  /** Reads the whole list (every page), e.g. `(signal) => client.listAllWorkflows({status, signal})`. */
  list: (signal: AbortSignal) => Promise<Workflow[]>;
  clock?: Clock;
  /** Report every workflow of the first poll as `added` (default false: the first poll is a silent baseline). */
  emitInitial?: boolean;
  isTransient?: (error: unknown) => boolean;
  /** Changes found by a poll (timer or forced); not called when there are none. */
  onChanges?: (changes: WorkflowChange[], workflows: Workflow[]) => void;
  /**
   * A timer-driven poll failed. `retryInMs` is set for transient errors; for
   * others the watcher stops polling until pollNow() or start() is called.
   */
  onError?: (error: unknown, info: { transient: boolean; retryInMs?: number; errors: number }) => void;
  /** Every successful poll (for status display). */
  onPoll?: (result: PollResult) => void;
}

/**
 * Polls the workflow list every interval and reports what was added, changed
 * or removed. Polls never overlap: a forced poll waits for one in flight.
 */
export class WorkflowWatcher {
  private readonly clock: Clock;
  private readonly timing: ResolvedTiming;
  private readonly isTransient: (error: unknown) => boolean;
  private known: Map<string, Workflow> | undefined;
  private timer: unknown;
  private chain: Promise<unknown> = Promise.resolve();
  private controller: AbortController | undefined;
  private closed = false;
  private stoppedByError = false;
  private consecutiveErrors = 0;
  private pollCount = 0;

  constructor(private readonly options: WorkflowWatcherOptions) {
    if (typeof options?.list !== 'function') throw new TypeError('WorkflowWatcher needs a list function');
    this.clock = options.clock ?? systemClock;
    this.timing = resolveTiming(options);
    this.isTransient = options.isTransient ?? isTransientError;
  }

  /** Workflows of the last successful poll (undefined before the baseline). */
  get workflows(): Workflow[] | undefined {
    return this.known ? [...this.known.values()] : undefined;
  }

  get polls(): number {
    return this.pollCount;
  }

  /** True after a non-transient error stopped the timer. */
  get stopped(): boolean {
    return this.stoppedByError;
  }

  get errors(): number {
    return this.consecutiveErrors;
  }

  /** Starts the timer; the first poll runs after `delayMs` (default 0). */
  start(delayMs = 0): void {
    if (this.closed) return;
    this.stoppedByError = false;
    this.arm(delayMs);
  }

  /** Applies a list as if a poll had returned it; returns the changes (none for the baseline unless emitInitial). */
  update(workflows: Workflow[]): PollResult {
    const baseline = this.known === undefined;
    const changes = diffWorkflows(this.known ?? new Map(), workflows);
    this.known = indexById(workflows);
    return { workflows, changes: baseline && !this.options.emitInitial ? [] : changes, baseline };
  }

  /** Polls now (after any poll in flight) and restarts the interval; rejects when that poll fails. */
  pollNow(): Promise<PollResult> {
    return this.enqueue(true);
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.disarm();
    this.controller?.abort();
  }

  private enqueue(forced: boolean): Promise<PollResult> {
    const run = this.chain.then(() => this.poll(forced));
    this.chain = run.catch(() => undefined);
    return run;
  }

  private async poll(forced: boolean): Promise<PollResult> {
    if (this.closed) throw new MediaSpacesError({ code: 'aborted', message: 'the workflow watch is closed' });
    this.disarm();
    const controller = new AbortController();
    this.controller = controller;
    let workflows: Workflow[];
    try {
      workflows = await this.options.list(controller.signal);
      if (!Array.isArray(workflows)) {
        throw new MediaSpacesError({ code: 'invalid_response', message: 'List workflows: no workflow list' });
      }
    } catch (error) {
      if (this.closed) throw error;
      const transient = isAbortError(error) || this.isTransient(error);
      this.consecutiveErrors++;
      let retryInMs: number | undefined;
      if (transient) {
        retryInMs = pollDelay(this.timing, this.consecutiveErrors);
        this.arm(retryInMs);
      } else {
        this.stoppedByError = true;
      }
      if (!forced) {
        try {
          this.options.onError?.(error, { transient, retryInMs, errors: this.consecutiveErrors });
        } catch {
          // a throwing callback must not stop the loop
        }
      }
      throw error;
    } finally {
      if (this.controller === controller) this.controller = undefined;
    }
    if (this.closed) throw new MediaSpacesError({ code: 'aborted', message: 'the workflow watch is closed' });
    this.consecutiveErrors = 0;
    this.stoppedByError = false;
    this.pollCount++;
    const result = this.update(workflows);
    this.arm(this.timing.intervalMs);
    try {
      if (result.changes.length > 0) this.options.onChanges?.(result.changes, workflows);
      this.options.onPoll?.(result);
    } catch {
      // a throwing callback must not stop the loop
    }
    return result;
  }

  private arm(delayMs: number): void {
    if (this.closed) return;
    this.disarm();
    this.timer = this.clock.setTimeout(() => {
      this.timer = undefined;
      this.enqueue(false).catch(() => undefined);
    }, delayMs);
  }

  private disarm(): void {
    if (this.timer !== undefined) this.clock.clearTimeout(this.timer);
    this.timer = undefined;
  }
}

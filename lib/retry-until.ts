import { fitsBeforeDeadline, type RetryDecision, sleep } from './retry';

/**
 * What to do after a failed try: `decideRetry`'s answer (lib/retry) for a request, or the step's own rule for
 * anything else (a Redis stall, a lock someone holds, a stop the service refuses with 409 while the recording
 * warms up).
 */
export type UntilDecision = { retry: false } | { retry: true; delayMs: number };

export interface UntilDeadline<T> {
  /** epoch ms: a try that would start at or after it is not made (the same rule as decideRetry's) */
  deadline: number;
  /** aborts the wait between tries: the helper rejects with the signal's reason */
  signal?: AbortSignal;
  /** the `n`th try (from 1) */
  attempt(n: number): Promise<T>;
  /** after the `n`th try failed with `error`: try again after a delay, or give the step up */
  decide(error: unknown, n: number): UntilDecision | RetryDecision;
  /** told before each wait: the failed try, its error and the wait */
  retrying?(error: unknown, n: number, delayMs: number): void;
  now?: () => number;
}

/**
 * One step tried until it succeeds, its rule gives it up, or the deadline comes: then the last try's error is
 * thrown. Every loop that tries something "until the window's end" (the stop, the claim of a slot, the
 * catch-up lock, a step through Redis) is this one loop, so that they all stop at the deadline the same way.
 */
export async function retryUntilDeadline<T>(o: UntilDeadline<T>): Promise<T> {
  const now = o.now ?? Date.now;
  for (let n = 1; ; n++) {
    try {
      return await o.attempt(n);
    } catch (error) {
      if (o.signal?.aborted) throw error;
      const decision = o.decide(error, n);
      if (!decision.retry || !fitsBeforeDeadline(now(), decision.delayMs, o.deadline)) throw error;
      o.retrying?.(error, n, decision.delayMs);
      await sleep(decision.delayMs, o.signal);
    }
  }
}

/** A doubling wait from `firstMs`, capped at `maxMs`, for the `n`th failure (from 1). */
export function doublingDelay(n: number, firstMs: number, maxMs: number): number {
  return Math.min(maxMs, firstMs * 2 ** Math.min(n - 1, 30));
}

/** A try that got "not yet" (a lock or a claim another holder keeps): ask again in `retryInMs`. */
export class NotYet extends Error {
  constructor(readonly retryInMs: number) {
    super(`not yet: ask again in ${retryInMs} ms`);
    this.name = 'NotYet';
  }
}

/** Retry policy: which failures are retried, and how long to wait between attempts. */

export interface RetryPolicy {
  /** Further attempts after the first; 0 disables retries. */
  retries: number;
  /** First backoff step in ms; doubled on every attempt. */
  baseDelayMs: number;
  /** Upper bound of one backoff step in ms. */
  maxDelayMs: number;
  /** Upper bound for a server's Retry-After in ms; a longer one ends the retries. */
  maxRetryAfterMs: number;
}

export const DEFAULT_RETRY_POLICY: RetryPolicy = {
  retries: 3,
  baseDelayMs: 250,
  maxDelayMs: 10_000,
  maxRetryAfterMs: 60_000,
};

export const RETRYABLE_STATUSES = new Set([429, 502, 503, 504]);

/** Exponential backoff with full jitter: a random wait in [step/2, step]. */
export function backoffDelay(attempt: number, policy: RetryPolicy, random: () => number = Math.random): number {
  const step = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** attempt);
  return Math.round(step / 2 + random() * (step / 2));
}

/**
 * Parses Retry-After as delay-seconds or an HTTP-date into milliseconds.
 * Returns undefined when the header is absent or unreadable.
 */
export function parseRetryAfter(header: string | string[] | undefined, now: number = Date.now()): number | undefined {
  const value = Array.isArray(header) ? header[0] : header;
  if (value === undefined) return undefined;
  const trimmed = value.trim();
  if (/^\d+(\.\d+)?$/.test(trimmed)) return Math.round(Number(trimmed) * 1000);
  const date = Date.parse(trimmed);
  if (Number.isNaN(date)) return undefined;
  return Math.max(0, date - now);
}

/** Longest wait between two questions about a request that is still in progress. */
const IN_FLIGHT_MAX_STEP_MS = 1_000;
/**
 * Longest wait between two attempts of a request with a deadline: a recording that cannot
 * start yet is asked for again soon after the service comes back.
 */
export const DEADLINE_MAX_STEP_MS = 4_000;

/** What a request may do about its failures, fixed before its first attempt. */
interface RetryPlan {
  /** Retries it may spend: 0 for a POST without an Idempotency-Key, unbounded with a deadline. */
  retries: number;
  /** Epoch ms: no attempt starts at or after it. */
  deadline: number | undefined;
  /** The backoff, its steps capped at DEADLINE_MAX_STEP_MS under a deadline. */
  policy: RetryPolicy;
  /** The request carries an Idempotency-Key, so a 409 may mean its first attempt is still running. */
  keyed: boolean;
  /** How long to keep asking about a keyed request still in progress: as long as one attempt may take. */
  inFlightBudgetMs: number;
}

export interface RetryRequest {
  method: string;
  idempotencyKey?: string;
  /** Retries of this request instead of the policy's. */
  retries?: number;
  /** Epoch ms: retries go on for as long as the next attempt would start before it. */
  deadline?: number;
}

/** A POST is repeated only with an Idempotency-Key: without one a lost answer may hide a job already made. */
export function retryPlan(req: RetryRequest, policy: RetryPolicy, attemptTimeoutMs: number): RetryPlan {
  const repeatable = req.method !== 'POST' || req.idempotencyKey !== undefined;
  const deadline = repeatable ? req.deadline : undefined;
  const retries = !repeatable
    ? 0
    : deadline !== undefined
      ? Number.POSITIVE_INFINITY
      : req.retries === undefined
        ? policy.retries
        : Math.max(0, Math.floor(req.retries));
  return {
    retries,
    deadline,
    policy:
      deadline === undefined ? policy : { ...policy, maxDelayMs: Math.min(policy.maxDelayMs, DEADLINE_MAX_STEP_MS) },
    keyed: req.idempotencyKey !== undefined,
    inFlightBudgetMs: attemptTimeoutMs,
  };
}

/** What a request has been through so far. */
export interface RetryState {
  retriesUsed: number;
  /** When the service first said that this key's first request is still running. */
  inFlightSince: number | undefined;
  /** Questions asked about that request so far: the step of their own backoff. */
  inFlightWaits: number;
}

export const FIRST_ATTEMPT: RetryState = { retriesUsed: 0, inFlightSince: undefined, inFlightWaits: 0 };

/** How an attempt that did not succeed ended. */
export type AttemptOutcome =
  /** No answer: the error's code (timeout, network_error, aborted, tls_error...). */
  | { kind: 'error'; code: string }
  /** A non-2xx answer. */
  | {
      kind: 'response';
      status: number;
      /** Retry-After in ms, when the answer has a readable one. */
      retryAfterMs: number | undefined;
      /** The service replayed its recorded answer for this Idempotency-Key. */
      replayed: boolean;
    };

/**
 * Whether to try again and after how long, and the state to decide the next outcome with.
 * `spendsRetry`: a retry proper, reported to the caller and bounded by the deadline; false only
 * for asking again about a keyed request still in progress, which is not a failure.
 */
export type RetryDecision = { retry: false } | { retry: true; delayMs: number; spendsRetry: boolean; next: RetryState };

/**
 * The retry policy, as a function of the request's plan, its state and how the last attempt
 * ended; `now` and `random` are passed in so that a decision depends on nothing else.
 *
 * - Timeouts and network errors are retried; no other failure without an answer is.
 * - 429 and 502/503/504 are retried, after the service's Retry-After when it gives one; a
 *   Retry-After longer than the policy's cap ends the retries at once.
 * - 409 on a keyed request (not a replayed one): an earlier request with this key (one that
 *   timed out, or one sent before a restart) is still being handled. For as long as one attempt
 *   may take, it is asked about again without spending a retry, until its answer is replayed;
 *   beyond that each further 409 spends a retry like any other retryable answer.
 * - With a deadline, a retry that would start at or after it is not made.
 */
export function decideRetry(
  plan: RetryPlan,
  state: RetryState,
  outcome: AttemptOutcome,
  now: number,
  random: () => number = Math.random,
): RetryDecision {
  const { policy } = plan;
  if (outcome.kind === 'error') {
    if (outcome.code !== 'timeout' && outcome.code !== 'network_error') return NO_RETRY;
    return spendRetry(plan, state, undefined, now, random);
  }
  const { status, retryAfterMs } = outcome;
  if (retryAfterMs !== undefined && retryAfterMs > policy.maxRetryAfterMs) return NO_RETRY;
  const keyInFlight = status === 409 && plan.keyed && !outcome.replayed;
  let next = state;
  if (keyInFlight && plan.retries > 0) {
    const since = state.inFlightSince ?? now;
    const step = Math.min(policy.maxDelayMs, IN_FLIGHT_MAX_STEP_MS);
    const delayMs = retryAfterMs ?? backoffDelay(state.inFlightWaits, { ...policy, maxDelayMs: step }, random);
    next = {
      ...state,
      inFlightSince: since,
      inFlightWaits: state.inFlightWaits + (retryAfterMs === undefined ? 1 : 0),
    };
    if (now - since + delayMs <= plan.inFlightBudgetMs) return { retry: true, delayMs, spendsRetry: false, next };
  }
  if (!(keyInFlight || RETRYABLE_STATUSES.has(status))) return NO_RETRY;
  return spendRetry(plan, next, retryAfterMs, now, random);
}

const NO_RETRY: RetryDecision = { retry: false };

function spendRetry(
  plan: RetryPlan,
  state: RetryState,
  retryAfterMs: number | undefined,
  now: number,
  random: () => number,
): RetryDecision {
  if (state.retriesUsed >= plan.retries) return NO_RETRY;
  const delayMs = retryAfterMs ?? backoffDelay(state.retriesUsed, plan.policy, random);
  if (!fitsBeforeDeadline(now, delayMs, plan.deadline)) return NO_RETRY;
  // only the client's own backoff steps are counted; a wait the service named with Retry-After is not
  const retriesUsed = state.retriesUsed + (retryAfterMs === undefined ? 1 : 0);
  return { retry: true, delayMs, spendsRetry: true, next: { ...state, retriesUsed } };
}

/** Whether a try after `delayMs` starts before the deadline (none: always); one rule for every retry loop. */
export function fitsBeforeDeadline(now: number, delayMs: number, deadline: number | undefined): boolean {
  return deadline === undefined || now + delayMs < deadline;
}

/** Resolves after `ms`, or rejects with the signal's reason as soon as it aborts. */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) {
      reject(signal.reason);
      return;
    }
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

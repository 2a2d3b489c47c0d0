import { MediaSpacesError } from '../errors';
import { DEFAULT_BACKOFF_MAX_MS, DEFAULT_INTERVAL_MS } from '../rules';

/** Polling cadence: a fixed interval, and exponential backoff after failures. */
export interface PollTiming {
  /** Time between two polls of the same thing, in ms (default 5000). */
  intervalMs?: number;
  /** Upper bound of the wait after consecutive transient errors, in ms (default 60 000). */
  backoffMaxMs?: number;
  /** Growth factor of the wait per consecutive error (default 2). */
  backoffFactor?: number;
}

export interface ResolvedTiming {
  intervalMs: number;
  backoffMaxMs: number;
  backoffFactor: number;
}

export { DEFAULT_BACKOFF_MAX_MS, DEFAULT_INTERVAL_MS };
export const MIN_INTERVAL_MS = 1;

export function resolveTiming(t: PollTiming = {}): ResolvedTiming {
  const intervalMs = finitePositive(t.intervalMs, DEFAULT_INTERVAL_MS);
  const backoffMaxMs = Math.max(
    intervalMs,
    finitePositive(t.backoffMaxMs, Math.max(DEFAULT_BACKOFF_MAX_MS, intervalMs)),
  );
  const factor = typeof t.backoffFactor === 'number' && Number.isFinite(t.backoffFactor) ? t.backoffFactor : 2;
  return { intervalMs: Math.max(MIN_INTERVAL_MS, intervalMs), backoffMaxMs, backoffFactor: Math.max(1, factor) };
}

/**
 * Wait before the next poll after `errors` consecutive transient failures:
 * interval * factor^errors, capped at backoffMaxMs. With no errors it is the interval.
 */
export function pollDelay(timing: ResolvedTiming, errors: number): number {
  if (errors <= 0) return timing.intervalMs;
  const raw = timing.intervalMs * timing.backoffFactor ** Math.min(errors, 64);
  return Math.min(timing.backoffMaxMs, Number.isFinite(raw) ? raw : timing.backoffMaxMs);
}

// tls_error too: a single request fails at once on a certificate problem, but a watch outlives a certificate renewal
const TRANSIENT_CODES = new Set([
  'network_error',
  'tls_error',
  'timeout',
  'rate_limited',
  'server_error',
  'invalid_response',
]);

/**
 * Whether a failed poll is worth repeating: network errors, timeouts, 429,
 * 5xx, and unreadable (e.g. truncated) bodies. Everything else - 400, 401,
 * 403, 404, 409, 422, a bad id - ends the watch.
 */
export function isTransientError(error: unknown): boolean {
  if (error instanceof MediaSpacesError) {
    if (error.status !== undefined && (error.status === 429 || error.status >= 500)) return true;
    return TRANSIENT_CODES.has(error.code);
  }
  const status = (error as { status?: unknown } | null)?.status;
  if (typeof status === 'number') return status === 429 || status >= 500;
  // plain errors (a dropped socket surfacing as TypeError, and the like)
  return error instanceof Error;
}

/** True for the error a poll gets when the watch itself aborted it. */
export function isAbortError(error: unknown): boolean {
  if (error instanceof MediaSpacesError) return error.code === 'aborted';
  const name = (error as { name?: unknown } | null)?.name;
  return name === 'AbortError';
}

export function finitePositive(value: unknown, fallback: number): number {
  return typeof value === 'number' && Number.isFinite(value) && value > 0 ? value : fallback;
}

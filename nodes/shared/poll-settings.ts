import { DEFAULT_BACKOFF_MAX_MS, DEFAULT_INTERVAL_MS } from '../../lib/rules';

interface PollTimingMs {
  intervalMs: number;
  backoffMaxMs: number;
}

/** The timing lib/watch takes: the backoff never shorter than the interval. */
export function pollTiming(settings: { interval?: number; backoffMax?: number }): PollTimingMs {
  const intervalMs = settings.interval ?? DEFAULT_INTERVAL_MS;
  const backoffMaxMs = settings.backoffMax ?? Math.max(DEFAULT_BACKOFF_MAX_MS, intervalMs);
  return { intervalMs, backoffMaxMs: Math.max(intervalMs, backoffMaxMs) };
}

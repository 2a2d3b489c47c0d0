import { describe, expect, it } from 'vitest';
import { DEFAULT_RETRY_POLICY, decideRetry, FIRST_ATTEMPT, fitsBeforeDeadline, retryPlan } from '../../lib/retry';
import { doublingDelay, NotYet, retryUntilDeadline } from '../../lib/retry-until';

describe('retryUntilDeadline', () => {
  it('tries until the step succeeds, waiting what the rule says between tries', async () => {
    const waits: number[] = [];
    const result = await retryUntilDeadline({
      deadline: Date.now() + 10_000,
      attempt: async (n) => {
        if (n < 3) throw new NotYet(5 * n);
        return `done at ${n}`;
      },
      decide: (error) => (error instanceof NotYet ? { retry: true, delayMs: error.retryInMs } : { retry: false }),
      retrying: (_e, _n, delayMs) => waits.push(delayMs),
    });
    expect(result).toBe('done at 3');
    expect(waits).toEqual([5, 10]);
  });

  it('gives up with the last error when the next try would start at or after the deadline', async () => {
    let now = 1_000;
    let tries = 0;
    const attempt = retryUntilDeadline({
      deadline: 1_030,
      now: () => now,
      attempt: async () => {
        tries++;
        now += 10;
        throw new Error(`refused ${tries}`);
      },
      decide: () => ({ retry: true, delayMs: 1 }),
    });
    await expect(attempt).rejects.toThrow('refused 3');
    expect(tries).toBe(3);
  });

  it('gives up at once when the rule says so (a 404 is not a stall)', async () => {
    let tries = 0;
    await expect(
      retryUntilDeadline({
        deadline: Date.now() + 60_000,
        attempt: async () => {
          tries++;
          throw new Error('not found');
        },
        decide: () => ({ retry: false }),
      }),
    ).rejects.toThrow('not found');
    expect(tries).toBe(1);
  });

  it('stops waiting as soon as its signal aborts', async () => {
    const abort = new AbortController();
    const started = Date.now();
    const attempt = retryUntilDeadline({
      deadline: Date.now() + 60_000,
      signal: abort.signal,
      attempt: async () => {
        throw new NotYet(30_000);
      },
      decide: (e) => ({ retry: true, delayMs: (e as NotYet).retryInMs }),
    });
    setTimeout(() => abort.abort(new Error('node closed')), 20);
    await expect(attempt).rejects.toThrow('node closed');
    expect(Date.now() - started).toBeLessThan(5_000);
  });

  it('takes decideRetry as its rule for a request: the same deadline rule in both', async () => {
    const plan = retryPlan(
      { method: 'POST', idempotencyKey: 'k', deadline: Date.now() + 10_000 },
      { ...DEFAULT_RETRY_POLICY, baseDelayMs: 1 },
      1_000,
    );
    let state = FIRST_ATTEMPT;
    let tries = 0;
    const value = await retryUntilDeadline({
      deadline: Date.now() + 10_000,
      attempt: async () => {
        tries++;
        if (tries < 2) throw Object.assign(new Error('503'), { status: 503 });
        return 'created';
      },
      decide: () => {
        const decision = decideRetry(
          plan,
          state,
          { kind: 'response', status: 503, retryAfterMs: 1, replayed: false },
          Date.now(),
        );
        if (decision.retry) state = decision.next;
        return decision;
      },
    });
    expect(value).toBe('created');
    expect(fitsBeforeDeadline(100, 10, 110)).toBe(false);
    expect(fitsBeforeDeadline(100, 9, 110)).toBe(true);
    expect(fitsBeforeDeadline(100, 1e9, undefined)).toBe(true);
  });

  it('doubles its wait from the first, up to the cap', () => {
    expect([1, 2, 3, 4, 5].map((n) => doublingDelay(n, 250, 2_000))).toEqual([250, 500, 1_000, 2_000, 2_000]);
  });
});

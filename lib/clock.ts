/**
 * The time source of the scheduler and the polling loops, injected so that
 * tests can drive them deterministically. The system clock looks the global
 * timers up at call time, so fake timers apply too.
 */
export interface Clock {
  now(): number;
  setTimeout(fn: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

/** Longest delay a Node.js timer accepts; longer waits are re-armed. */
export const MAX_TIMER_MS = 2_147_483_647;

export const systemClock: Clock = {
  now: () => Date.now(),
  setTimeout: (fn, ms) => setTimeout(fn, Math.min(Math.max(0, ms), MAX_TIMER_MS)),
  clearTimeout: (handle) => clearTimeout(handle as ReturnType<typeof setTimeout>),
};

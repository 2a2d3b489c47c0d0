import { vi } from 'vitest';

/**
 * Pins the wall clock at `iso` for a test that names a date: Date starts
 * there and moves on with real time (timers stay real, so a runtime and a
 * simulator under test keep working). Without it, a date that was recent
 * when the test was written falls out of every "last 24 h" window a day later.
 */
export function pinClock(iso: string): void {
  vi.useFakeTimers({ toFake: ['Date'], now: Date.parse(iso), shouldAdvanceTime: true });
}

export function unpinClock(): void {
  vi.useRealTimers();
}

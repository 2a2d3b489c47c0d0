/**
 * The simulator's notion of "now". Jobs and channels derive their state from
 * it lazily, so tests can jump through a lifecycle with `advance()` instead of
 * waiting, and nothing needs a timer.
 */
export class SimClock {
  private offsetMs = 0;
  private manualNowMs: number;
  private readonly startOffsetMs: number;

  constructor(
    readonly manual: boolean,
    private readonly startMs: number = Date.now(),
  ) {
    this.manualNowMs = startMs;
    // A real clock that starts at a chosen time keeps ticking from there.
    this.startOffsetMs = manual ? 0 : startMs - Date.now();
    this.offsetMs = this.startOffsetMs;
  }

  /**
   * Undoes every advance(): a manual clock goes back to its start time, a
   * real one back to following the wall clock. Part of a simulator reset, so
   * a test that resets between cases sees the same timestamps every time.
   */
  reset(): void {
    this.manualNowMs = this.startMs;
    this.offsetMs = this.startOffsetMs;
  }

  now(): number {
    return this.manual ? this.manualNowMs : Date.now() + this.offsetMs;
  }

  advance(ms: number): void {
    if (typeof ms !== 'number' || !Number.isFinite(ms) || ms < 0) {
      throw new RangeError(`advance(ms) needs a finite, non-negative number of milliseconds, got ${String(ms)}`);
    }
    if (this.manual) this.manualNowMs += ms;
    else this.offsetMs += ms;
  }
}

import type { Clock } from '../../lib/clock';

interface ManualTimer {
  id: number;
  at: number;
  fn: () => void;
}

/**
 * A clock that only moves when told to. `advance(ms)` fires due timers in time
 * order and lets promise chains settle between them, so code that awaits a
 * fake request inside a timer callback behaves as it would in real time.
 */
export class ManualClock implements Clock {
  private current: number;
  private nextId = 1;
  private timers: ManualTimer[] = [];
  /** most timers armed at once so far (a scheduler keeps one) */
  maxPending = 0;

  /** `strictDelays`: a delay setTimeout would not honour (negative, NaN, over 2^31-1 ms) throws. */
  constructor(
    start = 0,
    private readonly options: { strictDelays?: boolean } = {},
  ) {
    this.current = start;
  }

  now(): number {
    return this.current;
  }

  setTimeout(fn: () => void, ms: number): unknown {
    if (this.options.strictDelays && !(ms >= 0 && ms <= MAX_DELAY_MS)) throw new Error(`bad delay ${ms}`);
    const timer = { id: this.nextId++, at: this.current + Math.max(0, ms), fn };
    this.timers.push(timer);
    this.maxPending = Math.max(this.maxPending, this.timers.length);
    return timer.id;
  }

  clearTimeout(handle: unknown): void {
    this.timers = this.timers.filter((t) => t.id !== handle);
  }

  /** Timers still armed. */
  pending(): number {
    return this.timers.length;
  }

  /** Jumps ahead without firing anything, and drops the timers: the process was not running meanwhile. */
  jump(ms: number): void {
    this.current += ms;
    this.timers = [];
  }

  /** Moves the clock forward by `ms`, firing every timer that falls due on the way. */
  async advance(ms: number): Promise<void> {
    const target = this.current + ms;
    await settle();
    for (;;) {
      let next: ManualTimer | undefined;
      for (const t of this.timers) if (t.at <= target && (next === undefined || t.at < next.at)) next = t;
      if (next === undefined) break;
      this.timers = this.timers.filter((t) => t !== next);
      this.current = Math.max(this.current, next.at);
      next.fn();
      await settle();
    }
    this.current = target;
    await settle();
  }
}

/** The longest delay setTimeout honours; longer ones fire at once. */
const MAX_DELAY_MS = 2 ** 31 - 1;

/** Lets pending promise callbacks (and their follow-ups) run. */
export async function settle(rounds = 3): Promise<void> {
  for (let i = 0; i < rounds; i++) await new Promise<void>((resolve) => setImmediate(resolve));
}

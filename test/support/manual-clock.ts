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

  constructor(start = 0) {
    this.current = start;
  }

  now(): number {
    return this.current;
  }

  setTimeout(fn: () => void, ms: number): unknown {
    const timer = { id: this.nextId++, at: this.current + Math.max(0, ms), fn };
    this.timers.push(timer);
    return timer.id;
  }

  clearTimeout(handle: unknown): void {
    this.timers = this.timers.filter((t) => t.id !== handle);
  }

  /** Timers still armed. */
  pending(): number {
    return this.timers.length;
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

/** Lets pending promise callbacks (and their follow-ups) run. */
export async function settle(rounds = 3): Promise<void> {
  for (let i = 0; i < rounds; i++) await new Promise<void>((resolve) => setImmediate(resolve));
}

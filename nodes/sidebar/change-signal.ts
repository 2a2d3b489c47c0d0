import { type Clock, systemClock } from '../../lib/clock';
import type { ActivitySignal } from './activity-types';

/** Shortest gap between two publishes: at most two a second, however many changes. */
export const SIGNAL_INTERVAL_MS = 500;

/**
 * Coalesces changes into at most one comms publish per interval. A change
 * is never lost: the last one is always published, at most one interval late.
 * What is published says only which parts changed (revision counters), never
 * the data: Node-RED sends comms messages to every connected editor.
 */
export class ChangeSignal {
  private readonly revs: ActivitySignal;
  private timer: unknown;
  private lastAt = Number.NEGATIVE_INFINITY;
  private closed = false;
  /** publishes made so far (for the scale measurements) */
  published = 0;

  constructor(
    private readonly publish: (signal: ActivitySignal) => void,
    private readonly clock: Clock = systemClock,
    private readonly intervalMs = SIGNAL_INTERVAL_MS,
  ) {
    this.revs = { epoch: clock.now(), rev: 0, schedulesRev: 0, jobsRev: 0 };
  }

  get current(): ActivitySignal {
    return { ...this.revs };
  }

  mark(part: 'schedules' | 'jobs'): void {
    this.revs.rev += 1;
    if (part === 'schedules') this.revs.schedulesRev += 1;
    else this.revs.jobsRev += 1;
    this.arm();
  }

  /** Publishes again without a change (the flows restarted: editors refetch). */
  repeat(): void {
    this.arm();
  }

  close(): void {
    this.closed = true;
    if (this.timer !== undefined) this.clock.clearTimeout(this.timer);
    this.timer = undefined;
  }

  private arm(): void {
    if (this.closed || this.timer !== undefined) return;
    // even the first change waits a turn, so a burst in one tick is one publish
    const wait = Math.max(0, this.lastAt + this.intervalMs - this.clock.now());
    this.timer = this.clock.setTimeout(() => this.flush(), wait);
  }

  private flush(): void {
    this.timer = undefined;
    if (this.closed) return;
    this.lastAt = this.clock.now();
    this.published += 1;
    this.publish(this.current);
  }
}

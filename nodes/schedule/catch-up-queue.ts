import type { Coordinator } from '../../lib/coordination';
import { NotYet, retryUntilDeadline } from '../../lib/retry-until';
import type { Slot } from '../../lib/schedule';

/** Longest wait between two tries for the catch-up mutex another instance holds. */
const MAX_LOCK_WAIT_MS = 1000;

/**
 * Starts caught up after a restart, one at a time and oldest first (the
 * scheduler hands them over in time order), each under the per-schedule
 * catch-up mutex in Redis, so that instances restarted together walk the
 * missed slots one instance at a time. A slot older than the latest slot any
 * instance completed (the high-water mark) is not started: the schedule
 * moved on past it. Each slot then goes through the usual claim.
 */
export class CatchUpQueue {
  private chain: Promise<void> = Promise.resolve();
  private closed = false;

  constructor(
    private readonly coordinator: () => Coordinator,
    private readonly host: { log(text: string): void },
  ) {}

  add(slot: Slot, schedule: string, run: () => Promise<void>): void {
    this.chain = this.chain.then(() => this.underLock(slot, schedule, run));
  }

  close(): void {
    this.closed = true;
  }

  private async underLock(slot: Slot, schedule: string, run: () => Promise<void>): Promise<void> {
    if (this.closed) return;
    let coordinator: Coordinator;
    let token: number | undefined;
    try {
      coordinator = this.coordinator();
      token = await this.acquire(coordinator, schedule, slot.end);
      if (token === undefined) return;
      const mark = await coordinator.highWaterMark(schedule);
      if (mark !== undefined && Date.parse(mark) > slot.start) {
        this.host.log(`${slot.key}: not caught up, a later slot (${mark}) was already done`);
        return;
      }
    } catch {
      // Redis unusable: the claim in run() meets the same error and applies the unreachable policy
      await run();
      return;
    }
    try {
      await run();
    } finally {
      await coordinator.releaseCatchUp(schedule, token).catch(() => false);
    }
  }

  /** The mutex's token, or undefined when the window closed (or the node did) while another instance held it. */
  private async acquire(coordinator: Coordinator, schedule: string, until: number): Promise<number | undefined> {
    if (this.closed || Date.now() >= until) return undefined;
    try {
      return await retryUntilDeadline({
        deadline: until,
        attempt: async () => {
          const lock = await coordinator.acquireCatchUp(schedule);
          if (lock.status !== 'acquired') throw new NotYet(lock.retryInMs);
          return lock.token;
        },
        decide: (error) =>
          error instanceof NotYet && !this.closed
            ? { retry: true, delayMs: Math.min(error.retryInMs, MAX_LOCK_WAIT_MS) }
            : { retry: false },
      });
    } catch (error) {
      if (error instanceof NotYet) return undefined;
      throw error;
    }
  }
}

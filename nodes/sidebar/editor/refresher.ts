import type { ActivitySignal, ActivitySnapshot } from '../activity-types';
import { type Fetched, fetchActivity } from './api';

type Part = 'all' | 'jobs';

/**
 * Turns the runtime's change signals into fetches: one at a time, the
 * whole state when schedules changed (or the runtime restarted), only the
 * jobs when only jobs did; signals that arrive during a fetch are merged
 * into one more fetch.
 */
export class Refresher {
  private last: ActivitySignal | undefined;
  private running = false;
  private queued: Part | undefined;
  /** the user may not read: asking again would only be refused again */
  private denied = false;

  constructor(
    private readonly apply: (snapshot: ActivitySnapshot, part: Part) => void,
    private readonly refused: (result: Extract<Fetched, { ok: false }>) => void,
  ) {}

  /** A comms signal arrived (or the tab opened: no signal, everything). */
  signal(signal?: ActivitySignal): void {
    if (this.denied) return;
    const last = this.last;
    let part: Part = 'all';
    if (signal && last && signal.epoch === last.epoch) {
      if (signal.rev === last.rev) return;
      if (signal.schedulesRev === last.schedulesRev) part = 'jobs';
    }
    this.request(part);
  }

  private request(part: Part): void {
    if (this.running) {
      this.queued = this.queued === 'all' || part === 'all' ? 'all' : 'jobs';
      return;
    }
    this.running = true;
    fetchActivity(part).then((result) => {
      this.running = false;
      if (!result.ok) {
        this.refused(result);
        if (result.status === 401 || result.status === 403) {
          this.denied = true;
          return;
        }
      } else if (this.olderThanShown(result.snapshot.signal)) {
        // an action's answer (accept) showed a newer state while this fetch was out: keep that
      } else {
        // A jobs answer carries the runtime's whole signal, schedules included. When the schedules
        // moved since they were last fetched, that answer does not hold them: adopting its signal
        // would make the change's own signal look already seen, and the schedules would stay stale.
        const schedulesStale = part === 'jobs' && !this.sameSchedules(result.snapshot.signal);
        this.last = schedulesStale ? undefined : result.snapshot.signal;
        this.apply(result.snapshot, part);
        if (schedulesStale) this.queued = 'all';
      }
      const next = this.queued;
      this.queued = undefined;
      if (next) this.request(next);
    });
  }

  private olderThanShown(signal: ActivitySignal): boolean {
    const last = this.last;
    // within one runtime only: epochs are start times, and a clock set back must not freeze the tab
    return last !== undefined && signal.epoch === last.epoch && signal.rev < last.rev;
  }

  private sameSchedules(signal: ActivitySignal): boolean {
    const last = this.last;
    return last !== undefined && signal.epoch === last.epoch && signal.schedulesRev === last.schedulesRev;
  }

  /** An action answered with the new state. */
  accept(snapshot: ActivitySnapshot): void {
    this.last = snapshot.signal;
    this.apply(snapshot, 'all');
  }
}

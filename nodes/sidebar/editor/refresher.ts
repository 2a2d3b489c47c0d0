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
      } else {
        this.last = result.snapshot.signal;
        this.apply(result.snapshot, part);
      }
      const next = this.queued;
      this.queued = undefined;
      if (next) this.request(next);
    });
  }

  /** An action answered with the new state. */
  accept(snapshot: ActivitySnapshot): void {
    this.last = snapshot.signal;
    this.apply(snapshot, 'all');
  }
}

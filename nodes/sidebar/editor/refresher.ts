import { decodeActivity } from '../activity-decode';
import type { ActivitySignal, ActivitySnapshot } from '../activity-types';
import { ACTIVITY_FORMAT, type WireSnapshot } from '../activity-wire';
import { type Fetched, fetchActivity } from './api';

export type Part = 'schedules' | 'jobs';
type Refusal = Extract<Fetched, { ok: false }>;

/** The revision counter of each part in the signal. */
const REV: Record<Part, 'schedulesRev' | 'jobsRev'> = { schedules: 'schedulesRev', jobs: 'jobsRev' };

/** The last schedules answer: unpacked again at a later time when the route says it has not changed. */
interface Held {
  wire: WireSnapshot;
  etag?: string;
  /** hours of planned starts it holds */
  ahead: number;
  /** runtime clock minus browser clock when it came */
  skew: number;
}

/**
 * Turns the runtime's change signals into fetches of the parts that
 * changed (the schedules, the jobs, or both when the runtime restarted),
 * one at a time; signals that arrive during a fetch are merged into one more
 * fetch of each part. Each fetch names the answer it holds, so a poll with
 * nothing new costs a 304, and 500 jobs moving every second never resend the timeline.
 */
export class Refresher {
  /** the part's revision shown, with the runtime's epoch */
  private readonly shown = new Map<Part, { epoch: number; rev: number }>();
  private running = false;
  /** parts to fetch after the one under way, with the revision a signal asked for (Infinity: whatever it is) */
  private readonly queued = new Map<Part, number>();
  /** the user may not read: asking again would only be refused again */
  private denied = false;
  private held: Held | undefined;
  private jobsTag: string | undefined;

  constructor(
    private readonly apply: (snapshot: ActivitySnapshot, part: Part) => void,
    private readonly refused: (result: Refusal) => void,
    /** hours of planned starts the timeline's view needs */
    private readonly ahead: () => number = () => 168,
  ) {}

  /** A comms signal arrived (or the tab opened, or the minute's poll: no signal, both parts). */
  signal(signal?: ActivitySignal): void {
    if (this.denied) return;
    for (const part of ['schedules', 'jobs'] as const) {
      const shown = this.shown.get(part);
      const same = signal && shown && signal.epoch === shown.epoch;
      if (same && signal[REV[part]] === shown.rev) continue;
      this.request(part, same ? signal[REV[part]] : Number.POSITIVE_INFINITY);
    }
  }

  /** The view changed: a longer one than the answer held covers is fetched. */
  viewChanged(): void {
    if (this.denied || !this.held || this.held.ahead >= this.ahead()) return;
    this.request('schedules');
  }

  /** An action answered with the new schedules. */
  accept(wire: WireSnapshot): void {
    if (!this.readable(wire)) return;
    this.shown.set('schedules', { epoch: wire.signal.epoch, rev: wire.signal.schedulesRev });
    // the action was posted with the view's hours
    this.hold(wire, undefined, this.ahead());
    this.apply(decodeActivity(wire, wire.now), 'schedules');
  }

  private request(part: Part, wanted = Number.POSITIVE_INFINITY): void {
    if (this.running) {
      this.queued.set(part, Math.max(wanted, this.queued.get(part) ?? wanted));
      return;
    }
    this.running = true;
    const ahead = this.ahead();
    const etag = part === 'jobs' ? this.jobsTag : this.held?.ahead === ahead ? this.held.etag : undefined;
    fetchActivity(part, ahead, etag).then((result) => {
      this.running = false;
      // an answer that fails to draw must not hold the fetches queued behind it until the minute's poll
      try {
        this.received(part, result, ahead);
      } catch (error) {
        console.error('Media Spaces: the activity could not be shown', error);
      }
      this.next();
    });
  }

  private next(): void {
    const [next] = this.queued;
    if (!next) return;
    this.queued.delete(next[0]);
    this.request(next[0], next[1]);
  }

  private received(part: Part, result: Fetched, ahead: number): void {
    if (!result.ok) {
      this.refused(result);
      if (result.status === 401 || result.status === 403) this.denied = true;
      return;
    }
    if ('unchanged' in result) {
      // nothing new, but the clock moved: starts that passed since are drawn due, or leave
      const held = this.held;
      if (part === 'schedules' && held) this.apply(decodeActivity(held.wire, Date.now() + held.skew), part);
      return;
    }
    const wire = result.wire;
    // an action's answer (accept) showed newer schedules while this fetch was out: keep those
    if (!this.readable(wire) || this.olderThanShown(part, wire.signal)) return;
    this.shown.set(part, { epoch: wire.signal.epoch, rev: wire.signal[REV[part]] });
    // signals that came during this fetch and that it already answers need no fetch of their own
    if ((this.queued.get(part) ?? Number.POSITIVE_INFINITY) <= wire.signal[REV[part]]) this.queued.delete(part);
    if (part === 'schedules') this.hold(wire, result.etag, ahead);
    else this.jobsTag = result.etag;
    this.apply(decodeActivity(wire, wire.now), part);
  }

  private hold(wire: WireSnapshot, etag: string | undefined, ahead: number): void {
    this.held = { wire, etag, ahead, skew: wire.now - Date.now() };
  }

  /** An answer of another format (the runtime was upgraded under an open editor) is not misread. */
  private readable(wire: WireSnapshot): boolean {
    if (wire?.format === ACTIVITY_FORMAT) return true;
    this.refused({ ok: false, status: 0, message: 'the runtime answers in another format: reload the editor' });
    return false;
  }

  private olderThanShown(part: Part, signal: ActivitySignal): boolean {
    const shown = this.shown.get(part);
    // within one runtime only: epochs are start times, and a clock set back must not freeze the tab
    return shown !== undefined && signal.epoch === shown.epoch && signal[REV[part]] < shown.rev;
  }
}

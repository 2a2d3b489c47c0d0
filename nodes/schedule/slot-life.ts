import type { Slot } from '../../lib/schedule';
import { listenToStart, type StartReport } from '../shared/slot-starts';
import type { SlotLife } from '../sidebar/activity-types';

/** What the lives of a schedule's slots do through the node they belong to. */
export interface SlotLifeHost {
  /** a slot's stage changed (for the sidebar) */
  show(slot: Slot, life: SlotLife, channel?: unknown): void;
  /** create-channel created the slot's channel */
  channelCreated(slot: Slot, channel: Record<string, unknown>): void;
  /** create-channel failed an attempt and tries again */
  startAttempted(slot: Slot): void;
  /** create-channel gave the start up */
  startFailed(slot: Slot, reason: string, attempts: number): void;
}

interface Tracked {
  slot: Slot;
  life: SlotLife;
  /** create-channel reported on this slot's start */
  heard: boolean;
  attempts: number;
  stopListening: () => void;
}

/**
 * The life of each slot in progress on this instance, from its start to its
 * final stage: what the sidebar shows, and what create-channel said of its
 * start (nodes/shared/slot-starts), which decides at the end between a
 * follow-up and a missed report. In memory: a restart loses the attempt
 * count, never the slot (the scheduler's state keeps the slot and its channel).
 */
export class SlotLives {
  private readonly slots = new Map<string, Tracked>();

  constructor(private readonly host: SlotLifeHost) {}

  /** The start was emitted (or is taken over from another instance): starting, listening to create-channel. */
  starting(slot: Slot): void {
    if (this.slots.has(slot.key)) return;
    const tracked: Tracked = {
      slot,
      life: { stage: 'starting', attempt: 1 },
      heard: false,
      attempts: 1,
      stopListening: listenToStart(slot.key, (report) => this.onReport(slot.key, report)),
    };
    this.slots.set(slot.key, tracked);
    this.host.show(slot, tracked.life);
  }

  /** The slot's channel is known (created here, routed back, or from another instance's start). */
  recording(slot: Slot, channel: unknown, lateMs?: number): void {
    const tracked = this.track(slot);
    if (tracked.life.stage !== 'starting') return;
    tracked.life = { stage: 'recording', ...(lateMs !== undefined && lateMs >= 1000 ? { lateMs } : {}) };
    this.host.show(slot, tracked.life, channel);
  }

  stopping(slot: Slot, channel: unknown): void {
    const tracked = this.track(slot);
    tracked.life = { stage: 'stopping', ...late(tracked.life) };
    this.host.show(slot, tracked.life, channel);
  }

  /** The follow-up went (or the end went without one): the slot is over. */
  finished(slot: Slot, channel: unknown, note?: string): void {
    const tracked = this.track(slot);
    this.end(
      slot,
      { stage: 'finished', followupAt: Date.now(), ...late(tracked.life), ...(note ? { note } : {}) },
      channel,
    );
  }

  /** The slot recorded nothing; `skipped` for an operator's choice. */
  missed(slot: Slot, stage: 'missed' | 'skipped', note: string): void {
    this.end(slot, { stage, note });
  }

  /** Whether create-channel reported on the slot's start (then a missing channel means nothing was recorded). */
  heardOf(key: string): boolean {
    return this.slots.get(key)?.heard === true;
  }

  attempts(key: string): number | undefined {
    return this.slots.get(key)?.attempts;
  }

  close(): void {
    for (const tracked of this.slots.values()) tracked.stopListening();
    this.slots.clear();
  }

  private end(slot: Slot, life: SlotLife, channel?: unknown): void {
    const tracked = this.slots.get(slot.key);
    tracked?.stopListening();
    this.slots.delete(slot.key);
    this.host.show(slot, life, channel);
  }

  /** A slot this instance did not see start (after a restart, or an end taken over): tracked from here on. */
  private track(slot: Slot): Tracked {
    let tracked = this.slots.get(slot.key);
    if (!tracked) {
      tracked = { slot, life: { stage: 'recording' }, heard: false, attempts: 0, stopListening: () => undefined };
      this.slots.set(slot.key, tracked);
    }
    return tracked;
  }

  private onReport(key: string, report: StartReport): void {
    const tracked = this.slots.get(key);
    if (!tracked) return;
    tracked.heard = true;
    const { slot } = tracked;
    if (report.kind === 'attempt') {
      tracked.attempts = report.attempt;
      if (tracked.life.stage !== 'starting') return;
      tracked.life = { stage: 'starting', attempt: report.attempt, note: report.reason };
      this.host.show(slot, tracked.life);
      this.host.startAttempted(slot);
    } else if (report.kind === 'started') {
      tracked.attempts = report.attempts;
      this.host.channelCreated(slot, report.channel);
      this.recording(slot, report.channel, report.lateMs);
    } else {
      tracked.attempts = report.attempts;
      if (tracked.life.stage === 'starting') {
        tracked.life = { stage: 'starting', attempt: report.attempts, note: `gave up: ${report.reason}` };
        this.host.show(slot, tracked.life);
      }
      this.host.startFailed(slot, report.reason, report.attempts);
    }
  }
}

function late(life: SlotLife): Pick<SlotLife, 'lateMs'> {
  return life.lateMs !== undefined ? { lateMs: life.lateMs } : {};
}

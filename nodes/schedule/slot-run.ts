import { channelWithId, type IdentifiedChannel } from '../../lib/channel-ref';
import type { Slot } from '../../lib/schedule';
import type { SlotGap, SlotSegments } from '../../lib/schedule/scheduler';
import type { SlotPhase } from '../../lib/schedule/slot-events';

/** A recording's channel, as create channel returned it or the service last read it. */
export type Channel = IdentifiedChannel;

/**
 * Everything known of one slot, from its start to its final phase. Its segments (channel, earlier channels,
 * gaps) are not kept here: they are read from and written to the slot's one record, the scheduler's journaled
 * slot in progress (`recordOf`), or a record of this run's own for a slot the scheduler does not hold (ended,
 * or never started here). A record of its own is handed to the scheduler's once that one appears.
 */
export class SlotRun {
  phase: SlotPhase = 'planned';
  attempts = 0;
  /** create channel reported on this slot's start */
  heard = false;
  lastFailure?: string;
  alarmed = false;
  alarmTimer?: ReturnType<typeof setTimeout>;
  lateMs?: number;
  /** the segment's channel exists and the service has not said yet that it records (starting, interrupted) */
  awaiting?: boolean;
  /** the service said a segment of the slot records (or recorded) */
  begun?: boolean;
  /** a channel's state as the service last read it (the sidebar shows it while that channel is the slot's) */
  channelState?: { id: string; state: string };
  /** started by this instance alone while Redis could not be used: its end needs no done record */
  alone?: boolean;
  /** when the stop was accepted (epoch ms, this instance's clock), and the stop's refused attempts in words */
  stop?: { acceptedAt: number; refused?: string };
  /** when the recording ended by the service's clock (epoch ms): its `recording.ended_at` */
  endedAt?: number;
  stopListening: () => void = () => {};
  private own: SlotSegments;

  constructor(
    readonly slot: Slot,
    private readonly recordOf: (key: string) => SlotSegments | undefined,
    segments: SlotSegments = {},
  ) {
    this.own = segments;
  }

  /** The channel recording now (the last segment), or the one the slot waits on to record. */
  get channel(): Channel | undefined {
    return channelWithId(this.record.channel);
  }

  set channel(channel: Channel | undefined) {
    this.record.channel = channel;
  }

  /** Channels that recorded part of the window before `channel`, in order. */
  get earlier(): readonly Channel[] {
    return (this.record.earlier ?? []).flatMap((c) => channelWithId(c) ?? []);
  }

  /** Stretches of the window nothing recorded, epoch ms. */
  get gaps(): readonly SlotGap[] {
    return this.record.gaps ?? [];
  }

  /** The channel left RECORDING at `at`: it joins the earlier ones, and a gap opens. */
  lose(at: number, why: string): void {
    const record = this.record;
    record.earlier = [...(record.earlier ?? []), record.channel];
    record.channel = undefined;
    record.gaps = [...this.gaps, { from: at, why }];
  }

  /** The open gap, if any, ends at `at` (a replacement records, or the window ends). */
  closeGap(at: number): void {
    const gaps = this.gaps;
    const open = gaps.at(-1);
    if (!open || open.to !== undefined) return;
    // replaced, never changed in place: a journal snapshot taken before shares the old array
    this.record.gaps = [...gaps.slice(0, -1), { ...open, to: Math.max(open.from, at) }];
  }

  private get record(): SlotSegments {
    const held = this.recordOf(this.slot.key);
    if (held && held !== this.own) {
      // the scheduler holds the slot now: what this run knew goes to its record, which is the one from here on
      if (held.channel === undefined && this.own.channel !== undefined) held.channel = this.own.channel;
      if (!held.earlier?.length && this.own.earlier?.length) held.earlier = this.own.earlier;
      if (!held.gaps?.length && this.own.gaps?.length) held.gaps = this.own.gaps;
      this.own = held;
    }
    return this.own;
  }
}

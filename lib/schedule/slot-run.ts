import { channelWithId, type IdentifiedChannel } from '../../lib/channel-ref';
import type { Slot } from '../../lib/schedule';
import type { SlotGap, SlotLifeFacts, SlotRecord } from '../../lib/schedule/scheduler';
import type { SlotPhase } from '../../lib/schedule/slot-events';

/** A recording's channel, as create channel returned it or the service last read it. */
export type Channel = IdentifiedChannel;

/**
 * One slot's life, from its start to its final phase, on the slot's one record: what is known of it (its
 * segments, attempts, lateness, stop and recording end) is read from and written to the scheduler's journaled
 * record of the slot (`recordOf`), or a record of this run's own for a slot the scheduler does not hold (never
 * started here, or ended past the replay period). A record of its own is handed to the scheduler's once that
 * one appears. Only what means nothing after a restart stays here: the phase the machine is in (a restart
 * derives it from the record), timers, listeners and the channel state last read.
 */
export class SlotRun {
  phase: SlotPhase = 'planned';
  alarmed = false;
  alarmTimer?: ReturnType<typeof setTimeout>;
  /** a channel's state as the service last read it (the sidebar shows it while that channel is the slot's) */
  channelState?: { id: string; state: string };
  stopListening: () => void = () => {};
  private own: SlotRecord;

  constructor(
    readonly slot: Slot,
    private readonly recordOf: (key: string) => SlotRecord | undefined,
    record: SlotRecord = {},
  ) {
    this.own = record;
  }

  get attempts(): number {
    return this.fact('attempts') ?? 0;
  }
  set attempts(n: number) {
    this.learn('attempts', n);
  }
  get lastFailure(): string | undefined {
    return this.fact('lastFailure');
  }
  set lastFailure(text: string | undefined) {
    this.learn('lastFailure', text);
  }
  get heard(): boolean {
    return this.fact('heard') === true;
  }
  set heard(heard: boolean) {
    this.learn('heard', heard || undefined);
  }
  get awaiting(): boolean {
    return this.fact('awaiting') === true;
  }
  set awaiting(awaiting: boolean) {
    this.learn('awaiting', awaiting || undefined);
  }
  get begun(): boolean {
    return this.fact('begun') === true;
  }
  set begun(begun: boolean) {
    this.learn('begun', begun || undefined);
  }
  get lateMs(): number | undefined {
    return this.fact('lateMs');
  }
  set lateMs(ms: number | undefined) {
    this.learn('lateMs', ms);
  }
  get alone(): boolean {
    return this.fact('alone') === true;
  }
  set alone(alone: boolean) {
    this.learn('alone', alone || undefined);
  }
  get stop(): SlotLifeFacts['stop'] {
    return this.fact('stop');
  }
  set stop(stop: SlotLifeFacts['stop']) {
    this.learn('stop', stop);
  }
  get endedAt(): number | undefined {
    return this.fact('endedAt');
  }
  set endedAt(at: number | undefined) {
    this.learn('endedAt', at);
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

  private fact<K extends keyof SlotLifeFacts>(key: K): SlotLifeFacts[K] {
    return this.record.life?.[key];
  }

  /** A fact learnt (undefined: forgotten); `life` is replaced, so a journal snapshot taken before keeps its own. */
  private learn<K extends keyof SlotLifeFacts>(key: K, value: SlotLifeFacts[K]): void {
    const record = this.record;
    const { [key]: _old, ...rest } = record.life ?? {};
    record.life = value === undefined ? rest : { ...rest, [key]: value };
  }

  private get record(): SlotRecord {
    const held = this.recordOf(this.slot.key);
    if (held && held !== this.own) {
      // the scheduler holds the slot now: what this run knew goes to its record, which is the one from here on
      if (held.channel === undefined && this.own.channel !== undefined) held.channel = this.own.channel;
      if (!held.earlier?.length && this.own.earlier?.length) held.earlier = this.own.earlier;
      if (!held.gaps?.length && this.own.gaps?.length) held.gaps = this.own.gaps;
      // this run's facts are the later ones: learnt before the scheduler took the slot, or since its end
      if (this.own.life) held.life = { ...held.life, ...this.own.life };
      this.own = held;
    }
    return this.own;
  }
}

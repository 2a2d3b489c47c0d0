import { channelWithId } from '../channel-ref';
import { type ServiceClockReading, skewSentence, toldSkewSeconds } from '../service-clock';
import { isoSeconds, type Slot } from '.';
import type { SlotGap, SlotRecord } from './scheduler';
import { type SlotPhase, type SlotTransition, slotTransitions } from './slot-events';
import {
  IllegalSlotTransition,
  illegalTransition,
  isFinalPhase,
  nextPhase,
  type SlotEffect,
  type SlotEvent,
} from './slot-machine';
import { endLatenessSeconds, isLate, isOverrun, OVERRUN_AFTER_S, overrunSentence } from './slot-outcome';
import { type Channel, SlotRun } from './slot-run';
import { type SlotLife, type SlotStage, STAGE_OF_PHASE as STAGES } from './slot-stage';
import { listenToStart, type StartReport } from './slot-starts';

export type { Channel };

/** A stretch of a window nothing recorded: from the interruption to the replacement's recording (epoch ms). */
type Gap = SlotGap;

/** Who a slot is, as its transitions name it (the schedule, its window, the occurrence). */
export type SlotIdentity = Pick<
  SlotTransition,
  'schedule' | 'window' | 'occurrence' | 'scheduled' | 'coordinated' | 'rerecordOf'
>;

/** What the lives of a schedule's slots read of the schedule they belong to (answers, never effects). */
export interface SlotReads {
  identity(slot: Slot): SlotIdentity;
  /** how long after the slot's start a start that still fails is said (start_failing) */
  alarmAfterMs(slot: Slot): number;
  /**
   * whether the schedule reads its slots' channels from the service (it has a server): then a slot records
   * once the service says so; without, from the moment its channel is known (nothing else can be known)
   */
  readsChannels?(): boolean;
  /** the slot's one record while the scheduler holds it (journaled with it) */
  record?(key: string): SlotRecord | undefined;
  /** how far the service's clock (which times the recordings) is from this host's, once known */
  serviceClock?(): ServiceClockReading | undefined;
}

/**
 * What a slot's life asks of the node it belongs to, as data: the node carries each out, in the order given.
 * - `show`: the slot's stage changed (the sidebar); `changed`: anything the badge shows changed;
 * - `keep`: the slot's record changed: journal it;
 * - `channel-requested`, `start-attempted`, `channel-created`, `start-failed`: what create channel reported
 *   on the slot's start (its first request out, an attempt failed and tried again, the channel, given up);
 * - `start-failing`: the start still fails `alarmAfterMs` after the slot's start: said once, while it can still
 *   be helped;
 * - `replace`: the recording stopped before the window's end: ask for a replacement (the `n`th);
 * - `warn`: an event the transition table has no row for (told once per phase and event), or the service's
 *   clock apart from this host's (told once while they stay apart).
 * The transitions themselves go out on `media-spaces:slot` (lib/schedule/slot-events), read by the as-run log
 * and the metrics.
 */
export type SlotOut =
  | { kind: 'show'; slot: Slot; life: SlotLife; channel?: Channel }
  | { kind: 'changed' }
  | { kind: 'keep'; slot: Slot }
  | { kind: 'channel-requested'; slot: Slot }
  | { kind: 'start-attempted'; slot: Slot }
  | { kind: 'channel-created'; slot: Slot; channel: Channel }
  | { kind: 'start-failed'; slot: Slot; reason: string; attempts: number }
  | { kind: 'start-failing'; slot: Slot; failure: { attempts: number; reason: string } }
  | { kind: 'replace'; slot: Slot; channel: Channel; why: string; n: number }
  | { kind: 'warn'; text: string };

/** What the status, the coordination and the end read of a slot. */
export interface SlotView {
  phase: SlotPhase;
  attempts: number;
  lastFailure?: string;
  heard: boolean;
  channel?: Channel;
  earlier: readonly Channel[];
  gaps: readonly Gap[];
}

/**
 * One state machine per slot: planned → starting (attempts, last failure, then
 * its channel until the service says it records) → recording (from the
 * service's recording start, how late) → interrupted → recording again → stopping →
 * finishing → finished | partial | missed | skipped | cancelled. The sidebar,
 * the badge, the missed and start_failing reports, and whoever listens on the
 * `media-spaces:slot` diagnostics channel (the as-run log, the metrics) read
 * it or its transitions; create channel's reports (lib/schedule/slot-starts)
 * drive it. Events come in as method calls (timers, create channel's reports,
 * the service's reads, the end); each change goes out as data (`SlotOut`), which
 * the node carries out. All that is known of a slot is its one record, the
 * scheduler's journaled slot (`SlotRecord`), which a restart takes up.
 */
export class SlotLives {
  private readonly runs = new Map<string, SlotRun>();
  /** the clocks' difference warned of (seconds) while they stay apart, so that each slot does not warn again */
  private warnedSkew: number | undefined;

  /** `out`: the node's one way of carrying out what the slots' lives ask (events come in as method calls). */
  constructor(
    private readonly reads: SlotReads,
    private readonly out: (effect: SlotOut) => void,
  ) {}

  /**
   * The start was emitted (or is taken over from another instance): starting, listening to create channel.
   * `revived`: a conflict's loser, skipped at its start, starts late now that a channel freed up (why, in words).
   */
  starting(slot: Slot, revived?: string): void {
    if (this.runs.has(slot.key)) return;
    // a revived loser's skip was its end: its start now is a new life of the slot, told as such
    this.move(this.create(slot), 'emitted', revived ? { why: revived, revived: true } : {});
  }

  /**
   * The slot's channel is known (created here, routed back, or from another instance's start). The slot
   * records once the service says so: at once when the channel says its recording started, else at the
   * recording watch's first read in RECORDING; without a server to read it from, from now.
   */
  recording(slot: Slot, channel: unknown): void {
    // a slot another instance started (its channel adopted from Redis) is followed from here on
    const run = this.track(slot, 'adopted-starting');
    const ch = channelWithId(channel);
    if (run.phase !== 'starting' && run.phase !== 'interrupted') return;
    // a channel the window already lost (its report or its routing back came late) does not resume it
    if (ch && run.earlier.some((c) => c.id === ch.id)) return;
    const known = ch !== undefined && run.awaiting === true && run.channel?.id === ch.id;
    if (ch) run.channel = ch;
    this.clearAlarm(run);
    const began = recordingStartOf(ch) ?? (this.reads.readsChannels?.() === true ? undefined : Date.now());
    if (began !== undefined) {
      this.began(run, began);
      return;
    }
    if (known) return;
    run.awaiting = true;
    // journaled: a restart now takes the slot up as starting, not recording, until the service says it records
    this.out({ kind: 'keep', slot: slot });
    // the channel is shown with the slot while it warms up ("starting · channel PENDING")
    this.out({ kind: 'show', slot: slot, life: this.life(run), channel: this.shownChannel(run) });
    this.out({ kind: 'changed' });
  }

  /** The service began to record the slot's segment at `at` (epoch ms, its clock): recording. */
  private began(run: SlotRun, at: number): void {
    this.move(run, 'began', this.beganAt(run, at));
  }

  /** What the start of a segment at `at` (epoch ms, the service's clock) tells: the lateness of the first. */
  private beganAt(run: SlotRun, at: number): { lateBy?: number; startedAt: string } {
    run.awaiting = false;
    const open = run.gaps.at(-1);
    let lateBy: number | undefined;
    if (run.phase === 'interrupted' && open && open.to === undefined) run.closeGap(at);
    else if (run.phase === 'starting' || !run.begun) {
      const lateMs = Math.max(0, at - run.slot.start);
      lateBy = Math.round(lateMs / 100) / 10;
      if (isLate(lateBy)) run.lateMs = lateMs;
    }
    run.begun = true;
    return { lateBy, startedAt: new Date(at).toISOString() };
  }

  /**
   * The channel left RECORDING before the window's end (ERROR, or its recording ended): the slot asks for a
   * replacement, tried like a start until the end; every channel recorded so far goes with the follow-up.
   */
  interrupt(slot: Slot, why: string): void {
    const run = this.runs.get(slot.key);
    if (!run?.channel || Date.now() >= slot.end) return;
    // a channel lost before it recorded (ERROR while it warmed up) is an interruption too
    if (run.phase !== 'recording' && !(run.awaiting && (run.phase === 'starting' || run.phase === 'interrupted')))
      return;
    run.awaiting = false;
    const lost = run.channel;
    run.lose(Date.now(), why);
    // the replacement's attempts and channel come from create channel, as a start's do
    this.move(run, 'lost', { why, channel: lost });
  }

  /** The window's end: its recording is being stopped. */
  stopping(slot: Slot, channel: unknown): void {
    const run = this.track(slot);
    const ch = channelWithId(channel);
    if (ch && !run.earlier.some((c) => c.id === ch.id)) run.channel = ch;
    this.caughtUp(run);
    if (run.phase === 'stopping') {
      this.out({ kind: 'show', slot: slot, life: this.life(run), channel: this.shownChannel(run) });
      return;
    }
    this.closeGap(run);
    this.move(run, 'end');
  }

  /**
   * The stop was accepted (`refused`: its attempts the service refused first, in words): the service finishes
   * the recording (its outputs final once INACTIVE).
   */
  finishing(slot: Slot, channel: unknown, refused?: string): void {
    const run = this.track(slot);
    const ch = channelWithId(channel);
    if (ch && !run.earlier.some((c) => c.id === ch.id)) run.channel = ch;
    const began = this.caughtUp(run);
    run.stop ??= { acceptedAt: Date.now(), ...(refused ? { refused } : {}) };
    this.endedBy(run, ch);
    if (run.phase !== 'finishing') this.move(run, 'stop-accepted', began);
  }

  /**
   * The follow-up went (or the end went without one): finished, or partial when the recording was interrupted;
   * with the service's recording end, and the overrun when it ended more than OVERRUN_AFTER_S past the end.
   */
  finished(slot: Slot, channel: unknown, note?: string): void {
    const run = this.track(slot);
    const ch = channelWithId(channel);
    if (ch && !run.earlier.some((c) => c.id === ch.id)) run.channel = ch;
    const began = this.caughtUp(run);
    this.endedBy(run, ch);
    this.closeGap(run);
    if (run.awaiting && run.gaps.length === 0) {
      // its channel never recorded: still warming up at the end by every read, the last one at the stop
      const why = `the channel never recorded (${this.shownChannel(run)?.state ?? 'not recording'} at the end)`;
      this.move(run, 'never-recorded', { why, note: note ? `${why}; ${note}` : why });
      return;
    }
    const partial = run.gaps.length > 0;
    const overrun = overrunOf(run, this.skew());
    this.move(run, partial ? 'recorded-with-gaps' : 'recorded', {
      ...began,
      why: partial ? gapSentence(run.gaps) : note,
      // the sidebar tells the overrun with the end; the as-run log and the metrics read it from the transition
      note: overrun ? [overrunSentence(overrun), note].filter((t) => t !== undefined).join('; ') : note,
      gaps: run.gaps,
      overrun,
    });
  }

  /**
   * An end sent again after a restart, the very message of the first time: the sidebar shows the slot
   * finished, and no transition is told again (the as-run log and the metrics had it the first time).
   */
  replayed(slot: Slot, channel: unknown): void {
    const run = this.runs.get(slot.key) ?? this.create(slot);
    const ch = channelWithId(channel);
    if (ch) run.channel = ch;
    this.move(run, 'replayed');
  }

  /** The slot recorded nothing; `skipped` for an operator's choice. */
  missed(slot: Slot, stage: 'missed' | 'skipped' | 'cancelled', note: string): void {
    const run = this.runs.get(slot.key) ?? this.create(slot);
    this.move(run, MISS_EVENTS[stage], { why: note, note });
  }

  /** Whether create channel reported on the slot's start (then a missing channel means nothing was recorded). */
  heardOf(key: string): boolean {
    return this.runs.get(key)?.heard === true;
  }

  attempts(key: string): number | undefined {
    return this.runs.get(key)?.attempts;
  }

  view(key: string): SlotView | undefined {
    const run = this.runs.get(key);
    if (!run) return undefined;
    const { phase, attempts, lastFailure, heard, channel, earlier, gaps } = run;
    return { phase, attempts, lastFailure, heard, channel, earlier, gaps };
  }

  /**
   * Takes a slot in progress up from its journaled record (after a restart or redeploy), facts and all:
   * recording when it has a channel the service said records, interrupted when it lost one and waits for its
   * replacement, else starting (its channel still warming up, read until the service says it records; or
   * create channel still trying its start, reporting to whoever listens now; or it gave the start up:
   * `failure`).
   */
  restore(slot: Slot, record: SlotRecord, failure?: { message: string; attempts: number }): void {
    if (this.runs.has(slot.key)) return;
    const run = this.create(slot, record);
    // a channel the service had not said records yet (journals before this record's `life`: it records)
    if (run.channel && !run.awaiting) {
      run.begun = true;
      this.move(run, 'restored-recording');
    } else if (run.earlier.length > 0) this.move(run, 'restored-interrupted');
    else if (failure) {
      run.heard = true;
      run.attempts = failure.attempts;
      run.lastFailure = `gave up: ${failure.message}`;
      // create channel gave the start up before the restart: nothing more to hear of it
      this.move(run, 'adopted-starting');
      this.out({ kind: 'show', slot: slot, life: this.life(run), channel: this.shownChannel(run) });
    } else this.move(run, 'restored-starting');
  }

  /**
   * A channel's state as the service reads it now: the slot on it shows it, and a slot waiting for its
   * channel to record records from the service's recording start (`recording.started_at` of the channel
   * read, else now: the first read in RECORDING).
   */
  channelState(channelId: string, state: string, channel?: Record<string, unknown>): void {
    for (const run of this.runs.values()) {
      if (run.channel?.id !== channelId) continue;
      if (run.awaiting && (run.phase === 'starting' || run.phase === 'interrupted')) {
        const began = recordingStartOf(channel) ?? (state.toUpperCase() === 'RECORDING' ? Date.now() : undefined);
        if (began !== undefined) {
          run.channelState = { id: channelId, state };
          this.began(run, began);
          continue;
        }
      }
      if (this.shownChannel(run)?.state === state) continue;
      run.channelState = { id: channelId, state };
      this.out({ kind: 'show', slot: run.slot, life: this.life(run), channel: this.shownChannel(run) });
    }
  }

  /** Channel ids of the slots in the given sidebar stages (read by the sidebar while they start or stop). */
  channelsIn(stages: readonly SlotStage[]): string[] {
    const ids: string[] = [];
    for (const run of this.runs.values())
      if (run.channel && stages.includes(STAGES[run.phase])) ids.push(run.channel.id);
    return ids;
  }

  /** The slot was started by this instance alone (Redis could not be used): its end asks Redis for no start. */
  startAlone(key: string): void {
    const run = this.runs.get(key);
    if (!run) return;
    run.alone = true;
    this.out({ kind: 'keep', slot: run.slot });
  }

  startedAlone(key: string): boolean {
    return this.runs.get(key)?.alone === true;
  }

  /**
   * Slot keys and channel ids of the slots recording now, and of those whose channel has not begun to record
   * yet (what the recording watch reads: its first read in RECORDING makes the slot recording).
   */
  recordingChannels(): Map<string, string> {
    const out = new Map<string, string>();
    for (const run of this.runs.values())
      if (run.channel && (run.phase === 'recording' || run.awaiting)) out.set(run.slot.key, run.channel.id);
    return out;
  }

  /**
   * Another instance ended the slot (and told its transitions): this one lets it go without a transition; its
   * sidebar shows the slot ended there (the outcome is that instance's).
   */
  forget(key: string): void {
    const run = this.runs.get(key);
    if (!run) return;
    run.stopListening();
    this.clearAlarm(run);
    this.runs.delete(key);
    this.out({
      kind: 'show',
      slot: run.slot,
      life: { stage: 'finished', note: 'ended by another instance' },
      channel: this.shownChannel(run),
    });
    this.out({ kind: 'changed' });
  }

  close(): void {
    for (const run of this.runs.values()) {
      run.stopListening();
      this.clearAlarm(run);
    }
    this.runs.clear();
  }

  /** A run on the slot's one record: the scheduler's while it holds the slot, else `record` (or a new one). */
  private create(slot: Slot, record?: SlotRecord): SlotRun {
    return new SlotRun(slot, (key) => this.reads.record?.(key), record);
  }

  /**
   * A slot still waiting for its channel to record at its end (a window shorter than the warm-up, or ended
   * between two reads): the channel read at the end says whether and when it began to record. Before the stop
   * the slot enters recording; after it (the recording began once the window had ended), the start goes with
   * the next transition.
   */
  private caughtUp(run: SlotRun): { lateBy?: number; startedAt: string } | undefined {
    if (!run.awaiting) return undefined;
    const began = recordingStartOf(run.channel);
    if (began === undefined) return undefined;
    if (run.phase === 'starting' || run.phase === 'interrupted') {
      this.began(run, began);
      return undefined;
    }
    return this.beganAt(run, began);
  }

  /** The recording's end by the service's clock, from the channel as the stop answered or last read. */
  private endedBy(run: SlotRun, channel: Channel | undefined): void {
    const ended = recordingEndOf(channel);
    if (ended !== undefined) run.endedAt = ended;
  }

  /** A slot this instance did not see start (after a restart, or an end taken over): tracked from here on. */
  private track(slot: Slot, adoption: 'adopted' | 'adopted-starting' = 'adopted'): SlotRun {
    let run = this.runs.get(slot.key);
    if (!run) {
      run = this.create(slot);
      this.move(run, adoption);
    }
    return run;
  }

  private closeGap(run: SlotRun): void {
    run.closeGap(Math.min(Date.now(), run.slot.end));
  }

  /**
   * The one way a slot's phase changes: the transition table's row for the event, and its effects in order.
   * An event with no row there changes nothing (lib/schedule/slot-machine: it throws under test).
   */
  private move(run: SlotRun, event: SlotEvent, extra: MoveDetails = {}): void {
    const rule = nextPhase(run.phase, event);
    if (!rule) {
      illegalTransition(new IllegalSlotTransition(run.slot.key, run.phase, event), (text) =>
        this.out({ kind: 'warn', text }),
      );
      return;
    }
    const from = run.phase;
    run.phase = rule.to;
    if (isFinalPhase(rule.to)) this.runs.delete(run.slot.key);
    else this.runs.set(run.slot.key, run);
    for (const effect of rule.effects) this.apply(effect, run, from, extra);
  }

  private apply(effect: SlotEffect, run: SlotRun, from: SlotPhase, extra: MoveDetails): void {
    const { slot } = run;
    switch (effect) {
      case 'listen':
        run.stopListening();
        run.stopListening = listenToStart(slot.key, (report) => this.onReport(slot.key, report));
        return;
      case 'alarm': {
        const wait = slot.start + this.reads.alarmAfterMs(slot) - Date.now();
        run.alarmTimer = setTimeout(() => this.checkAlarm(run), Math.max(0, wait));
        return;
      }
      case 'disarm':
        this.clearAlarm(run);
        return;
      case 'settle':
        run.stopListening();
        this.clearAlarm(run);
        return;
      case 'show':
        this.out({
          kind: 'show',
          slot: slot,
          life: this.life(run, extra.note ?? extra.why),
          channel: this.shownChannel(run, extra.channel),
        });
        this.out({ kind: 'changed' });
        return;
      case 'keep':
        this.out({ kind: 'keep', slot: slot });
        return;
      case 'replace':
        if (extra.channel)
          this.out({
            kind: 'replace',
            slot,
            channel: extra.channel,
            why: extra.why ?? 'the recording stopped',
            n: run.earlier.length,
          });
        return;
      case 'tell':
        this.tell(run, from, extra);
        return;
    }
  }

  /** `clockOffset` for a transition that carries one of the service's times, when worth telling. */
  private clockOffsetOf(carriesServiceTime: boolean): { clockOffset?: number } {
    if (!carriesServiceTime) return {};
    const skew = this.skew();
    if (skew === undefined) {
      // the clocks agree (again): a later difference is a new one, and is told
      this.warnedSkew = undefined;
      return {};
    }
    this.warnOfSkew(skew);
    return { clockOffset: skew };
  }

  /** The clocks' difference when it is worth telling (lib/service-clock), in seconds. */
  private skew(): number | undefined {
    return toldSkewSeconds(this.reads.serviceClock?.());
  }

  /** Said once while the clocks stay apart (a drifting host's estimate moves, and is not told again). */
  private warnOfSkew(skew: number): void {
    if (this.warnedSkew !== undefined) return;
    this.warnedSkew = skew;
    this.out({
      kind: 'warn',
      text: `${skewSentence(skew)}: recordings start and stop by this host's clock, so the service times them ${Math.abs(skew)} s ${skew > 0 ? 'late' : 'early'} by its own (the as-run log says so); set this host's clock by NTP`,
    });
  }

  /** The transition, published on `media-spaces:slot` (the as-run log, the metrics). */
  private tell(run: SlotRun, from: SlotPhase, extra: MoveDetails): void {
    const to = run.phase;
    const endedAt =
      run.endedAt !== undefined && (to === 'finishing' || isFinalPhase(to))
        ? new Date(run.endedAt).toISOString()
        : undefined;
    // the clocks are checked (and their difference warned of) whether or not anyone hears the transition
    const clockOffset = this.clockOffsetOf(extra.startedAt !== undefined || endedAt !== undefined);
    if (!slotTransitions.hasSubscribers) return;
    const channel = extra.channel ?? run.channel;
    const transition: SlotTransition = {
      slot: run.slot.key,
      ...this.reads.identity(run.slot),
      from,
      to,
      at: new Date().toISOString(),
      ...(extra.why ? { why: extra.why } : {}),
      ...(run.attempts ? { attempts: run.attempts } : {}),
      ...(channel ? { channel: { id: channel.id, outputs: outputsOf(channel) } } : {}),
      ...(extra.lateBy !== undefined ? { lateBy: extra.lateBy } : {}),
      ...(extra.startedAt ? { startedAt: extra.startedAt } : {}),
      ...(endedAt !== undefined ? { endedAt } : {}),
      ...clockOffset,
      ...(extra.overrun ? { overrun: extra.overrun } : {}),
      ...(extra.gaps?.length ? { gaps: extra.gaps.map(gapView) } : {}),
      ...(extra.revived ? { revived: true } : {}),
    };
    slotTransitions.publish(transition);
  }

  /** What the sidebar shows of the slot. */
  private life(run: SlotRun, note?: string): SlotLife {
    const stage = STAGES[run.phase];
    const late = run.lateMs !== undefined ? { lateMs: run.lateMs } : {};
    if (run.phase === 'starting') {
      return {
        stage,
        attempt: Math.max(1, run.attempts),
        ...(run.lastFailure ? { note: run.lastFailure } : {}),
      };
    }
    if (run.phase === 'interrupted') {
      return { stage, note: `interrupted: ${note ?? run.gaps.at(-1)?.why ?? 'the recording stopped'}` };
    }
    if (stage === 'finished') return { stage, followupAt: Date.now(), ...late, ...(note ? { note } : {}) };
    return { stage, ...late, ...(note ? { note } : {}) };
  }

  private checkAlarm(run: SlotRun): void {
    run.alarmTimer = undefined;
    if (run.alarmed || run.phase !== 'starting' || this.runs.get(run.slot.key) !== run) return;
    const early = run.slot.start + this.reads.alarmAfterMs(run.slot) - Date.now();
    // a timer may fire a moment before the wall clock says its time came: looked at again then, or the alarm of
    // a start whose last failure came before it would never be said
    if (early > 0) {
      run.alarmTimer ??= setTimeout(() => this.checkAlarm(run), early);
      return;
    }
    if (!run.lastFailure) return;
    run.alarmed = true;
    this.out({ kind: 'start-failing', slot: run.slot, failure: { attempts: run.attempts, reason: run.lastFailure } });
  }

  /** The channel as the sidebar shows it: with the state last read from the service. */
  private shownChannel(run: SlotRun, lost?: Channel): Channel | undefined {
    const channel = run.channel ?? lost;
    const read = run.channelState;
    if (!channel || read?.id !== channel.id) return channel;
    return { ...channel, state: read.state };
  }

  private clearAlarm(run: SlotRun): void {
    if (run.alarmTimer) clearTimeout(run.alarmTimer);
    run.alarmTimer = undefined;
  }

  private onReport(key: string, report: StartReport): void {
    const run = this.runs.get(key);
    if (!run) return;
    run.heard = true;
    const { slot } = run;
    if (report.kind === 'requesting') {
      this.out({ kind: 'channel-requested', slot });
      return;
    }
    if (report.kind === 'attempt') {
      run.attempts = report.attempt;
      run.lastFailure = report.reason;
      if (run.phase !== 'starting' && run.phase !== 'interrupted') return;
      this.out({ kind: 'show', slot: slot, life: this.life(run), channel: this.shownChannel(run) });
      this.out({ kind: 'changed' });
      this.out({ kind: 'start-attempted', slot });
      this.checkAlarm(run);
    } else if (report.kind === 'started') {
      run.attempts = report.attempts;
      const channel = channelWithId(report.channel);
      if (channel) this.out({ kind: 'channel-created', slot, channel });
      this.recording(slot, report.channel);
    } else {
      run.attempts = report.attempts;
      run.lastFailure = `gave up: ${report.reason}`;
      if (run.phase === 'starting' || run.phase === 'interrupted') {
        this.out({ kind: 'show', slot: slot, life: this.life(run), channel: this.shownChannel(run) });
        this.out({ kind: 'changed' });
      }
      // a replacement given up leaves the slot as it was: its end follows up what was recorded
      if (run.phase === 'starting')
        this.out({ kind: 'start-failed', slot, reason: report.reason, attempts: report.attempts });
    }
  }
}

/** The event that ends a slot nothing recorded, by the word for it. */
const MISS_EVENTS: Record<'missed' | 'skipped' | 'cancelled', SlotEvent> = {
  missed: 'start-failed',
  skipped: 'skip',
  cancelled: 'cancel',
};

/** What a transition carries besides its phase. */
interface MoveDetails {
  why?: string;
  note?: string;
  lateBy?: number;
  startedAt?: string;
  channel?: Channel;
  gaps?: readonly Gap[];
  overrun?: { by: number; why?: string };
  /** a conflict's loser, skipped at its start, starting late once a channel freed up */
  revived?: true;
}

/** When the channel's recording began by the service's clock (its `recording.started_at`), epoch ms. */
function recordingStartOf(channel: Record<string, unknown> | undefined): number | undefined {
  return recordingTime(channel, 'started_at');
}

/** When the channel's recording ended by the service's clock (its `recording.ended_at`), epoch ms. */
function recordingEndOf(channel: Record<string, unknown> | undefined): number | undefined {
  return recordingTime(channel, 'ended_at');
}

function recordingTime(channel: Record<string, unknown> | undefined, field: 'started_at' | 'ended_at') {
  const recording = channel?.recording as Record<string, unknown> | undefined;
  const value = typeof recording === 'object' && recording !== null ? recording[field] : undefined;
  const at = typeof value === 'string' ? Date.parse(value) : Number.NaN;
  return Number.isFinite(at) ? at : undefined;
}

/**
 * How far past its scheduled end the recording ended by the service's clock, and why, when that is more than
 * OVERRUN_AFTER_S: the stop's refusals, a stop accepted late, or the service's own finishing.
 */
function overrunOf(run: SlotRun, skew: number | undefined): { by: number; why?: string } | undefined {
  if (run.endedAt === undefined) return undefined;
  const by = endLatenessSeconds(run.slot.end, run.endedAt);
  if (!isOverrun(by)) return undefined;
  const stop = run.stop;
  if (stop?.refused) return { by, why: stop.refused };
  if (stop && stop.acceptedAt - run.slot.end > OVERRUN_AFTER_S * 1000)
    return { by, why: `the stop was accepted ${Math.round((stop.acceptedAt - run.slot.end) / 1000)} s after the end` };
  // the stop went at the end by this host's clock, which is behind the service's: that is the overrun
  if (stop && skew !== undefined && skew > 0 && !isOverrun(by - skew))
    return { by, why: "the stop went at the end by this host's clock" };
  return stop ? { by, why: 'the service ended the recording late after the stop' } : { by };
}

function outputsOf(channel: Channel): unknown[] | undefined {
  const recording = channel.recording as { outputs?: unknown } | undefined;
  return Array.isArray(recording?.outputs) ? recording.outputs : undefined;
}

export function gapView(gap: Gap): { from: string; to: string; why: string } {
  return { from: isoSeconds(gap.from), to: isoSeconds(gap.to ?? gap.from), why: gap.why };
}

/** One sentence for a partial recording: how many gaps, and the first one's cause. */
function gapSentence(gaps: readonly Gap[]): string {
  const first = gaps[0];
  const more = gaps.length > 1 ? ` (and ${gaps.length - 1} more)` : '';
  return `recording interrupted ${gaps.length} time${gaps.length > 1 ? 's' : ''}: ${first.why}${more}`;
}

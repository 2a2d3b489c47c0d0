import { channelWithId, type IdentifiedChannel } from '../../lib/channel-ref';
import { isoSeconds, type Slot } from '../../lib/schedule';
import { type SlotPhase, type SlotTransition, slotTransitions } from '../../lib/schedule/slot-events';
import { listenToStart, type StartReport } from '../shared/slot-starts';
import type { SlotLife, SlotStage } from '../sidebar/activity-types';

/** A recording's channel, as create channel returned it or the service last read it. */
export type Channel = IdentifiedChannel;

/** A stretch of a window nothing recorded: from the interruption to the replacement's recording (epoch ms). */
interface Gap {
  from: number;
  to?: number;
  why: string;
}

/** Who a slot is, as its transitions name it (the schedule, its window, the occurrence). */
export type SlotIdentity = Pick<SlotTransition, 'schedule' | 'window' | 'occurrence' | 'scheduled' | 'coordinated'>;

/** What the lives of a schedule's slots do through the node they belong to. */
interface SlotLifeHost {
  /** a slot's stage changed (for the sidebar) */
  show(slot: Slot, life: SlotLife, channel?: unknown): void;
  /** anything the badge shows changed */
  changed(): void;
  /** create channel created the slot's channel (a replacement too) */
  channelCreated(slot: Slot, channel: Channel): void;
  /** create channel's first request for the slot's channel went out */
  channelRequested(slot: Slot): void;
  /** create channel failed an attempt and tries again */
  startAttempted(slot: Slot): void;
  /** create channel gave the start up */
  startFailed(slot: Slot, reason: string, attempts: number): void;
  /** the start still fails `alarmAfterMs` after the slot's start: said once, while it can still be helped */
  startFailing(slot: Slot, failure: { attempts: number; reason: string }): void;
  /** the recording stopped before the window's end: ask for a replacement (the `n`th) */
  interrupted(slot: Slot, channel: Channel, why: string, n: number): void;
  identity(slot: Slot): SlotIdentity;
  alarmAfterMs(slot: Slot): number;
}

/** Everything known of one slot, from its start to its final phase. */
interface SlotRun {
  slot: Slot;
  phase: SlotPhase;
  attempts: number;
  /** create channel reported on this slot's start */
  heard: boolean;
  lastFailure?: string;
  alarmed: boolean;
  alarmTimer?: ReturnType<typeof setTimeout>;
  lateMs?: number;
  /** the channel recording now (the last segment) */
  channel?: Channel;
  /** channels that recorded part of the window before it, in order */
  earlier: Channel[];
  gaps: Gap[];
  /** a channel's state as the service last read it (the sidebar shows it while that channel is the slot's) */
  channelState?: { id: string; state: string };
  /** started by this instance alone while Redis could not be used: its end needs no done record */
  alone?: boolean;
  stopListening: () => void;
}

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

const FINAL: readonly SlotPhase[] = ['finished', 'partial', 'missed', 'skipped', 'cancelled'];

/**
 * One state machine per slot: planned → starting (attempts, last failure) →
 * recording (channel, how late) → interrupted → recording again → stopping →
 * finishing → finished | partial | missed | skipped | cancelled. The sidebar,
 * the badge, the missed and start_failing reports, and whoever listens on the
 * `media-spaces:slot` diagnostics channel (the as-run log, the metrics) read
 * it or its transitions; create channel's reports (nodes/shared/slot-starts)
 * drive it. In memory: the scheduler's journal keeps the slot, its channels
 * and its gaps across a restart, and the machine takes the slot up from there.
 */
export class SlotLives {
  private readonly runs = new Map<string, SlotRun>();

  constructor(private readonly host: SlotLifeHost) {}

  /** The start was emitted (or is taken over from another instance): starting, listening to create channel. */
  starting(slot: Slot): void {
    if (this.runs.has(slot.key)) return;
    const run = this.create(slot, { earlier: [], gaps: [] });
    run.stopListening = listenToStart(slot.key, (report) => this.onReport(slot.key, report));
    this.move(run, 'starting');
    const wait = slot.start + this.host.alarmAfterMs(slot) - Date.now();
    run.alarmTimer = setTimeout(() => this.checkAlarm(run), Math.max(0, wait));
  }

  /** The slot's channel is known (created here, routed back, or from another instance's start). */
  recording(slot: Slot, channel: unknown, lateMs?: number): void {
    // a slot another instance started (its channel adopted from Redis) is followed from here on
    const run = this.track(slot, 'starting');
    const ch = channelWithId(channel);
    if (run.phase !== 'starting' && run.phase !== 'interrupted') return;
    // a channel the window already lost (its report or its routing back came late) does not resume it
    if (ch && run.earlier.some((c) => c.id === ch.id)) return;
    if (ch) run.channel = ch;
    const open = run.gaps.at(-1);
    if (run.phase === 'interrupted' && open && open.to === undefined) open.to = Date.now();
    else if (lateMs !== undefined && lateMs >= 1000) run.lateMs = lateMs;
    this.clearAlarm(run);
    this.move(run, 'recording', { lateBy: run.phase === 'starting' ? Math.round((lateMs ?? 0) / 1000) : undefined });
  }

  /**
   * The channel left RECORDING before the window's end (ERROR, or its recording ended): the slot asks for a
   * replacement, tried like a start until the end; every channel recorded so far goes with the follow-up.
   */
  interrupt(slot: Slot, why: string): void {
    const run = this.runs.get(slot.key);
    if (run?.phase !== 'recording' || !run.channel || Date.now() >= slot.end) return;
    const lost = run.channel;
    run.earlier.push(lost);
    run.channel = undefined;
    run.gaps.push({ from: Date.now(), why });
    // the replacement's attempts and channel come from create channel, as a start's do
    run.stopListening();
    run.stopListening = listenToStart(slot.key, (report) => this.onReport(slot.key, report));
    this.move(run, 'interrupted', { why, channel: lost });
    this.host.interrupted(slot, lost, why, run.earlier.length);
  }

  /** The window's end: its recording is being stopped. */
  stopping(slot: Slot, channel: unknown): void {
    const run = this.track(slot);
    const ch = channelWithId(channel);
    if (ch && !run.earlier.some((c) => c.id === ch.id)) run.channel = ch;
    if (run.phase === 'stopping') {
      this.host.show(slot, this.life(run), this.shownChannel(run));
      return;
    }
    this.clearAlarm(run);
    this.closeGap(run);
    this.move(run, 'stopping');
  }

  /** The stop was accepted: the service finishes the recording (its outputs final once INACTIVE). */
  finishing(slot: Slot, channel: unknown): void {
    const run = this.track(slot);
    const ch = channelWithId(channel);
    if (ch && !run.earlier.some((c) => c.id === ch.id)) run.channel = ch;
    if (run.phase !== 'finishing') this.move(run, 'finishing');
  }

  /** The follow-up went (or the end went without one): finished, or partial when the recording was interrupted. */
  finished(slot: Slot, channel: unknown, note?: string): void {
    const run = this.track(slot);
    const ch = channelWithId(channel);
    if (ch && !run.earlier.some((c) => c.id === ch.id)) run.channel = ch;
    this.closeGap(run);
    const partial = run.gaps.length > 0;
    this.end(run, partial ? 'partial' : 'finished', {
      why: partial ? gapSentence(run.gaps) : note,
      note,
      gaps: run.gaps,
    });
  }

  /**
   * An end sent again after a restart, the very message of the first time: the sidebar shows the slot
   * finished, and no transition is told again (the as-run log and the metrics had it the first time).
   */
  replayed(slot: Slot, channel: unknown): void {
    const run = this.runs.get(slot.key) ?? this.create(slot, { earlier: [], gaps: [] });
    run.stopListening();
    this.clearAlarm(run);
    this.runs.delete(slot.key);
    run.phase = 'finished';
    const ch = channelWithId(channel);
    if (ch) run.channel = ch;
    this.host.show(run.slot, this.life(run), this.shownChannel(run));
    this.host.changed();
  }

  /** The slot recorded nothing; `skipped` for an operator's choice. */
  missed(slot: Slot, stage: 'missed' | 'skipped' | 'cancelled', note: string): void {
    const run = this.track(slot, 'planned');
    this.end(run, stage, { why: note, note });
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
   * Takes a slot in progress up from the journal (after a restart or redeploy): recording when it has a
   * channel, interrupted when it lost one and waits for its replacement, else starting (create channel may
   * still be trying its start, and reports to whoever listens now; or it gave the start up: `failure`).
   */
  restore(
    slot: Slot,
    channel: unknown,
    earlier: readonly unknown[],
    gaps: readonly Gap[],
    failure?: { message: string; attempts: number },
  ): void {
    if (this.runs.has(slot.key)) return;
    const ch = channelWithId(channel);
    const lost = earlier.flatMap((c) => channelWithId(c) ?? []);
    const run = this.create(slot, { earlier: lost, gaps: gaps.map((g) => ({ ...g })) });
    run.phase = ch ? 'recording' : lost.length > 0 ? 'interrupted' : 'starting';
    if (ch) run.channel = ch;
    else if (failure) {
      run.heard = true;
      run.attempts = failure.attempts;
      run.lastFailure = `gave up: ${failure.message}`;
    } else run.stopListening = listenToStart(slot.key, (report) => this.onReport(slot.key, report));
    this.runs.set(slot.key, run);
    this.host.show(slot, this.life(run), this.shownChannel(run));
  }

  /** A channel's state as the service reads it now: the slot recording on it shows it. */
  channelState(channelId: string, state: string): void {
    for (const run of this.runs.values()) {
      if (run.channel?.id !== channelId || this.shownChannel(run)?.state === state) continue;
      run.channelState = { id: channelId, state };
      this.host.show(run.slot, this.life(run), this.shownChannel(run));
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
    if (run) run.alone = true;
  }

  startedAlone(key: string): boolean {
    return this.runs.get(key)?.alone === true;
  }

  /** Slot keys and channel ids of the slots recording now (what the recording watch reads). */
  recordingChannels(): Map<string, string> {
    const out = new Map<string, string>();
    for (const run of this.runs.values())
      if (run.phase === 'recording' && run.channel) out.set(run.slot.key, run.channel.id);
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
    this.host.show(run.slot, { stage: 'finished', note: 'ended by another instance' }, this.shownChannel(run));
    this.host.changed();
  }

  close(): void {
    for (const run of this.runs.values()) {
      run.stopListening();
      this.clearAlarm(run);
    }
    this.runs.clear();
  }

  private create(slot: Slot, parts: Pick<SlotRun, 'earlier' | 'gaps'>): SlotRun {
    return { slot, phase: 'planned', attempts: 0, heard: false, alarmed: false, stopListening: () => {}, ...parts };
  }

  private end(run: SlotRun, phase: SlotPhase, extra: { why?: string; note?: string; gaps?: Gap[] }): void {
    run.stopListening();
    this.clearAlarm(run);
    this.runs.delete(run.slot.key);
    this.move(run, phase, { why: extra.why, note: extra.note, gaps: extra.gaps });
  }

  /** A slot this instance did not see start (after a restart, or an end taken over): tracked from here on. */
  private track(slot: Slot, phase: SlotPhase = 'recording'): SlotRun {
    let run = this.runs.get(slot.key);
    if (!run) {
      run = this.create(slot, { earlier: [], gaps: [] });
      run.phase = phase;
      this.runs.set(slot.key, run);
    }
    return run;
  }

  private closeGap(run: SlotRun): void {
    const open = run.gaps.at(-1);
    if (open && open.to === undefined) open.to = Math.min(Date.now(), run.slot.end);
  }

  private move(
    run: SlotRun,
    to: SlotPhase,
    extra: { why?: string; note?: string; lateBy?: number; channel?: Channel; gaps?: Gap[] } = {},
  ): void {
    const from = run.phase;
    run.phase = to;
    if (!FINAL.includes(to)) this.runs.set(run.slot.key, run);
    this.host.show(run.slot, this.life(run, extra.note ?? extra.why), this.shownChannel(run, extra.channel));
    this.host.changed();
    if (!slotTransitions.hasSubscribers) return;
    const channel = extra.channel ?? run.channel;
    const transition: SlotTransition = {
      slot: run.slot.key,
      ...this.host.identity(run.slot),
      from,
      to,
      at: new Date().toISOString(),
      ...(extra.why ? { why: extra.why } : {}),
      ...(run.attempts ? { attempts: run.attempts } : {}),
      ...(channel ? { channel: { id: channel.id, outputs: outputsOf(channel) } } : {}),
      ...(extra.lateBy !== undefined ? { lateBy: extra.lateBy } : {}),
      ...(extra.gaps?.length ? { gaps: extra.gaps.map(gapView) } : {}),
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
    if (run.alarmed || run.phase !== 'starting' || !run.lastFailure || this.runs.get(run.slot.key) !== run) return;
    if (Date.now() < run.slot.start + this.host.alarmAfterMs(run.slot)) return;
    run.alarmed = true;
    this.host.startFailing(run.slot, { attempts: run.attempts, reason: run.lastFailure });
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
      this.host.channelRequested(slot);
      return;
    }
    if (report.kind === 'attempt') {
      run.attempts = report.attempt;
      run.lastFailure = report.reason;
      if (run.phase !== 'starting' && run.phase !== 'interrupted') return;
      this.host.show(slot, this.life(run), this.shownChannel(run));
      this.host.changed();
      this.host.startAttempted(slot);
      this.checkAlarm(run);
    } else if (report.kind === 'started') {
      run.attempts = report.attempts;
      const channel = channelWithId(report.channel);
      if (channel) this.host.channelCreated(slot, channel);
      this.recording(slot, report.channel, report.lateMs);
    } else {
      run.attempts = report.attempts;
      run.lastFailure = `gave up: ${report.reason}`;
      if (run.phase === 'starting' || run.phase === 'interrupted') {
        this.host.show(slot, this.life(run), this.shownChannel(run));
        this.host.changed();
      }
      // a replacement given up leaves the slot as it was: its end follows up what was recorded
      if (run.phase === 'starting') this.host.startFailed(slot, report.reason, report.attempts);
    }
  }
}

/** The sidebar's stage for each phase. */
const STAGES: Record<SlotPhase, SlotStage> = {
  planned: 'starting',
  starting: 'starting',
  recording: 'recording',
  interrupted: 'starting',
  stopping: 'stopping',
  finishing: 'stopping',
  finished: 'finished',
  partial: 'finished',
  missed: 'missed',
  skipped: 'skipped',
  cancelled: 'skipped',
};

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

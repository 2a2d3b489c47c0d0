import type { Clock } from '../clock';
import { systemClock } from '../clock';
import { MediaSpacesError, quoteShort } from '../errors';
import type { ScheduleConfig, ScheduleWindow } from './config';
import { type ConflictDecision, type Contender, decideConflicts } from './conflicts';
import { CronPlan, comparePlans, ListedPlan, type PlannedOccurrence, type WindowPlan } from './plan';
import { isRerecordBooking, liveBookings, type RerecordBooking } from './rerecord';
import { occurrenceName, type Slot, type StartReason, slotKey } from './template-context';

/**
 * All that is known of a slot in progress, besides its occurrence: its segments and what its life learnt of
 * its start and end. The scheduler journals it with the slot (in progress, then ended for the replay period);
 * the slot's life (lib/schedule/slot-lives) reads and writes this very object, replacing its arrays and
 * `life` rather than changing them in place, so that a journal snapshot taken before stays as it was saved.
 */
export interface SlotRecord {
  /** the channel recording now, or the one the slot waits on to record */
  channel?: unknown;
  /** channels that recorded part of the window before `channel`, in order (the recording was interrupted) */
  earlier?: unknown[];
  /** stretches nothing recorded, epoch ms (`to` unset while the replacement is not recording yet) */
  gaps?: SlotGap[];
  life?: SlotLifeFacts;
}

/** What a slot's life learnt of its start and its end (absent from journals of earlier releases). */
export interface SlotLifeFacts {
  /** create channel's attempts at the segment's channel, and the last one's failure in words */
  attempts?: number;
  lastFailure?: string;
  /** create channel reported on the start (then a missing channel means nothing was recorded) */
  heard?: boolean;
  /** the segment's channel exists and the service has not said yet that it records */
  awaiting?: boolean;
  /** the service said a segment of the slot records (or recorded) */
  begun?: boolean;
  /** how late the first segment began to record, by the service's clock, when that counts as late (ms) */
  lateMs?: number;
  /** started by this instance alone while Redis could not be used: its end needs no done record */
  alone?: boolean;
  /** when the stop was accepted (epoch ms, this instance's clock), and the stop's refused attempts in words */
  stop?: { acceptedAt: number; refused?: string };
  /** when the recording ended by the service's clock (its `recording.ended_at`), epoch ms */
  endedAt?: number;
}

/** A slot whose start was emitted and whose end was not yet. */
export interface ActiveSlot extends Slot, SlotRecord {
  /** the window as it was at the start, used for the end if the window is gone by then */
  window: ScheduleWindow;
  /** the start was given up (create-channel tried until the window's end): nothing was recorded */
  startFailure?: StartFailure;
  /** a start replayed after a restart: the end waits for its channel until then (epoch ms) */
  channelWaitUntil?: number;
}

/** A stretch of a window nothing recorded, and why. */
export interface SlotGap {
  from: number;
  to?: number;
  why: string;
}

/** Why a slot's start never produced a channel. */
export interface StartFailure {
  message: string;
  attempts: number;
}

export interface EmittedRecord {
  phase: 'start' | 'end';
  /** slot end, epoch ms (records are pruned a day after it) */
  end: number;
}

/** A slot whose end was emitted, kept a while so that a restart can deliver the end again. */
export interface EndedSlot extends ActiveSlot {
  /** when the end was emitted, epoch ms */
  endedAt: number;
  /** the end message as the caller sent it (see rememberEnd), replayed as it was */
  message?: unknown;
}

/** What survives a restart (kept in node context by the node). */
export interface SchedulerState {
  version: 1;
  paused: boolean;
  active: ActiveSlot[];
  emitted: Record<string, EmittedRecord>;
  /** ends emitted within the replay period (absent in states saved by earlier versions) */
  ended?: EndedSlot[];
  /** set once a channel was routed back: the flow creates channels and the ends need them */
  routesChannels?: boolean;
  /** slot keys of upcoming starts skipped on request (skipNext), with the slot's end (pruned after it) */
  skipped?: Record<string, number>;
  /** per window: occurrences given by messages (kept: no feed can give them again after a restart) */
  listed?: Record<string, PlannedOccurrence[]>;
  /** losers of a conflict whose start passed: each waits, to its end, for a channel to free up */
  held?: HeldSlot[];
  /** later airings booked to record what a failed slot did not (rerecord), dropped a day after their end */
  rerecords?: RerecordBooking[];
}

/** A slot that lost a conflict over max_channels at its start: not started, waiting for a channel to free up. */
export interface HeldSlot extends Slot {
  window: ScheduleWindow;
  /** what it lost to, in words (titles, else slot keys) */
  lostTo: string[];
}

export interface SchedulerStore {
  load(): SchedulerState | undefined | Promise<SchedulerState | undefined>;
  save(state: SchedulerState): void | Promise<void>;
}

export interface StartEvent {
  slot: Slot;
  window: ScheduleWindow;
  /**
   * A start emitted again after a restart or redeploy, because its channel
   * never came back (the request was cut off); same slot key, so the channel
   * request is idempotent.
   */
  replay?: boolean;
  /** the id of the message that asked for a manual start: the start message carries it on */
  msgid?: string;
  /** the `n`th replacement of a recording interrupted mid-window (its own Idempotency-Key) */
  restart?: number;
  /** a conflict's loser started late, once a channel freed up (a winner cancelled, or its recording ended early) */
  freed?: true;
}

export interface EndEvent {
  slot: Slot;
  window: ScheduleWindow;
  channel?: unknown;
  /** the start was given up: the slot recorded nothing */
  startFailure?: StartFailure;
  /** the recording was interrupted: the channels before `channel`, and the gaps */
  earlier?: unknown[];
  gaps?: SlotGap[];
  /**
   * An end emitted again after a restart or redeploy (within the replay
   * period): whatever it started downstream may have been cut off.
   */
  replay?: boolean;
  /** For a replay: the message sent the first time, when the caller remembered it. */
  message?: unknown;
}

/**
 * A start that was not emitted because the schedule was paused or the slot skipped (at its start instant), or
 * because its occurrence left the window's calendar or guide before it started (cancelled).
 */
export interface MissedEvent {
  slot: Slot;
  window: ScheduleWindow;
  why: 'paused' | 'skipped' | 'cancelled' | 'conflict';
  /** `conflict`: the winners it lost to, best first */
  lostTo?: Contender[];
}

/** What a new listing of a window's occurrences did to the slots: for reports and logs. */
export interface ReplanEvent {
  windowId: string;
  /** occurrences in the plan now */
  size: number;
  /** slots in progress whose end moved (re-timed while recording), and cancelled ones ended early (on_cancel: stop) */
  endsMoved: Array<{ key: string; from: number; to: number }>;
  /** occurrences moved before they started */
  moved: number;
  added: number;
}

export interface UpcomingStart {
  window_id: string;
  name: string;
  /** epoch ms */
  start: number;
  end: number;
  timezone: string;
  slotKey: string;
  /** the start will not happen: it was skipped (skipNext) */
  skipped?: boolean;
  /** the programme's title, for a window that reads a calendar or guide */
  title?: string;
}

/** A planned slot of the timeline (see Scheduler.planned). */
export interface PlannedSlot {
  windowId: string;
  key: string;
  start: number;
  end: number;
  title?: string;
  /** a later airing booked to record a failed slot again (rerecord) */
  rerecord?: true;
  /** starts too dense to list one by one: the window goes on starting from `start` to `end` */
  band?: true;
}

export interface SchedulerOptions {
  /** first part of every slot key */
  scheduleId: string;
  config: ScheduleConfig;
  onStart(event: StartEvent): void;
  onEnd(event: EndEvent): void;
  /** a start that fell while paused, or was skipped on request, or whose occurrence was cancelled */
  onMissed?(event: MissedEvent): void;
  /** a window's listed occurrences were replaced (setOccurrences) */
  onReplan?(event: ReplanEvent): void;
  /** called after anything that may change the status (emissions, pause, reload) */
  onChange?(): void;
  /** failures of callbacks or of the store */
  onError?(error: unknown): void;
  clock?: Clock;
  store?: SchedulerStore;
  /** emit starts missed while stopped if their window is still open (default true) */
  catchUp?: boolean;
  /** longest single timer; waits are re-armed in steps (default 60 s, at most 2^31-1 ms) */
  maxTimerMs?: number;
  /** most slots of one window caught up at once (default 10, the latest are kept) */
  maxCatchUp?: number;
  /** how long emitted-slot records are kept after the slot ended (default 1 day) */
  retainMs?: number;
  /**
   * Ends emitted this recently (default 2 minutes) are emitted again when a
   * scheduler starts from a saved state: the follow-up they triggered may have
   * been cut off by the crash or redeploy (a request in flight, a context
   * write not yet flushed). Their idempotency keys make the repeats harmless.
   * 0 turns this off.
   */
  replayMs?: number;
  /**
   * When the flow routes channels back: how long an end waits for its slot's
   * channel when none came back yet (default 15 s), e.g. after a catch-up
   * start just before the end, or a start replayed after a restart. After
   * that the end goes without it.
   */
  channelWaitMs?: number;
}

const MAX_SET_TIMEOUT = 2 ** 31 - 1;
export const DEFAULT_REPLAY_MS = 120_000;
export const DEFAULT_CHANNEL_WAIT_MS = 15_000;
/** A start more than this late counts as a catch-up rather than a scheduled start. */
const LATE_MS = 60_000;
/** How far past now a conflict decision at a start looks (a higher-ranked occurrence later on may need the channel). */
const DECIDE_AHEAD_MS = 24 * 3600_000;
/** Occurrences of one window a decision at a start reads, at the most. */
const DECIDE_PER_WINDOW = 2000;

/**
 * Emits the starts and ends of recording windows at the right instants.
 *
 * - One timer, armed for the next due instant (or `maxTimerMs`, whichever is
 *   sooner), re-armed after every wake-up.
 * - Every emitted start is recorded (slot key and phase) in the state before
 *   the callback runs, and the state is saved, so a slot is never started
 *   twice, across restarts too. Slots in progress are part of the state; a
 *   new Scheduler with the same store emits their ends on time (at once if
 *   the end passed while stopped).
 * - On start, and for windows added by a reload, a slot whose start passed
 *   while stopped but whose window is still open is started at once
 *   (reason `catch-up`), once.
 * - Paused: no starts (they are skipped, not caught up later); ends still
 *   happen, so channels do not record forever.
 * - Delivery across restarts is at least once: a scheduler started from a
 *   saved state emits again the ends of the last `replayMs` that recorded
 *   something (after a redeploy only those whose end message was never sent; the follow-up
 *   they triggered may not have reached the service, or its follower may not
 *   have saved it), and, when the flow routes channels back, the starts of
 *   slots in progress (or ended within `replayMs`) whose channel never came
 *   back. Slot keys, and so the idempotency keys, are the same, so the
 *   service creates nothing twice. Such an end waits up to `channelWaitMs`
 *   for the channel, so that the follow-up can refer to it.
 */
export class Scheduler {
  private readonly clock: Clock;
  private readonly maxTimerMs: number;
  private readonly catchUp: boolean;
  private readonly maxCatchUp: number;
  private readonly retainMs: number;
  private readonly replayMs: number;
  private readonly channelWaitMs: number;
  private config: ScheduleConfig;
  private currentScheduleId: string;
  private state: SchedulerState = { version: 1, paused: false, active: [], emitted: {} };
  /** per window: starts at or before this instant have been dealt with */
  private cursors = new Map<string, number>();
  /** per window: the next occurrence after its cursor (cache) */
  private nextStarts = new Map<string, PlannedOccurrence | null>();
  /** per window: its plan; cron plans are made from the window, listed ones set by setOccurrences */
  private plans = new Map<string, WindowPlan>();
  private timer: unknown;
  private planCount = 0;
  private running = false;
  private stopped = false;

  constructor(private readonly options: SchedulerOptions) {
    this.clock = options.clock ?? systemClock;
    this.maxTimerMs = Math.min(Math.max(1000, options.maxTimerMs ?? 60_000), MAX_SET_TIMEOUT);
    this.catchUp = options.catchUp ?? true;
    this.maxCatchUp = Math.max(1, options.maxCatchUp ?? 10);
    this.retainMs = options.retainMs ?? 24 * 3600_000;
    this.replayMs = Math.max(0, options.replayMs ?? DEFAULT_REPLAY_MS);
    this.channelWaitMs = Math.max(0, options.channelWaitMs ?? DEFAULT_CHANNEL_WAIT_MS);
    this.config = options.config;
    this.currentScheduleId = options.scheduleId;
  }

  /** First part of the slot keys of new slots. */
  get scheduleId(): string {
    return this.currentScheduleId;
  }

  get paused(): boolean {
    return this.state.paused;
  }

  /** Whether a channel was ever routed back: then a slot whose channel never came back recorded nothing. */
  get routesChannels(): boolean {
    return this.state.routesChannels === true;
  }

  get windows(): readonly ScheduleWindow[] {
    return this.config.windows;
  }

  /** Changes whenever a window's listed occurrences are replaced (setOccurrences). */
  get planRevision(): number {
    return this.planCount;
  }

  /**
   * Loads the saved state, catches up, emits what is due and arms the timer.
   * `replayEnds: false` (a redeploy in the same process, where nothing sent was
   * lost) replays only the recent ends whose message was never sent (cut off mid-stop).
   */
  async start(options: { replayEnds?: boolean } = {}): Promise<void> {
    if (this.running || this.stopped) return;
    let loaded: SchedulerState | undefined;
    try {
      loaded = await this.options.store?.load();
    } catch (err) {
      this.reportError(err);
    }
    if (this.stopped) return;
    const restored = isState(loaded);
    if (isState(loaded)) {
      this.state = {
        version: 1,
        paused: loaded.paused === true,
        // the slots are changed in place from here on: not the loaded state's (a context store may hold it)
        active: loaded.active.filter(isActiveSlot).map(withSaneLife),
        emitted: { ...loaded.emitted },
        ended: Array.isArray(loaded.ended) ? loaded.ended.filter(isEndedSlot).map(withSaneLife) : [],
        routesChannels: loaded.routesChannels === true,
        ...(isSkipRecord(loaded.skipped) ? { skipped: { ...loaded.skipped } } : {}),
        ...(isListedRecord(loaded.listed) ? { listed: structuredClone(loaded.listed) } : {}),
        ...(Array.isArray(loaded.held) ? { held: loaded.held.filter(isHeldSlot).map((slot) => ({ ...slot })) } : {}),
        ...(Array.isArray(loaded.rerecords)
          ? { rerecords: loaded.rerecords.filter(isRerecordBooking).map((b) => ({ ...b })) }
          : {}),
      };
      for (const [id, list] of Object.entries(this.state.listed ?? {})) {
        const w = this.config.windows.find((x) => x.id === id);
        if (isListed(w)) this.plans.set(id, new ListedPlan(list));
      }
    }
    this.running = true;
    const now = this.clock.now();
    for (const w of this.config.windows) this.initCursor(w, now, this.catchUp && !this.state.paused);
    if (restored) this.replay(now, options.replayEnds !== false);
    this.tick();
  }

  /** Stops the timer; nothing fires afterwards. */
  stop(): void {
    this.stopped = true;
    this.running = false;
    this.clearTimer();
  }

  /**
   * Replaces the windows (a reload), and the schedule id of new slots when
   * given. Slots in progress keep going and end on time.
   */
  setConfig(config: ScheduleConfig, scheduleId?: string): void {
    const before = new Map(this.config.windows.map((w) => [w.id, w]));
    this.config = config;
    // slots in progress keep their keys; windows already open are not started again under the new id
    if (scheduleId !== undefined) this.currentScheduleId = scheduleId;
    const now = this.clock.now();
    const cursors = new Map<string, number>();
    for (const w of config.windows) {
      const old = before.get(w.id);
      const cursor = this.cursors.get(w.id);
      if (old && cursor !== undefined) cursors.set(w.id, cursor);
    }
    this.cursors = cursors;
    this.nextStarts.clear();
    // a listed window keeps its occurrences across a reload (its feed refreshes on its own); cron ones re-plan
    for (const id of [...this.plans.keys()]) {
      const w = config.windows.find((x) => x.id === id);
      if (!w || !isListed(w) || !isListed(before.get(id))) this.plans.delete(id);
    }
    if (this.running) {
      for (const w of config.windows) {
        if (!this.cursors.has(w.id)) this.initCursor(w, now, this.catchUp && !this.state.paused);
        else this.cursors.set(w.id, Math.min(this.cursors.get(w.id) as number, now));
      }
      this.tick();
    }
  }

  pause(): void {
    if (this.state.paused) return;
    this.state.paused = true;
    this.persist();
    this.changed();
  }

  /** Resumes; starts that fell while paused were reported missed and are not caught up. */
  resume(): void {
    if (!this.state.paused) return;
    this.state.paused = false;
    this.persist();
    if (this.running) this.tick();
    else this.changed();
  }

  /**
   * Starts a window now (a manual start): the slot begins at the current
   * second and ends after the window's duration. The start goes to `onStart`
   * as a timed one does, so that every start takes one path; `msgid` is the
   * id of the message that asked for it. Returns the event.
   */
  trigger(windowId: string, msgid?: string): StartEvent {
    const window = this.config.windows.find((w) => w.id === windowId);
    if (!window) {
      throw MediaSpacesError.invalidInput(`no window with id ${quoteShort(windowId)}`, { window_id: 'unknown window' });
    }
    const start = Math.floor(this.clock.now() / 1000) * 1000;
    const slot: Slot = {
      key: slotKey(this.scheduleId, window.id, start),
      windowId: window.id,
      start,
      end: start + window.duration * 1000,
      reason: 'manual',
    };
    if (this.state.emitted[slot.key]) {
      throw MediaSpacesError.invalidInput(
        `window ${quoteShort(window.id)} was already started this second (slot ${slot.key}); trigger it again later`,
        { window_id: 'already started this second' },
      );
    }
    this.recordStart(slot, window);
    this.persist();
    this.rearm();
    this.changed();
    const event: StartEvent = { slot, window, ...(msgid ? { msgid } : {}) };
    this.safely(() => this.options.onStart({ ...event, slot: { ...slot } }));
    return event;
  }

  /**
   * Skips the next start that is not skipped yet: of the named window, else
   * the earliest of all enabled windows. Kept in the state (so across
   * restarts); the slot is neither started nor caught up. Returns it.
   */
  skipNext(windowId?: string): UpcomingStart {
    if (windowId !== undefined && !this.config.windows.some((w) => w.id === windowId)) {
      throw MediaSpacesError.invalidInput(`no window with id ${quoteShort(windowId)}`, { window_id: 'unknown window' });
    }
    const next = this.upcoming(1, this.clock.now(), windowId, false)[0];
    if (!next) {
      throw MediaSpacesError.invalidInput(
        windowId === undefined
          ? 'no upcoming start to skip'
          : `window ${quoteShort(windowId)} has no upcoming start to skip`,
        { window_id: 'no upcoming start' },
      );
    }
    this.state.skipped = { ...this.state.skipped, [next.slotKey]: next.end };
    this.nextStarts.clear();
    this.persist();
    this.rearm();
    this.changed();
    return { ...next, skipped: true };
  }

  /** Remembers the channel of a slot in progress; false when the slot is not in progress. */
  rememberChannel(key: string, channel: unknown): boolean {
    const slot = this.state.active.find((s) => s.key === key);
    if (!slot) return false;
    slot.channel = channel;
    this.state.routesChannels = true;
    delete slot.channelWaitUntil;
    this.persist();
    // The slot's end instant moved (from end + channelWaitMs back to end), so the timer armed for the old
    // instant is stale whether the end passed (emit now) or is still ahead (wake up at the end): re-plan.
    if (this.running) this.tick();
    return true;
  }

  /**
   * A request for the slot's channel is out (create channel's first attempt): its end waits for the answer, up
   * to channelWaitMs past the end, even in a flow that has never routed a channel back (a start caught up just
   * before the end). Kept in memory until the next save: a journal write per start would slow every start.
   */
  awaitChannel(key: string): void {
    const slot = this.state.active.find((s) => s.key === key);
    if (!slot || slot.channel !== undefined || slot.startFailure || slot.earlier?.length) return;
    slot.channelWaitUntil = Math.max(slot.end, this.clock.now()) + this.channelWaitMs;
  }

  /** The request for the slot's channel failed and is tried again: its end waits as any other's. */
  channelRequestFailed(key: string): void {
    const slot = this.state.active.find((s) => s.key === key);
    if (slot?.channelWaitUntil === undefined) return;
    delete slot.channelWaitUntil;
    if (this.running) this.tick();
  }

  /**
   * The record of a slot in progress, or of one ended within the replay period (the very object journaled), or
   * undefined.
   */
  record(key: string): SlotRecord | undefined {
    return this.state.active.find((s) => s.key === key) ?? this.state.ended?.find((s) => s.key === key);
  }

  /**
   * The slot's record changed (a channel lost, a gap closed, its recording began, its stop accepted):
   * journaled now, so that a restart takes it up. False when the scheduler no longer holds the slot.
   */
  recordChanged(key: string): boolean {
    if (this.record(key) === undefined) return false;
    this.persist();
    return true;
  }

  /** The channel kept for a slot in progress, or for one ended within the replay period. */
  channelOf(key: string): unknown {
    return (
      this.state.active.find((s) => s.key === key)?.channel ?? this.state.ended?.find((s) => s.key === key)?.channel
    );
  }

  /**
   * The slot's start was given up (its create-channel tried until the window's
   * end): its end does not wait for a channel. False when the slot is not in progress.
   */
  rememberStartFailure(key: string, failure: StartFailure): boolean {
    const slot = this.state.active.find((s) => s.key === key);
    if (!slot || slot.channel !== undefined) return false;
    slot.startFailure = failure;
    delete slot.channelWaitUntil;
    this.persist();
    if (this.running) this.tick();
    return true;
  }

  /**
   * Remembers the end message as the caller sent it, so that a replay after a
   * restart sends the very same request (same body, same idempotency key).
   * The message must be plain JSON. False when the end is no longer kept.
   */
  rememberEnd(key: string, message: unknown): boolean {
    const ended = this.state.ended?.find((s) => s.key === key);
    if (!ended) return false;
    ended.message = message;
    this.persist();
    return true;
  }

  /** The re-record bookings still of use (kept across restarts and redeploys with the rest of the state). */
  bookings(): readonly RerecordBooking[] {
    return liveBookings(this.state.rerecords ?? [], this.clock.now());
  }

  /** Keeps a re-record booking (one per new slot); the window's plan lists the airing from its next replan. */
  book(booking: RerecordBooking): void {
    this.state.rerecords = [...this.bookings().filter((b) => b.slot !== booking.slot), structuredClone(booking)];
    this.persist();
  }

  /** How many upcoming starts are skipped (skipNext). */
  get skippedCount(): number {
    return Object.keys(this.state.skipped ?? {}).length;
  }

  /** Slots in progress, earliest end first. */
  activeSlots(): readonly ActiveSlot[] {
    return [...this.state.active].sort((a, b) => a.end - b.end);
  }

  /** Whether a slot's start (or end) was emitted. */
  emitted(key: string): EmittedRecord | undefined {
    return this.state.emitted[key];
  }

  /**
   * The next `count` starts of enabled windows (of one window when named),
   * earliest first; skipped ones are marked, or left out with `withSkipped` false.
   */
  upcoming(count = 5, from = this.clock.now(), windowId?: string, withSkipped = true): UpcomingStart[] {
    const all: UpcomingStart[] = [];
    for (const w of this.config.windows) {
      if (!w.enabled || (windowId !== undefined && w.id !== windowId)) continue;
      const plan = this.planOf(w);
      let cursor = from;
      // skipped starts do not count when left out; bounded, since only so many can be skipped
      for (let i = 0; i < count + (withSkipped ? 0 : Object.keys(this.state.skipped ?? {}).length); i++) {
        const next = plan.next(cursor);
        if (next === null) break;
        cursor = next.start;
        const key = slotKey(this.scheduleId, w.id, next.id);
        const skipped = this.state.skipped?.[key] !== undefined;
        if (skipped && !withSkipped) continue;
        all.push({
          window_id: w.id,
          name: w.name,
          start: next.start,
          end: next.end,
          timezone: w.timezone,
          slotKey: key,
          ...(skipped ? { skipped: true } : {}),
          ...(next.programme?.title ? { title: occurrenceName(w.name, next.programme) } : {}),
        });
      }
    }
    return all.sort((a, b) => a.start - b.start).slice(0, count);
  }

  /** The next start the scheduler will emit (none while paused). */
  nextStart(): { window: ScheduleWindow; start: number } | undefined {
    if (this.state.paused) return undefined;
    let best: { window: ScheduleWindow; start: number } | undefined;
    for (const w of this.config.windows) {
      if (!w.enabled) continue;
      const next = this.nextUnskipped(w);
      if (next !== null && (!best || next.start < best.start)) best = { window: w, start: next.start };
    }
    return best;
  }

  /**
   * Each enabled window's next start that is not skipped, paused or not, in one pass over the windows. It is
   * the occurrence the timer is armed for, read again only when the plan or the cursor moved: a gauge
   * refreshed on every slot move asks for it often, a window that fires once a year is a search of months
   * each time, and a schedule of 2,000 windows asked window by window is 2,000 lookups of 2,000.
   */
  nextStartsOfWindows(): { windowId: string; start: number; end: number; slotKey: string }[] {
    const out: { windowId: string; start: number; end: number; slotKey: string }[] = [];
    for (const w of this.config.windows) {
      if (!w.enabled) continue;
      const next = this.nextUnskipped(w);
      if (next !== null)
        out.push({
          windowId: w.id,
          start: next.start,
          end: next.end,
          slotKey: slotKey(this.scheduleId, w.id, next.id),
        });
    }
    return out;
  }

  private nextUnskipped(w: ScheduleWindow): PlannedOccurrence | null {
    let next = this.nextStartOf(w);
    while (next !== null && this.state.skipped?.[slotKey(this.scheduleId, w.id, next.id)] !== undefined) {
      next = this.planOf(w).next(next.start);
    }
    return next;
  }

  /**
   * The slots of enabled windows whose recording overlaps [from, to), earliest first, for a timeline: past
   * `perWindow` slots of one window, the rest of the range is one `band`.
   */
  planned(from: number, to: number, perWindow: number): PlannedSlot[] {
    const out: PlannedSlot[] = [];
    for (const w of this.config.windows) {
      if (!w.enabled) continue;
      const list = this.planOf(w).overlapping(from, to, perWindow + 1);
      for (const o of list.slice(0, perWindow)) {
        const title = o.programme?.title ? occurrenceName(w.name, o.programme) : undefined;
        out.push({
          windowId: w.id,
          key: slotKey(this.scheduleId, w.id, o.id),
          start: o.start,
          end: o.end,
          ...(title ? { title } : {}),
          ...(o.rerecordOf ? { rerecord: true as const } : {}),
        });
      }
      const over = list[perWindow];
      if (over) out.push({ windowId: w.id, key: `${w.id}:band`, start: over.start, end: to, band: true });
    }
    return out.sort((a, b) => a.start - b.start);
  }

  /**
   * Replaces the occurrences of a window that lists them (a calendar, a guide, messages), as read over a range
   * ending at `coveredTo`. An occurrence moved before it starts is timed anew; one moved while recording moves
   * the slot's end (never before now); one that left the listing before it started is reported cancelled;
   * one that left it while recording runs to its end, or ends now when `stopCancelled`. Returns what changed.
   */
  setOccurrences(
    windowId: string,
    occurrences: readonly PlannedOccurrence[],
    coveredTo: number,
    options: { stopCancelled?: boolean; keep?: boolean } = {},
  ): ReplanEvent | undefined {
    const stopCancelled = options.stopCancelled === true;
    const w = this.config.windows.find((x) => x.id === windowId);
    if (!w || !isListed(w)) return undefined;
    const now = this.clock.now();
    const before = this.plans.get(windowId);
    const after = new ListedPlan(occurrences);
    this.plans.set(windowId, after);
    this.planCount++;
    this.nextStarts.delete(windowId);
    const change = comparePlans(before instanceof ListedPlan ? before : new ListedPlan([]), after, coveredTo);
    const endsMoved = this.moveEnds(w, after, now, stopCancelled);
    for (const gone of change.cancelled) {
      const key = slotKey(this.scheduleId, w.id, gone.id);
      if (gone.start <= now || this.state.emitted[key]) continue;
      this.state.emitted[key] = { phase: 'end', end: gone.end };
      const slot: Slot = {
        key,
        windowId: w.id,
        start: gone.start,
        end: gone.end,
        reason: 'scheduled',
        occurrence: gone.id,
        ...(gone.programme ? { programme: gone.programme } : {}),
      };
      this.safely(() => this.options.onMissed?.({ slot, window: w, why: 'cancelled' }));
    }
    // an occurrence moved (or added) to a time already past, its recording still ahead, starts now: look back
    const cursor = this.cursors.get(windowId);
    if (cursor !== undefined && this.catchUp)
      this.cursors.set(windowId, Math.min(cursor, now - this.longest(after, now)));
    const event: ReplanEvent = {
      windowId,
      size: after.size,
      endsMoved,
      moved: change.moved.length,
      added: change.added.length,
    };
    if (options.keep) this.state.listed = { ...this.state.listed, [windowId]: structuredClone([...after.all()]) };
    this.persist();
    this.safely(() => this.options.onReplan?.(event));
    if (this.running) this.tick();
    return event;
  }

  /** The plan of a window (what its starts are read from). */
  planOf(w: ScheduleWindow): WindowPlan {
    let plan = this.plans.get(w.id);
    if (!plan) {
      plan = isListed(w) ? new ListedPlan([]) : new CronPlan(w.cron, w.timezone, w.duration * 1000);
      this.plans.set(w.id, plan);
    }
    return plan;
  }

  /**
   * The current state (a copy), as saved. The slots and the records are copied; what a slot holds (its
   * window, channel, programme, earlier recordings) is replaced when it changes, never changed in
   * place, so the copy shares it. A deep copy on every save was the largest single cost of a schedule's
   * start when fifty windows open at the same second.
   */
  snapshot(): SchedulerState {
    const s = this.state;
    return {
      ...s,
      active: s.active.map((slot) => ({ ...slot })),
      emitted: { ...s.emitted },
      ...(s.ended ? { ended: s.ended.map((slot) => ({ ...slot })) } : {}),
      ...(s.skipped ? { skipped: { ...s.skipped } } : {}),
      ...(s.listed ? { listed: { ...s.listed } } : {}),
      ...(s.held ? { held: s.held.map((slot) => ({ ...slot })) } : {}),
    };
  }

  /** Losers of a conflict waiting for a channel to free up (their start passed, their window has not ended). */
  heldSlots(): readonly HeldSlot[] {
    return this.state.held ?? [];
  }

  /**
   * The conflict decision over [now, to) against the document's max_channels (undefined without one): the
   * planned occurrences of enabled windows (skipped ones left out), the slots recording now (they keep their
   * channels), and the losers still waiting, from now. A pure function of the plan and the slots in progress,
   * both journaled, so that a restart and every coordinated instance decide the same.
   */
  conflictDecision(now: number, to: number, perWindow = DECIDE_PER_WINDOW): ConflictDecision | undefined {
    const limit = this.config.maxChannels;
    if (limit === undefined) return undefined;
    return decideConflicts(this.contenders(now, to, perWindow), limit);
  }

  /** What conflictDecision decides between. */
  contenders(now: number, to: number, perWindow: number): Contender[] {
    const order = new Map(this.config.windows.map((w, i) => [w.id, i]));
    const priority = (windowId: string, window?: ScheduleWindow) =>
      this.config.windows.find((w) => w.id === windowId)?.priority ?? window?.priority ?? 0;
    const active = new Map(this.state.active.map((s) => [s.key, s]));
    const held = new Map((this.state.held ?? []).map((s) => [s.key, s]));
    const out: Contender[] = [];
    const seen = new Set<string>();
    for (const p of this.planned(now, to, perWindow)) {
      if (p.band || this.state.skipped?.[p.key] !== undefined) continue;
      seen.add(p.key);
      const base = {
        key: p.key,
        windowId: p.windowId,
        priority: priority(p.windowId),
        order: order.get(p.windowId) ?? 0,
        ...(p.title ? { title: p.title } : {}),
      };
      const running = active.get(p.key);
      if (running) {
        if (running.end > now) out.push({ ...base, start: running.start, end: running.end, running: true });
        continue;
      }
      if (held.has(p.key)) {
        out.push({ ...base, start: Math.max(now, p.start), end: p.end, rankStart: p.start });
        continue;
      }
      // ended, or held back at its start by a pause, a skip or a cancellation: it wants no channel
      if (this.state.emitted[p.key]) continue;
      out.push({ ...base, start: p.start, end: p.end });
    }
    // manual starts, and slots whose occurrence left the plan while recording: they hold channels too
    for (const slot of this.state.active) {
      if (seen.has(slot.key) || slot.end <= now) continue;
      out.push({
        key: slot.key,
        windowId: slot.windowId,
        start: slot.start,
        end: slot.end,
        priority: priority(slot.windowId, slot.window),
        order: order.get(slot.windowId) ?? 0,
        running: true,
      });
    }
    return out;
  }

  // ------------------------------------------------------------ internals

  private initCursor(w: ScheduleWindow, now: number, catchUp: boolean): void {
    const plan = this.planOf(w);
    const back = isListed(w) && plan instanceof ListedPlan ? this.longest(plan, now) : w.duration * 1000;
    this.cursors.set(w.id, catchUp ? now - back : now);
    this.nextStarts.delete(w.id);
  }

  /** The longest recording among a listed plan's occurrences still open at `now` (how far a catch-up looks back). */
  private longest(plan: ListedPlan, now: number): number {
    let longest = 0;
    for (const o of plan.all()) {
      if (o.start > now) break;
      if (o.end > now) longest = Math.max(longest, now - o.start + 1);
    }
    return longest;
  }

  /** Slots in progress whose occurrence moved or left the listing: their end follows it (never into the past). */
  private moveEnds(w: ScheduleWindow, plan: ListedPlan, now: number, stopCancelled: boolean): ReplanEvent['endsMoved'] {
    const moved: ReplanEvent['endsMoved'] = [];
    for (const slot of this.state.active) {
      if (slot.windowId !== w.id || slot.occurrence === undefined || slot.reason === 'manual') continue;
      const listed = plan.find(slot.occurrence);
      const end = listed ? Math.max(listed.end, now) : stopCancelled ? now : slot.end;
      if (end === slot.end) continue;
      moved.push({ key: slot.key, from: slot.end, to: end });
      slot.end = end;
      if (listed?.programme) slot.programme = listed.programme;
      const record = this.state.emitted[slot.key];
      if (record) this.state.emitted[slot.key] = { ...record, end };
    }
    return moved;
  }

  private nextStartOf(w: ScheduleWindow): PlannedOccurrence | null {
    if (!this.nextStarts.has(w.id)) {
      const cursor = this.cursors.get(w.id) ?? this.clock.now();
      let next: PlannedOccurrence | null = null;
      try {
        next = this.planOf(w).next(cursor);
      } catch (err) {
        this.reportError(err);
      }
      this.nextStarts.set(w.id, next);
    }
    return this.nextStarts.get(w.id) ?? null;
  }

  /** Emits everything due, in time order (ends before starts at the same instant), then re-arms. */
  private tick(): void {
    if (!this.running) return;
    this.clearTimer();
    const now = this.clock.now();
    let changed = false;

    type Due =
      | { at: number; kind: 'end'; slot: ActiveSlot }
      | { at: number; kind: 'start'; slot: Slot; w: ScheduleWindow };
    const due: Due[] = [];
    for (const slot of this.state.active) {
      if (slot.end <= now && this.endDue(slot) <= now) due.push({ at: slot.end, kind: 'end', slot });
    }
    for (const w of this.config.windows) {
      const cursor = this.cursors.get(w.id);
      if (cursor === undefined) continue;
      const next = this.nextStartOf(w);
      if (next === null || next.start > now) continue;
      if (w.enabled) {
        // every start in (cursor, now] whose window is still open
        for (const o of this.planOf(w).between(cursor, now, this.maxCatchUp)) {
          if (o.end <= now) continue; // window already over: missed
          const reason: StartReason = now - o.start > LATE_MS ? 'catch-up' : 'scheduled';
          due.push({ at: o.start, kind: 'start', slot: this.slotOf(w, o, reason), w });
        }
      }
      this.cursors.set(w.id, now);
      this.nextStarts.delete(w.id);
      changed = true;
    }
    due.sort((a, b) => a.at - b.at || (a.kind === b.kind ? 0 : a.kind === 'end' ? -1 : 1));
    // over max_channels the plan decides, before anything is tried, which of the starts due now record
    const decision =
      due.some((d) => d.kind === 'start') && !this.state.paused
        ? this.conflictDecision(now, now + DECIDE_AHEAD_MS)
        : undefined;

    // every due item changes the state first; the state is saved once; then the callbacks run, in time order
    // (50 windows starting at one second cost one journal write, not 50, before their first request goes)
    const acts: Array<() => void> = [];
    for (const item of due) {
      if (item.kind === 'end') {
        const act = this.finish(item.slot);
        if (act) acts.push(act);
        changed = true;
      } else if (this.state.emitted[item.slot.key]) {
        // started already (before a restart, or by a manual start at the same second)
      } else if (this.state.paused || this.state.skipped?.[item.slot.key] !== undefined) {
        const why = this.state.paused ? 'paused' : 'skipped';
        this.state.emitted[item.slot.key] = { phase: 'end', end: item.slot.end };
        changed = true;
        const { slot, w } = item;
        acts.push(() => this.options.onMissed?.({ slot: { ...slot }, window: w, why }));
      } else if (decision?.losers.has(item.slot.key)) {
        const lostTo = decision.losers.get(item.slot.key)?.lostTo ?? [];
        this.hold(
          item.slot,
          item.w,
          lostTo.map((c) => c.title ?? c.key),
        );
        changed = true;
        const { slot, w } = item;
        acts.push(() => this.options.onMissed?.({ slot: { ...slot }, window: w, why: 'conflict', lostTo }));
      } else {
        this.recordStart(item.slot, item.w);
        changed = true;
        const { slot, w } = item;
        acts.push(() => this.options.onStart({ slot: { ...slot }, window: w }));
      }
    }
    if (this.freeHeld(now, acts)) changed = true;
    if (this.prune(now)) changed = true;
    if (changed) this.persist();
    for (const act of acts) this.safely(act);
    if (changed) this.changed();
    this.rearm();
  }

  private slotOf(w: ScheduleWindow, o: PlannedOccurrence, reason: StartReason): Slot {
    const slot: Slot = {
      key: slotKey(this.scheduleId, w.id, o.id),
      windowId: w.id,
      start: o.start,
      end: o.end,
      reason,
    };
    // a cron slot's occurrence is its start: its saved state and messages stay as they were
    if (isListed(w)) slot.occurrence = o.id;
    if (o.programme) slot.programme = o.programme;
    if (o.rerecordOf) slot.rerecordOf = o.rerecordOf;
    return slot;
  }

  /** A loser at its start: not started; it waits to its end for a channel to free up (kept across restarts). */
  private hold(slot: Slot, window: ScheduleWindow, lostTo: string[]): void {
    this.state.emitted[slot.key] = { phase: 'end', end: slot.end };
    const held = (this.state.held ?? []).filter((s) => s.key !== slot.key);
    held.push({ ...slot, window: structuredClone(window), lostTo });
    this.state.held = held;
  }

  /**
   * Losers still inside their window that the plan lets record now (a winner was cancelled, or its recording
   * ended early): started at once, late, best first. True when any was.
   */
  private freeHeld(now: number, acts: Array<() => void>): boolean {
    const held = (this.state.held ?? []).filter((s) => s.end > now);
    if (held.length === 0 || this.state.paused) return false;
    const decision = this.conflictDecision(now, now + DECIDE_AHEAD_MS);
    const free = held.filter(
      (s) => decision === undefined || (decision.winners.has(s.key) && !decision.losers.has(s.key)),
    );
    if (free.length === 0) return false;
    const keys = new Set(free.map((s) => s.key));
    this.state.held = (this.state.held ?? []).filter((s) => !keys.has(s.key));
    for (const { window, lostTo: _lost, ...slot } of free) {
      const current = this.config.windows.find((w) => w.id === slot.windowId) ?? window;
      const late: Slot = { ...slot, reason: 'catch-up' };
      this.recordStart(late, current);
      acts.push(() => this.options.onStart({ slot: { ...late }, window: current, freed: true }));
    }
    return true;
  }

  private recordStart(slot: Slot, window: ScheduleWindow): void {
    this.state.emitted[slot.key] = { phase: 'start', end: slot.end };
    this.state.active.push({ ...slot, window: structuredClone(window) });
  }

  /** Ends a slot in the state; the callback that tells it, to run once the state is saved. */
  private finish({ channelWaitUntil: _wait, ...slot }: ActiveSlot): (() => void) | undefined {
    this.state.active = this.state.active.filter((s) => s.key !== slot.key);
    const record = this.state.emitted[slot.key];
    if (record?.phase === 'end') return undefined;
    this.state.emitted[slot.key] = { phase: 'end', end: slot.end };
    if (this.replayMs > 0) {
      const ended = (this.state.ended ?? []).filter((s) => s.key !== slot.key);
      ended.push({ ...slot, endedAt: this.clock.now() });
      this.state.ended = ended;
    }
    const current = this.config.windows.find((w) => w.id === slot.windowId) ?? slot.window;
    const { window: _snapshot, channel, startFailure, earlier, gaps, life: _life, ...plain } = slot;
    const interrupted = earlier?.length ? { earlier, gaps } : {};
    return () => this.options.onEnd({ slot: plain, window: current, channel, startFailure, ...interrupted });
  }

  /**
   * After a restart or redeploy: the ends of the replay period again, then the
   * starts of slots in progress whose channel never came back (only when the
   * flow routes channels back at all; otherwise no slot has one).
   */
  private replay(now: number, ends: boolean): void {
    // older records are pruned by the tick that follows
    // a redeploy lost no sent end, but it cut off the ends still stopping or waiting for their recording to
    // finish: those, whose message was never sent, go again
    const recent = (this.state.ended ?? []).filter(
      (s) => now - s.endedAt <= this.replayMs && (ends || s.message === undefined),
    );
    for (const slot of recent) {
      // a slot that recorded nothing (its start given up, or no channel came back in a flow that routes them)
      // was reported missed as it ended, in the same turn as its record was saved: the report is not repeated
      if (slot.startFailure || (this.state.routesChannels && slot.channel === undefined && !slot.earlier?.length)) {
        continue;
      }
      const current = this.config.windows.find((w) => w.id === slot.windowId) ?? slot.window;
      const { window: _snapshot, channel, endedAt: _at, message, earlier, gaps, life: _life, ...plain } = slot;
      const interrupted = earlier?.length ? { earlier, gaps } : {};
      this.safely(() =>
        this.options.onEnd({ slot: plain, window: current, channel, replay: true, message, ...interrupted }),
      );
    }
    if (!this.state.routesChannels) return;
    for (const slot of this.state.active) {
      // a window that ended long ago is not asked for a channel again (the service may have forgotten the key)
      // an interrupted recording's replacement is the schedule's own to ask for again, under its restart key
      if (slot.channel !== undefined || slot.earlier?.length || now - slot.end > this.replayMs) continue;
      const { window, channel: _none, channelWaitUntil: _wait, life: _life, ...plain } = slot;
      slot.channelWaitUntil = Math.max(slot.end, now) + this.channelWaitMs;
      // the window as it was at the start: the same request as the first time
      this.safely(() => this.options.onStart({ slot: plain, window, replay: true }));
    }
  }

  /**
   * When the slot's end is to be emitted: at its end, or, while the flow routes
   * channels back and this slot's has not come back, up to channelWaitMs later.
   */
  private endDue(slot: ActiveSlot): number {
    if (slot.channel !== undefined || slot.startFailure || slot.earlier?.length) return slot.end;
    if (slot.channelWaitUntil !== undefined) return slot.channelWaitUntil;
    return this.state.routesChannels ? slot.end + this.channelWaitMs : slot.end;
  }

  private prune(now: number): boolean {
    let pruned = false;
    if (this.state.held?.some((s) => s.end <= now)) {
      this.state.held = this.state.held.filter((s) => s.end > now);
      pruned = true;
    }
    for (const [id, list] of Object.entries(this.state.listed ?? {})) {
      const kept = list.filter((o) => o.end > now - this.retainMs);
      if (kept.length !== list.length && this.state.listed) {
        this.state.listed[id] = kept;
        pruned = true;
      }
    }
    for (const [key, end] of Object.entries(this.state.skipped ?? {})) {
      if (end <= now && this.state.skipped) {
        delete this.state.skipped[key];
        pruned = true;
      }
    }
    if (this.state.ended?.some((s) => now - s.endedAt > this.replayMs)) {
      this.state.ended = this.state.ended.filter((s) => now - s.endedAt <= this.replayMs);
      pruned = true;
    }
    for (const [key, record] of Object.entries(this.state.emitted)) {
      if (record.end < now - this.retainMs && !this.state.active.some((s) => s.key === key)) {
        delete this.state.emitted[key];
        pruned = true;
      }
    }
    return pruned;
  }

  private rearm(): void {
    if (!this.running) return;
    this.clearTimer();
    const now = this.clock.now();
    let due = Number.POSITIVE_INFINITY;
    for (const slot of this.state.active) due = Math.min(due, this.endDue(slot));
    // while paused too: a start that falls then is reported as missed at its instant
    for (const w of this.config.windows) {
      if (!w.enabled) continue;
      const next = this.nextStartOf(w);
      if (next !== null) due = Math.min(due, next.start);
    }
    if (due === Number.POSITIVE_INFINITY) return;
    const delay = Math.min(Math.max(due - now, 0), this.maxTimerMs);
    this.timer = this.clock.setTimeout(() => {
      this.timer = undefined;
      this.tick();
    }, delay);
  }

  private clearTimer(): void {
    if (this.timer !== undefined) {
      this.clock.clearTimeout(this.timer);
      this.timer = undefined;
    }
  }

  private persist(): void {
    const store = this.options.store;
    if (!store) return;
    try {
      const result = store.save(this.snapshot());
      if (result && typeof (result as Promise<void>).catch === 'function') {
        (result as Promise<void>).catch((err) => this.reportError(err));
      }
    } catch (err) {
      this.reportError(err);
    }
  }

  private changed(): void {
    if (this.options.onChange) this.safely(() => this.options.onChange?.());
  }

  private safely(fn: () => void): void {
    try {
      fn();
    } catch (err) {
      this.reportError(err);
    }
  }

  private reportError(err: unknown): void {
    try {
      this.options.onError?.(err);
    } catch {
      /* nothing left to tell */
    }
  }
}

function isState(value: unknown): value is SchedulerState {
  return (
    typeof value === 'object' &&
    value !== null &&
    Array.isArray((value as SchedulerState).active) &&
    typeof (value as SchedulerState).emitted === 'object' &&
    (value as SchedulerState).emitted !== null
  );
}

function isListedRecord(value: unknown): value is Record<string, PlannedOccurrence[]> {
  return (
    typeof value === 'object' &&
    value !== null &&
    !Array.isArray(value) &&
    Object.values(value).every(
      (list) =>
        Array.isArray(list) &&
        list.every((o) => typeof o?.id === 'string' && Number.isFinite(o?.start) && Number.isFinite(o?.end)),
    )
  );
}

function isSkipRecord(value: unknown): value is Record<string, number> {
  return (
    typeof value === 'object' &&
    value !== null &&
    !Array.isArray(value) &&
    Object.values(value).every((v) => Number.isFinite(v))
  );
}

function isHeldSlot(value: unknown): value is HeldSlot {
  return isActiveSlot(value) && Array.isArray((value as HeldSlot).lostTo);
}

function isEndedSlot(value: unknown): value is EndedSlot {
  return isActiveSlot(value) && Number.isFinite((value as EndedSlot).endedAt);
}

/**
 * A copy of a journaled slot whose `life` keeps only the facts of the expected types (a hand-edited or damaged
 * journal loses a fact, never the slot).
 */
function withSaneLife<T extends ActiveSlot>(slot: T): T {
  const { life, ...rest } = slot;
  if (typeof life !== 'object' || life === null) return { ...rest } as T;
  const sane: SlotLifeFacts = {};
  for (const k of ['attempts', 'lateMs', 'endedAt'] as const) if (Number.isFinite(life[k])) sane[k] = life[k];
  for (const k of ['heard', 'awaiting', 'begun', 'alone'] as const) if (life[k] === true) sane[k] = true;
  if (typeof life.lastFailure === 'string') sane.lastFailure = life.lastFailure;
  const stop = life.stop;
  if (typeof stop === 'object' && stop !== null && Number.isFinite(stop.acceptedAt))
    sane.stop = { acceptedAt: stop.acceptedAt, ...(typeof stop.refused === 'string' ? { refused: stop.refused } : {}) };
  return { ...rest, life: sane } as T;
}

function isActiveSlot(value: unknown): value is ActiveSlot {
  const s = value as ActiveSlot;
  return (
    typeof s === 'object' &&
    s !== null &&
    typeof s.key === 'string' &&
    typeof s.windowId === 'string' &&
    Number.isFinite(s.start) &&
    Number.isFinite(s.end) &&
    typeof s.window === 'object' &&
    s.window !== null
  );
}

/** Whether a window's occurrences are listed (a calendar, a guide, messages) rather than computed from its cron. */
export function isListed(w: ScheduleWindow | undefined): boolean {
  return w?.source !== undefined && w.source.kind !== 'cron';
}

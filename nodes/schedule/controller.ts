import { setMaxListeners } from 'node:events';
import { sameChannel } from '../../lib/channel-ref';
import type { SlotRef } from '../../lib/coordination';
import { MediaSpacesError } from '../../lib/errors';
import { isPlainObject } from '../../lib/guards';
import {
  isoSeconds,
  type MissedEvent,
  occurrenceName,
  occurrenceOf,
  type PlannedOccurrence,
  type ScheduleConfig,
  Scheduler,
  type ScheduleWindow,
  type Slot,
} from '../../lib/schedule';
import { type FeedPlanOut, FeedPlans } from '../../lib/schedule/feed-plans';
import {
  type ScheduleWindows,
  type SlotTransition,
  scheduleWindows,
  slotTransitions,
} from '../../lib/schedule/slot-events';
import { type SlotIdentity, SlotLives, type SlotOut } from '../../lib/schedule/slot-lives';
import type { ServiceClockReading } from '../../lib/service-clock';
import { findCoordination } from '../shared/coordination-provider';
import { asMediaSpacesError, failMessage } from '../shared/failure';
import { resolveMessageInputs } from '../shared/inputs';
import type { NodeDef, NodeMessage, Outputs } from '../shared/node-red-types';
import { safeId } from '../shared/node-state';
import { clientFor } from '../shared/server-client';
import { dialogLabels, settingsWithWarnings } from '../shared/settings';
import { StatusBoard } from '../shared/status-board';
import { FINAL_STAGES } from '../sidebar/activity-types';
import { AfterSends } from './after-sends';
import { ConfigSource } from './config-source';
import { type ConflictReport, type ConflictTold, ConflictWatch, conflictRef } from './conflict-report';
import {
  type ChannelTold,
  type ControlEvent,
  type ControlKind,
  type ControlResults,
  readControl,
} from './control-events';
import { answerControl } from './control-replies';
import { Emitter } from './emitter';
import { feedAccessOf, feedBaseDir, feedDir } from './feed-access';
import { FIELDS } from './fields';
import { entriesOf, messagesWindow, occurrencesFromMessage } from './message-windows';
import { RecordingWatch } from './recording-watch';
import { RerecordWatch } from './rerecord-watch';
import { COUNT_INPUT, type ScheduleSettings, scheduleSettingsSchema, WINDOW_INPUT } from './settings';
import { SharedWindows, type SharedWindowsOut } from './shared-windows';
import { ScheduleSidebar } from './sidebar-report';
import { type CoordinationOut, SlotCoordination } from './slot-coordination';
import { whenFlowsStarted } from './start-gate';
import { stateJournal } from './state-journal';
import { handover, ScheduleStateStore } from './state-store';
import { coordinatedStatus, scheduleStatus, withFeeds, withoutServer, withPendingLists } from './status';
import type { ScheduleAPI, ScheduleNode } from './types';

/** The reason a start that was not emitted gives in its report. */
const MISSED_REASONS = {
  paused: 'the schedule was paused at the start',
  skipped: 'the start was skipped on request',
  cancelled: 'the occurrence was cancelled in its calendar or guide before it started',
} as const;

/** Seconds after a slot's start at which a start still failing is reported, unless the window says otherwise. */
const DEFAULT_ALARM_AFTER_S = 30;

/**
 * One schedule node at run time: loads the windows, runs the Scheduler from
 * its saved state once the flow has started, turns its events into messages,
 * answers control messages and keeps the badge up to date.
 */
export class ScheduleController {
  scheduler: Scheduler | undefined;
  closed = false;
  readonly lives: SlotLives;
  private readonly closing = new AbortController();
  private readonly coordination: SlotCoordination | undefined;
  /** with coordination: the lists of windows fed by messages, shared by the instances through Redis */
  private readonly shared: SharedWindows | undefined;
  private readonly source: ConfigSource;
  private readonly store: ScheduleStateStore;
  private readonly board: StatusBoard;
  private started = false;
  /** the badge, the sidebar and the gauge, once the requests of this turn's starts are out */
  private readonly after = new AfterSends((err) => this.node.error(asMediaSpacesError(err, 'Schedule').message));
  private readonly cancelStart: () => void;
  private sidebar: ScheduleSidebar | undefined;
  /** per window: the next start last published as planned */
  private readonly plannedStarts = new Map<string, number>();
  /** the schedule and its windows as last told on scheduleWindows */
  private windowsTold: string | undefined;
  /** the slot each window's planned start names, for withdrawing it when the window has no next start */
  private readonly plannedSlots = new Map<string, Slot>();
  /** reads the channels of windows in progress, so that a recording that stops early is replaced */
  private readonly watch: RecordingWatch | undefined;
  /** the calendar and guide windows' feeds, each the plan of its window */
  private readonly feeds: FeedPlans;
  /** the plan's occurrences over the document's max_channels, reported when they change */
  private readonly conflicts = new ConflictWatch((report, told) => this.tellConflict(report, told));
  /** failed slots of calendar and guide windows with `rerecord`, booked again at the next airing */
  private readonly rerecords: RerecordWatch;

  constructor(
    private readonly RED: ScheduleAPI,
    private readonly node: ScheduleNode,
    private readonly settings: ScheduleSettings,
  ) {
    // every end in progress (stop, then reads until finished) listens to it: many windows ending at once are no leak
    setMaxListeners(0, this.closing.signal);
    this.board = new StatusBoard(node);
    this.source = new ConfigSource(settings, RED.settings?.userDir);
    const initial = this.source.load();
    this.updateStatus();
    this.store = new ScheduleStateStore(RED, node, () => this.closed);
    const emitter = new Emitter(RED, node, settings, this);
    this.lives = this.slotLives(emitter);
    this.watch = this.recordingWatch();
    this.coordination = this.coordinate(RED, emitter);
    this.shared = this.shareLists(RED);
    const gate = this.coordination;
    this.scheduler = new Scheduler({
      scheduleId: this.scheduleIdOf(this.config),
      config: this.config,
      store: this.store,
      catchUp: settings.catchUp,
      onStart: (event) => (gate ? gate.start(event) : emitter.emitStart(event)),
      onEnd: (event) => (gate ? gate.end(event) : emitter.emitEnd(event)),
      onMissed: (event) => {
        if (event.why === 'conflict') this.heldBack(event);
        else
          emitter.emitMissed(
            event,
            event.why,
            MISSED_REASONS[event.why],
            event.why === 'cancelled' ? (send) => this.tellCancelled(event.slot, send) : undefined,
          );
      },
      onReplan: (event) => {
        this.checkConflicts();
        // an end moved by the feed: another instance that read it earlier must not stop the recording early
        for (const moved of event.endsMoved) {
          const slot = this.scheduler?.activeSlots().find((s) => s.key === moved.key);
          if (slot) gate?.endSeen(slot);
        }
        // the window's next start may have changed, or it may have none left (the guide ran out): the gauge hears it
        this.changedSoon();
      },
      onChange: () => this.changedSoon(),
      onError: (err) => node.error(asMediaSpacesError(err, 'Schedule').message),
    });
    this.feeds = new FeedPlans(
      {
        scheduler: () => this.scheduler,
        config: () => this.config,
        dir: feedDir(RED, node),
        access: (source) => feedAccessOf(source, node, feedBaseDir(RED)),
      },
      (effect) => this.carryOutTold(effect),
    );
    this.rerecords = this.rerecordWatch();
    this.sidebar = new ScheduleSidebar(RED, node, {
      scheduler: () => this.scheduler,
      config: () => this.config,
      act: (event) => this.act(event),
      lives: this.lives,
      conflicted: () => this.conflicts.keys,
      server: settings.server,
    });
    // Start once the whole flow runs, so that catch-up starts reach the nodes
    // wired after this one and Catch nodes see configuration errors.
    this.cancelStart = whenFlowsStarted(RED, () => this.begin(initial));
    this.source.watch(() => this.fileChanged());
  }

  /** Aborted when the node closes: stops and follow-up waits in flight end with it. */
  get signal(): AbortSignal {
    return this.closing.signal;
  }

  get config(): ScheduleConfig {
    return this.source.config;
  }

  scheduleId(): string {
    return this.scheduler?.scheduleId ?? this.scheduleIdOf(this.config);
  }

  reload(): MediaSpacesError | undefined {
    const error = this.source.load();
    if (!error) {
      this.scheduler?.setConfig(this.config, this.scheduleIdOf(this.config));
      if (this.started) this.feeds.configure();
      this.checkConflicts();
    }
    return error;
  }

  updateStatus(): void {
    if (this.closed) return;
    const own = scheduleStatus({
      configError: this.source.error,
      windowCount: this.config.windows.length,
      scheduler: this.scheduler,
      slot: (key) => this.lives?.view(key),
    });
    const fed = withFeeds(own, this.feeds?.health() ?? [], this.config.timezone);
    const base = this.settings.server ? fed : withoutServer(fed);
    const gate = this.coordination;
    const status = gate
      ? coordinatedStatus(base, { connection: gate.connection(), policy: gate.policy, role: gate.role })
      : base;
    this.board.set(withPendingLists(status, this.shared?.pendingCount ?? 0));
    this.sidebar?.sync();
  }

  /** A control message; its one reply on output 3 (or the start on output 1), or the error. */
  control(msg: NodeMessage): Outputs | Promise<Outputs> {
    if (!this.scheduler) throw closedError();
    const event = readControl(msg, {
      windowId: () => resolveMessageInputs(this.RED, this.node, msg, {}, WINDOW_INPUT).windowId,
      count: () => resolveMessageInputs(this.RED, this.node, msg, {}, COUNT_INPUT).count,
      windowIds: () => this.config.windows.map((w) => w.id),
    });
    return answerControl(msg, event, (e) => this.act(e), this.settings.source);
  }

  /** Carries out a control event, from a control message or the sidebar's buttons alike; what it did. */
  act<K extends ControlKind>(event: ControlEvent<K>): ControlResults[K] {
    const scheduler = this.scheduler;
    if (!scheduler) throw closedError();
    let result: ControlResults[K] | undefined;
    try {
      result = this.controlEffects[event.kind](event, scheduler);
      return result;
    } finally {
      // the badge after every event, a refused one too (a failed reload says so); once it settles where it is awaited
      if (result instanceof Promise) void result.finally(() => this.updateStatus()).catch(() => undefined);
      else this.updateStatus();
    }
  }

  close(removed: boolean): void {
    this.after.close();
    this.closed = true;
    this.closing.abort();
    this.lives.close();
    this.watch?.close();
    this.feeds.close();
    this.rerecords.close();
    this.sidebar?.close();
    this.cancelStart();
    this.source.close();
    this.coordination?.close();
    this.shared?.close();
    const scheduler = this.scheduler;
    if (scheduler) {
      if (!removed && this.started) handover.keep(this.node.id, scheduler.snapshot());
      else handover.drop(this.node.id);
      scheduler.stop();
    }
    if (removed) {
      this.store.remove();
      this.shared?.remove();
    }
    this.scheduler = undefined;
    this.board.close();
  }

  /** What each control event does (see `act`): a table rather than a switch, so that each kind keeps its result's type. */
  private readonly controlEffects: {
    [K in ControlKind]: (event: ControlEvent<K>, scheduler: Scheduler) => ControlResults[K];
  } = {
    // the schedule's one start path, as a timed start takes
    trigger: (event, scheduler) => scheduler.trigger(event.windowId, event.msgid),
    pause: (_event, scheduler) => {
      scheduler.pause();
      return { paused: scheduler.paused };
    },
    resume: (_event, scheduler) => {
      scheduler.resume();
      return { paused: scheduler.paused };
    },
    // a window id that is not text is refused as the message is read (fields.ts), one that is unknown by the scheduler
    skip: (event, scheduler) => scheduler.skipNext(event.windowId),
    reload: () => {
      const error = this.reload();
      if (error) throw error;
      // the windows as reloaded: what the schedule runs from now on
      return { windows: this.config.windows.map((w) => w.id), feeds: this.feeds.reload() };
    },
    list: (event, scheduler) => ({
      upcoming: scheduler.upcoming(event.count),
      active: scheduler.activeSlots(),
      paused: scheduler.paused,
    }),
    windows: (event, scheduler) => {
      const window = messagesWindow(this.config, event.windowId);
      const list = occurrencesFromMessage(window, event.payload);
      const take = () => this.takeList(scheduler, window, list);
      // with coordination the list goes to Redis too, in its window's turn (shared-windows.ts)
      return this.shared ? this.shared.send(window, entriesOf(list), take) : take();
    },
    channel: ({ slotKey, channel }, scheduler) => {
      const told = this.channelCreated(slotKey, channel);
      const kept = told.kept ? undefined : scheduler.channelOf(slotKey);
      return { ...told, known: isPlainObject(kept) && kept.id === channel.id };
    },
    'reload-feed': (event) => this.feeds.reloadWindow(event.windowId),
  };

  /** A window's occurrences replaced by a list (sent here, or taken from Redis); what the reply says. */
  private takeList(scheduler: Scheduler, window: ScheduleWindow, list: PlannedOccurrence[]): Record<string, unknown> {
    const change = scheduler.setOccurrences(window.id, list, Number.POSITIVE_INFINITY, { keep: true });
    return { window_id: window.id, occurrences: list.length, moved: change?.moved ?? 0, added: change?.added ?? 0 };
  }

  /** With a coordination node: the lists of windows fed by messages go through Redis; without: undefined. */
  private shareLists(RED: ScheduleAPI): SharedWindows | undefined {
    if (!this.settings.coordination) return undefined;
    const { provider, problem } = findCoordination((id) => RED.nodes.getNode(id), this.settings.coordination);
    return new SharedWindows(
      provider,
      problem,
      stateJournal(RED.settings, 'schedule-lists', this.node.id),
      {
        scheduleId: () => this.scheduleId(),
        windows: () => this.config.windows.filter((w) => w.source?.kind === 'messages'),
      },
      (window, entries) => {
        const scheduler = this.scheduler;
        if (!scheduler) throw new MediaSpacesError({ code: 'aborted', message: 'the schedule is closed' });
        this.takeList(scheduler, window, occurrencesFromMessage(window, entries));
      },
      (effect) => this.carryOutTold(effect),
    );
  }

  /** The log lines, warnings and badge changes the feeds, the shared lists, the re-record watch and the coordination ask. */
  private carryOutTold(effect: FeedPlanOut | SharedWindowsOut): void {
    switch (effect.kind) {
      case 'log':
        this.node.log(effect.text);
        return;
      case 'warn':
        this.node.warn(effect.text);
        return;
      case 'changed':
        this.updateStatus();
        return;
    }
  }

  /**
   * A slot's channel exists (create-channel told, or it was routed back):
   * coordination completes the start with it, the scheduler keeps it for the
   * end (once: the same channel told twice is kept once). `led` when this
   * instance led the start; `kept` when the slot in progress has it now;
   * `lost` when the window lost it already (an interruption replaced it).
   */
  private channelCreated(key: string, channel: unknown): ChannelTold {
    const led = this.coordination?.channelReturned(key, channel) === true;
    const slot = this.scheduler?.activeSlots().find((s) => s.key === key);
    // a channel the window already lost (its report came late) is not taken for the recording again
    const lost = this.lives.view(key)?.earlier.some((c) => c.id === (channel as { id?: unknown })?.id) === true;
    if (!slot || lost) return { led, kept: false, lost };
    if (sameChannel(slot.channel, channel)) return { led, kept: true, lost };
    if (!this.scheduler?.rememberChannel(key, channel)) return { led, kept: false, lost };
    this.lives.recording(slot, channel);
    return { led, kept: true, lost };
  }

  /** The slots' state machines: what they read of this node, and the one place their effects are carried out. */
  private slotLives(emitter: Emitter): SlotLives {
    return new SlotLives(
      {
        identity: (slot) => this.identity(slot),
        alarmAfterMs: (slot) => (this.windowOf(slot.key)?.alarm_after ?? DEFAULT_ALARM_AFTER_S) * 1000,
        readsChannels: () => this.watch !== undefined,
        record: (key) => this.scheduler?.record(key),
        serviceClock: () => this.serviceClock(),
      },
      (effect) => this.carryOut(effect, emitter),
    );
  }

  /** How far the live-capture area's clock is from this host's, as its answers to this schedule's reads settle it. */
  private serviceClock(): ServiceClockReading | undefined {
    const server = this.settings.server;
    if (!server) return undefined;
    try {
      return clientFor(this.RED, server, 'liveCapture').liveCaptureClock();
    } catch {
      // the server node is gone or not deployed: nothing is read from the service, so nothing is known of its clock
      return undefined;
    }
  }

  /** What a slot's life asks (lib/schedule/slot-lives `SlotOut`), done through this node's parts. */
  private carryOut(effect: SlotOut, emitter: Emitter): void {
    switch (effect.kind) {
      case 'show': {
        const { slot, life, channel } = effect;
        const work = () => this.sidebar?.show(slot, life, channel);
        // a slot's final stage is told at its end, with its report on output 3 or its follow-up
        if (FINAL_STAGES.includes(life.stage)) this.after.now(work);
        else this.after.add(work);
        return;
      }
      case 'changed':
        this.after.settle(this.refresh);
        return;
      case 'keep':
        this.scheduler?.recordChanged(effect.slot.key);
        return;
      case 'channel-created':
        this.channelCreated(effect.slot.key, effect.channel);
        return;
      case 'channel-requested':
        this.scheduler?.awaitChannel(effect.slot.key);
        return;
      case 'start-attempted':
        this.scheduler?.channelRequestFailed(effect.slot.key);
        this.coordination?.startAttempted(effect.slot.key);
        return;
      case 'start-failed':
        this.coordination?.startFailed(effect.slot.key, effect.reason);
        this.scheduler?.rememberStartFailure(effect.slot.key, { message: effect.reason, attempts: effect.attempts });
        return;
      case 'start-failing': {
        const window = this.windowOf(effect.slot.key);
        if (window) emitter.emitStartFailing(effect.slot, window, effect.failure);
        return;
      }
      case 'replace': {
        const { slot, channel, why, n } = effect;
        const window = this.windowOf(slot.key);
        if (!window) return;
        const act = () => emitter.emitInterrupted(slot, window, channel, why, n);
        if (this.coordination) this.coordination.restart({ slot, window, restart: n }, act);
        else act();
        return;
      }
      case 'warn':
        this.node.warn(effect.text);
        return;
    }
  }

  /** Failed slots of windows with `rerecord` booked at the next airing; with coordination, each booking claimed once. */
  private rerecordWatch(): RerecordWatch {
    const gate = this.coordination;
    return new RerecordWatch(
      this.node.id,
      {
        config: () => this.config,
        scheduler: () => this.scheduler,
        feeds: this.feeds,
        ...(gate
          ? { claim: (booking) => gate.claimBooking(booking), lookup: (airing) => gate.bookedElsewhere(airing) }
          : {}),
      },
      (effect) => {
        if (effect.kind !== 'rerecord') return this.carryOutTold(effect);
        this.node.send([null, null, effect.report]);
        this.changedSoon();
      },
    );
  }

  /** With a server: reads the channels of windows in progress and tells a slot whose recording stopped early. */
  private recordingWatch(): RecordingWatch | undefined {
    const server = this.settings.server;
    if (!server) return undefined;
    return new RecordingWatch(
      () => clientFor(this.RED, server, 'liveCapture'),
      (key, _channelId, why) => {
        const slot = this.scheduler?.activeSlots().find((s) => s.key === key);
        if (slot) this.lives.interrupt(slot, why);
      },
      (channelId, state, channel) => this.lives.channelState(channelId, state, channel),
    );
  }

  /**
   * Each window's next start as a `planned` transition, when it changed and someone listens (the metrics'
   * next-start gauge): the slot it names is planned, nothing more.
   */
  private publishPlanned(): void {
    this.announceWindows();
    const scheduler = this.scheduler;
    if (!scheduler || !slotTransitions.hasSubscribers) return;
    const nexts = scheduler.nextStartsOfWindows();
    const windows = new Set(nexts.map((n) => n.windowId));
    // a window with no next start any more (its guide or calendar ran out, it was disabled): its last one is withdrawn
    for (const [windowId, planned] of this.plannedStarts) {
      if (windows.has(windowId)) continue;
      this.plannedStarts.delete(windowId);
      const gone = this.plannedSlots.get(windowId);
      this.plannedSlots.delete(windowId);
      if (gone && gone.start === planned) this.publishPlannedSlot(gone, true);
    }
    for (const next of nexts) {
      const windowId = next.windowId;
      if (this.plannedStarts.get(windowId) === next.start) continue;
      this.plannedStarts.set(windowId, next.start);
      const slot: Slot = { key: next.slotKey, windowId, start: next.start, end: next.end, reason: 'scheduled' };
      this.plannedSlots.set(windowId, slot);
      this.publishPlannedSlot(slot, false);
    }
  }

  /**
   * The schedule's windows, when they changed since last told and someone listens (the metrics export each
   * window's series at 0 from then on, also a window with no next start yet).
   */
  private announceWindows(): void {
    if (this.closed || !scheduleWindows.hasSubscribers) return;
    const told: ScheduleWindows = {
      schedule: { id: this.node.id, name: this.node.name ?? '' },
      windows: this.config.windows.map((w) => w.id),
    };
    const key = JSON.stringify(told);
    if (key === this.windowsTold) return;
    this.windowsTold = key;
    scheduleWindows.publish(told);
  }

  private publishPlannedSlot(slot: Slot, withdrawn: boolean): void {
    slotTransitions.publish({
      slot: slot.key,
      ...this.identity(slot),
      from: 'planned',
      to: 'planned',
      at: new Date().toISOString(),
      ...(withdrawn ? { withdrawn: true } : {}),
    } satisfies SlotTransition);
  }

  /** The scheduler's state changed: the badge, the sidebar and the next planned starts, after the sends. */
  private changedSoon(): void {
    this.after.settle(this.refresh);
  }

  /** What a slot's move or the scheduler's change shows: the badge, the channels watched, the next starts. */
  private readonly refresh = (): void => {
    if (this.closed) return;
    this.slotsChanged();
    this.publishPlanned();
    // a slot started or ended, a start was skipped: the decision may have changed
    this.checkConflicts();
  };

  /**
   * A conflict's loser at its start: not started (never tried against the service); skipped, with what it lost
   * to as the reason, and reported on output 3 unless it was before. It waits for a channel to free up.
   */
  private heldBack(event: MissedEvent): void {
    const { slot, window } = event;
    const title = slot.programme?.title ? occurrenceName(window.name, slot.programme) : undefined;
    const reason = this.conflicts.held(
      {
        key: slot.key,
        windowId: slot.windowId,
        start: slot.start,
        end: slot.end,
        ...(title ? { title } : {}),
        lostTo: event.lostTo ?? [],
      },
      this.config.maxChannels ?? 0,
    );
    this.lives.missed(slot, 'skipped', reason);
    this.sidebar?.conflictsChanged();
  }

  /**
   * An occurrence taken out of its feed before it started: every instance reads the feed and finds it, and with
   * a coordination node one of them tells it (claimed in Redis, as a conflict is).
   */
  private tellCancelled(slot: Slot, send: () => void): void {
    if (!this.coordination) {
      send();
      return;
    }
    const prefix = `${this.scheduleId()}:${slot.windowId}:`;
    const ref: SlotRef = {
      schedule: `${this.scheduleId()}:${slot.windowId}#cancelled`,
      slot: slot.start,
      occurrence: slot.key.startsWith(prefix) ? slot.key.slice(prefix.length) : slot.key,
      phase: 'cancelled',
    };
    this.coordination.reportOnce(slot.key, ref, slot.end, send);
  }

  /**
   * A loser's `conflict` report on output 3. With a coordination node every instance finds the same losers:
   * the one that claims the report in Redis sends it, so that the flow hears it once (and not again after a
   * restart, which forgets what was told).
   */
  private tellConflict(report: ConflictReport, told: ConflictTold): void {
    const send = () => this.node.send([null, null, report]);
    if (!this.coordination) send();
    else this.coordination.reportOnce(told.loser.key, conflictRef(this.scheduleId(), told), told.loser.end, send);
  }

  /** The plan against max_channels: a `conflict` report for each occurrence that newly loses. */
  private checkConflicts(): void {
    // the feeds' first reads come one window at a time: decided once they are all in
    if (this.closed || !this.started || !this.feeds.settled()) return;
    try {
      if (this.conflicts.check(this.scheduler, this.config)) this.sidebar?.conflictsChanged();
    } catch (err) {
      this.node.error(asMediaSpacesError(err, 'Schedule').message);
    }
  }

  /** A slot moved: the badge, and which channels the recording watch reads. */
  private slotsChanged(): void {
    this.updateStatus();
    this.watch?.set(this.lives.recordingChannels());
  }

  /** The window a slot in progress runs, as it was at its start. */
  private windowOf(key: string): ScheduleWindow | undefined {
    return this.scheduler?.activeSlots().find((s) => s.key === key)?.window;
  }

  /** Who a slot is, as its transitions name it. */
  private identity(slot: Slot): SlotIdentity {
    // one read of the slots in progress (each read copies and sorts them): every move of every slot asks
    const active = this.scheduler?.activeSlots().find((s) => s.key === slot.key);
    const window = active?.window ?? this.config.windows.find((w) => w.id === slot.windowId);
    const start = isoSeconds(slot.start);
    const end = isoSeconds(slot.end);
    const p = slot.programme ?? active?.programme;
    return {
      schedule: { id: this.node.id, name: this.node.name ?? '' },
      window: { id: slot.windowId, zone: window?.timezone ?? this.config.timezone },
      occurrence: {
        id: occurrenceOf(slot),
        ...(p?.title ? { title: p.title } : {}),
        ...(p?.episode ? { episode: p.episode } : {}),
        start: p ? isoSeconds(p.start) : start,
        end: p ? isoSeconds(p.end) : end,
      },
      scheduled: { start, end },
      ...(this.coordination ? { coordinated: true } : {}),
      ...((slot.rerecordOf ?? active?.rerecordOf) ? { rerecordOf: slot.rerecordOf ?? active?.rerecordOf } : {}),
    };
  }

  private begin(initial: MediaSpacesError | undefined): void {
    if (this.started || this.closed) return;
    this.started = true;
    if (initial) this.reportConfigError(initial, 'config');
    // ends are replayed after a restart only: a redeploy hands the state over in memory, and replaying the
    // last minutes' ends on every deploy would flood the flow (in-flight requests cut off by a redeploy are
    // dropped, as documented for the operation nodes)
    const replayEnds = !handover.has(this.node.id);
    this.scheduler?.start({ replayEnds }).then(
      () => {
        // slots in progress from the journal: recording, or waiting for the replacement of a lost channel
        for (const slot of this.scheduler?.activeSlots() ?? []) {
          this.lives.restore(slot, slot, slot.startFailure);
        }
        this.slotsChanged();
        this.announceWindows();
        this.feeds.configure();
        this.checkConflicts();
        // lists from Redis only now: the journal's own list, loaded above, must not overwrite a later one
        this.shared?.start();
      },
      (err) => this.node.error(asMediaSpacesError(err, 'Schedule').message),
    );
  }

  private fileChanged(): void {
    if (this.closed) return;
    const error = this.reload();
    if (error) this.reportConfigError(error, 'reload');
    else this.node.log(`reloaded ${this.source.filePath}: ${this.config.windows.length} window(s)`);
    this.updateStatus();
  }

  /** A configuration problem without an input message: Catch nodes get it with the issues. */
  private reportConfigError(error: MediaSpacesError, topic: string): void {
    failMessage(this.node, { topic, payload: this.source.problem(error) }, error.toJSON());
  }

  /** With a coordination node: the slots go through Redis (see slot-coordination.ts); without: undefined. */
  private coordinate(RED: ScheduleAPI, emitter: Emitter): SlotCoordination | undefined {
    if (!this.settings.coordination) return undefined;
    const { provider, problem } = findCoordination((id) => RED.nodes.getNode(id), this.settings.coordination);
    if (problem) this.node.error(problem);
    return new SlotCoordination(
      provider,
      problem,
      { scheduler: () => this.scheduler, startedAlone: (key) => this.lives.startedAlone(key) },
      (effect) => this.carryOutCoordinated(effect, emitter),
    );
  }

  /** What the coordination asks (slot-coordination.ts `CoordinationOut`), done through this node's parts. */
  private carryOutCoordinated(effect: CoordinationOut, emitter: Emitter): void {
    switch (effect.kind) {
      case 'start':
        emitter.emitStart(effect.event);
        return;
      case 'end':
        emitter.emitEnd(effect.event, effect.after, effect.coordinated);
        return;
      case 'missed':
        emitter.emitMissed(effect.event, effect.why, effect.reason);
        return;
      case 'adopted':
        this.channelCreated(effect.slot.key, effect.channel);
        return;
      case 'ended-elsewhere':
        this.lives.forget(effect.slot.key);
        return;
      case 'started-alone':
        this.lives.startAlone(effect.key);
        return;
      case 'log':
      case 'warn':
      case 'changed':
        this.carryOutTold(effect);
        return;
    }
  }

  private scheduleIdOf(config: ScheduleConfig): string {
    return this.settings.scheduleId || config.scheduleId || safeId(this.node.id);
  }
}

function closedError(): MediaSpacesError {
  return new MediaSpacesError({ code: 'aborted', message: 'the schedule is closed' });
}

/** The node's runtime, from its deploy on: control messages answered on output 3, or an error. */
export function start(RED: ScheduleAPI, node: ScheduleNode, def: NodeDef): void {
  const warn = (text: string) => node.warn(text);
  const settings = settingsWithWarnings(scheduleSettingsSchema, def, dialogLabels(RED, def.type, FIELDS), warn);
  const controller = new ScheduleController(RED, node, settings);

  node.on('input', (msg, send, done) => {
    const fail = (err: unknown) => failMessage(node, msg, asMediaSpacesError(err, 'Schedule').toJSON(), done);
    // Node-RED sends null to an output that gets nothing; its typings here know only full arrays
    const out = (outputs: Outputs) => {
      send(outputs as Parameters<typeof send>[0]);
      done();
    };
    try {
      const outputs = controller.control(msg);
      // a windows list shared through Redis answers once Redis took it (or could not)
      if (outputs instanceof Promise) outputs.then(out, fail);
      else out(outputs);
    } catch (err) {
      fail(err);
    }
  });

  node.on('close', (removed, done) => {
    controller.close(removed);
    done();
  });
}

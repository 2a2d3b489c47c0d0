import { setMaxListeners } from 'node:events';
import { channelWithId } from '../../lib/channel-ref';
import {
  type ClaimOptions,
  type ClaimResult,
  type ConnectionStatus,
  CoordinationError,
  type Coordinator,
  type DoneRecord,
  type HeldBy,
  isTransientCoordinationError,
  type LeaseKeeper,
  type SlotRef,
} from '../../lib/coordination';
import { isPlainObject } from '../../lib/guards';
import { sleep } from '../../lib/retry';
import { doublingDelay, NotYet, retryUntilDeadline } from '../../lib/retry-until';
import {
  DEFAULT_CHANNEL_WAIT_MS,
  type EndEvent,
  isoSeconds,
  occurrenceOf,
  type Scheduler,
  type Slot,
  type StartEvent,
} from '../../lib/schedule';
import type { RerecordBooking } from '../../lib/schedule/rerecord';
import type { CoordinationProvider, UnreachablePolicy } from '../shared/coordination-provider';
import { CatchUpQueue } from './catch-up-queue';
import type { MissedWhy } from './missed';
import { STOP_GRACE_MS } from './recording-end';

/** What the coordination reads of the schedule node it works for. */
interface CoordinationReads {
  scheduler(): Scheduler | undefined;
  /** this instance started the slot alone, Redis unusable (policy alone): its end needs no done record */
  startedAlone(key: string): boolean;
}

/**
 * What the coordination asks of the schedule node, as data; the node carries each out, in the order given:
 * - `start`, `end`, `missed`: emit the slot's start; its end (`after` hears whether it went, or was reported
 *   missed instead); the slot's missed report in place of its end;
 * - `adopted`: another instance created the slot's channel (its start, or an interrupted recording's
 *   replacement); `ended-elsewhere`: another instance ended the slot, this one follows it no further;
 * - `started-alone`: this instance started the slot alone, Redis unusable (policy alone);
 * - `log`, `warn`; `changed`: the role or the connection changed (the badge).
 */
export type CoordinationOut =
  | { kind: 'start'; event: StartEvent }
  | {
      kind: 'end';
      event: EndEvent;
      after: (sent: boolean, missed?: string) => void;
      coordinated?: { started: boolean; failed?: string };
    }
  | { kind: 'missed'; event: EndEvent; why: MissedWhy; reason: string }
  | { kind: 'adopted'; slot: Slot; channel: Record<string, unknown> }
  | { kind: 'ended-elsewhere'; slot: Slot }
  | { kind: 'started-alone'; key: string }
  | { kind: 'log'; text: string }
  | { kind: 'warn'; text: string }
  | { kind: 'changed' };

/** A report this instance sent alone, Redis out of use: to be written to Redis once it is back. */
interface SentAlone {
  key: string;
  ref: SlotRef;
  until: number;
  sentAt: number;
}

/** This instance's part in the latest slot step, for the badge. */
interface SlotRole {
  kind: 'leading' | 'standby' | 'unreachable';
  text: string;
  /** epoch ms after which the role is stale */
  until: number;
}

interface PendingStart {
  ref: SlotRef;
  token: number;
  keeper: LeaseKeeper;
  timer: ReturnType<typeof setTimeout>;
  coordinator: Coordinator;
  /** the window's end */
  end: number;
}

/** How long the leader of a start keeps its claim while waiting for the channel to come back (the end's wait too). */
const CHANNEL_WAIT_MS = DEFAULT_CHANNEL_WAIT_MS;
/** How long after a window's end another instance still takes its end over: as long as its stop is tried. */
const END_GRACE_MS = STOP_GRACE_MS;
/** Backoff between two tries of a step while Redis cannot be used (timeouts, reconnecting). */
const REDIS_RETRY_FIRST_MS = 250;
const REDIS_RETRY_MAX_MS = 2_000;
/** How often an end that knows of no start is claimed again, while another instance may know of one. */
const UNSTARTED_RETRY_MS = 1_000;
/** How long a report waits for Redis (a first connection slow to come up, a stall) before this instance sends it. */
const REPORT_WAIT_MS = 10_000;

/**
 * One schedule node's part in the coordination of several Node-RED
 * instances (see lib/coordination/README.md and the README's "Running two
 * instances"). Every instance keeps its timers; for each slot and phase the
 * instance that wins the claim emits, the others stand by and re-claim when
 * the leader's lease runs out, until the window closes.
 * - start: emitted by the winner; completed when the channel comes back
 *   (stored as the done record's result), the lease kept meanwhile.
 * - end: the channel comes from start's done record; completed once the end
 *   message is sent (the submit's response is not routed back to the schedule).
 */
export class SlotCoordination {
  role: SlotRole | undefined;
  private readonly pending = new Map<string, PendingStart>();
  private readonly abort = new AbortController();
  private readonly catchUp: CatchUpQueue;
  private readonly unsubscribe: () => void;
  private closed = false;
  /** reports claimed one after another, in the order they were decided */
  private reports: Promise<void> = Promise.resolve();
  /** Redis was out of use when a report last needed it: reports go without waiting for it, until a claim works */
  private reportingAlone = false;
  /**
   * Reports sent alone, by the name of their claim: written to Redis once it answers, for until then another
   * instance that claims one finds it not done and sends it again.
   */
  private readonly sentAlone = new Map<string, SentAlone>();
  private recordingSentAlone = false;
  private readonly reportWaitMs: number;

  constructor(
    private readonly provider: CoordinationProvider | undefined,
    private readonly problem: string | undefined,
    private readonly reads: CoordinationReads,
    private readonly out: (effect: CoordinationOut) => void,
    options: { reportWaitMs?: number } = {},
  ) {
    this.reportWaitMs = options.reportWaitMs ?? REPORT_WAIT_MS;
    // each slot's claim waits on it while it retries: many slots at once are no leak
    setMaxListeners(0, this.abort.signal);
    this.unsubscribe = provider?.onCoordinationStatus(() => out({ kind: 'changed' })) ?? (() => undefined);
    this.catchUp = new CatchUpQueue(() => this.coordinator(), { log: (text) => out({ kind: 'log', text }) });
  }

  get policy(): UnreachablePolicy {
    return this.provider?.coordinationSettings?.whenUnreachable ?? 'skip';
  }

  connection(): ConnectionStatus {
    return this.provider?.coordinationStatus() ?? { state: 'error', error: this.problem, errorCode: 'invalid_config' };
  }

  start(event: StartEvent): void {
    const run = () => this.guarded(event, 'start', () => this.runStart(event));
    if (event.slot.reason === 'catch-up') this.catchUp.add(event.slot, scheduleOf(event.slot), run);
    else void run();
  }

  end(event: EndEvent): void {
    void this.guarded(event, 'end', () => this.runEnd(event));
  }

  /**
   * A recording interrupted mid-window, seen by every instance that watches its channel: the one that wins the
   * claim of this replacement (`restart:<n>`) reports it and asks for the channel (`act`); the others adopt the
   * channel it completes the claim with, or take the replacement over if its lease runs out first.
   */
  restart(event: StartEvent & { restart: number }, act: () => void): void {
    void this.guarded(event, 'start', () => this.runRestart(event, act));
  }

  /**
   * A listed occurrence's end as this instance's plan has it (at its start, and when its feed moved it): Redis
   * keeps the latest any instance has seen, so that an instance that read the feed before the move does not end
   * the recording early.
   */
  endSeen(slot: Slot): void {
    if (slot.occurrence === undefined || !this.provider) return;
    let coordinator: Coordinator;
    try {
      coordinator = this.coordinator();
    } catch {
      return;
    }
    coordinator.raiseEnd(slotRef(slot, 'end'), slot.end).catch(() => undefined);
  }

  /**
   * The end of a listed occurrence waits for the latest end any instance has seen (it moved in a feed this
   * instance read earlier); undefined when the node closed meanwhile. Redis unusable: this instance's own end.
   */
  private async latestEnd(event: EndEvent): Promise<EndEvent | undefined> {
    const { slot } = event;
    if (slot.occurrence === undefined) return event;
    let latest = slot.end;
    try {
      latest = await this.coordinator().raiseEnd(slotRef(slot, 'end'), slot.end);
    } catch {
      return event;
    }
    if (latest <= slot.end) return event;
    this.say(
      'log',
      `${slot.key}: another instance has its end at ${isoSeconds(latest)}; the recording runs on until then`,
    );
    if (!(await pause(Math.max(0, latest - Date.now()), this.abort.signal))) return undefined;
    return { ...event, slot: { ...slot, end: latest } };
  }

  /**
   * A report every instance makes alike (a conflict's loser: each instance decides the same plan), sent by the
   * instance that wins its claim and completed at once, so that the flow hears it once however many instances
   * run, and not again after a restart. A claim another instance holds is waited on, until `until`: should that
   * one die before completing it, this one sends the report. Redis out of use (for REPORT_WAIT_MS, or since
   * the last report found it so): this instance sends it (a report told twice rather than not at all), and
   * writes it to Redis as done once it is back.
   */
  reportOnce(key: string, ref: SlotRef, until: number, send: () => void): void {
    this.reports = this.reports.then(() => this.runReport(key, ref, until, send));
  }

  private async runReport(key: string, ref: SlotRef, until: number, send: () => void): Promise<void> {
    if (this.closed) return;
    let coordinator: Coordinator | undefined;
    let result: ClaimResult;
    try {
      result = await retryUntilDeadline({
        deadline: this.reportingAlone ? Date.now() : Date.now() + this.reportWaitMs,
        signal: this.abort.signal,
        attempt: () => {
          coordinator = this.coordinator();
          return coordinator.claim(ref);
        },
        decide: (err, n) =>
          isTransientCoordinationError(err)
            ? { retry: true, delayMs: doublingDelay(n, REDIS_RETRY_FIRST_MS, REDIS_RETRY_MAX_MS) }
            : { retry: false },
      });
    } catch (err) {
      if (this.closed || this.abort.signal.aborted) return;
      if (!this.reportingAlone) {
        this.say(
          'warn',
          `${key}: Redis coordination unusable (${messageOf(err)}): this instance sends its reports of conflicts and cancellations itself until Redis is back`,
        );
      }
      this.reportingAlone = true;
      send();
      // a coordination node without valid settings has no Redis to come back
      if (isTransientCoordinationError(err)) this.recordWhenBack({ key, ref, until, sentAt: Date.now() });
      return;
    }
    this.reportingAlone = false;
    if (this.closed || !coordinator || result.status === 'done') return;
    const claimed = coordinator;
    if (result.status === 'won') {
      this.sendClaimed(key, claimed, ref, result.token, send, until);
      return;
    }
    // another instance is sending it: waited on beside the reports that come next, not before them
    claimed.claimUntil(ref, { deadline: until, signal: this.abort.signal }).then(
      (next) => {
        if (next.status === 'won' && !this.closed) this.sendClaimed(key, claimed, ref, next.token, send, until);
      },
      () => undefined,
    );
  }

  /** Sends a report whose claim this instance won, and records it sent until `until` and `doneTtlMs` after. */
  private sendClaimed(
    key: string,
    coordinator: Coordinator,
    ref: SlotRef,
    token: number,
    send: () => void,
    until: number,
  ): void {
    send();
    coordinator.complete(ref, token, { sentAt: Date.now() }, until).then(
      (done) => {
        if (done.status === 'lost') this.say('warn', `${key}: its report was sent by another instance too`);
      },
      (err) => this.say('warn', `${key}: cannot record in Redis that its report was sent: ${messageOf(err)}`),
    );
  }

  private recordWhenBack(report: SentAlone): void {
    this.sentAlone.set(claimId(report.ref), report);
    if (!this.recordingSentAlone) void this.recordSentAlone();
  }

  /**
   * Tried until Redis answers, however long it is away (or until the node closes): a report written late still
   * spares the instances that decide it afterwards a second sending.
   */
  private async recordSentAlone(): Promise<void> {
    this.recordingSentAlone = true;
    try {
      await retryUntilDeadline({
        deadline: Number.POSITIVE_INFINITY,
        signal: this.abort.signal,
        attempt: () => this.writeSentAlone(),
        decide: (err, n) => {
          if (err instanceof NotYet) return { retry: true, delayMs: err.retryInMs };
          return isTransientCoordinationError(err)
            ? { retry: true, delayMs: doublingDelay(n, REDIS_RETRY_FIRST_MS, REDIS_RETRY_MAX_MS) }
            : { retry: false };
        },
      });
      this.reportingAlone = false;
    } catch (err) {
      if (this.closed || this.abort.signal.aborted) return;
      const keys = [...this.sentAlone.values()].map((r) => r.key).join(', ');
      this.say('warn', `${keys}: cannot record in Redis the reports sent while it was out of use: ${messageOf(err)}`);
      this.sentAlone.clear();
    } finally {
      this.recordingSentAlone = false;
    }
    // sent alone after the last write went through
    if (this.sentAlone.size > 0 && !this.closed) void this.recordSentAlone();
  }

  /** Every report sent alone, written as done; NotYet while another instance holds the claim of one of them. */
  private async writeSentAlone(): Promise<void> {
    let heldMs: number | undefined;
    for (const [id, report] of [...this.sentAlone]) {
      const wait = await this.writeOne(report);
      if (wait === undefined) this.sentAlone.delete(id);
      else heldMs = Math.min(heldMs ?? wait, wait);
    }
    if (heldMs !== undefined) throw new NotYet(heldMs);
  }

  /**
   * One report sent alone, completed as one sent through Redis would be (kept `doneTtlMs` past `until`).
   * Returns how long to wait while another instance holds its claim: should that one die before sending,
   * this one completes it and nobody sends it again.
   */
  private async writeOne({ key, ref, until, sentAt }: SentAlone): Promise<number | undefined> {
    const coordinator = this.coordinator();
    const claimed = await coordinator.claim(ref);
    if (claimed.status === 'done') {
      this.say('warn', `${key}: its report was sent by ${claimed.record.instance} too, while Redis was out of use`);
      return undefined;
    }
    let token: number | undefined;
    if (claimed.status === 'won') token = claimed.token;
    else {
      token = await ownStalledClaim(coordinator, ref, claimed.holder);
      if (token === undefined) return claimed.retryInMs;
    }
    const done = await coordinator.complete(ref, token, { sentAt }, until);
    if (done.status === 'lost') this.say('warn', `${key}: its report was sent by another instance too`);
    return undefined;
  }

  /** The channel of a slot came back (routed into the schedule): the start is done. True when this instance led it. */
  channelReturned(slotKey: string, channel: unknown): boolean {
    const p = this.pending.get(slotKey);
    if (!p) return false;
    this.pending.delete(slotKey);
    clearTimeout(p.timer);
    p.keeper.stop();
    this.finish(p, slotKey, 'start', channel);
    return true;
  }

  /**
   * This instance's create-channel is still trying the start (an attempt
   * failed and will be retried until the window's end): the claim is kept
   * until then, rather than given to another instance after CHANNEL_WAIT_MS.
   */
  startAttempted(slotKey: string): void {
    const p = this.pending.get(slotKey);
    if (!p) return;
    clearTimeout(p.timer);
    const wait = Math.max(0, p.end - Date.now()) + CHANNEL_WAIT_MS;
    p.timer = setTimeout(() => this.channelTimedOut(slotKey), wait);
  }

  /**
   * The slot's start was given up (create-channel tried until the window's
   * end): done without a channel, so that the end, on whichever instance,
   * reports the slot missed instead of waiting for a channel.
   */
  startFailed(slotKey: string, reason: string): void {
    const p = this.pending.get(slotKey);
    if (!p) return;
    this.pending.delete(slotKey);
    clearTimeout(p.timer);
    p.keeper.stop();
    this.finish(p, slotKey, 'start', { failed: reason });
  }

  private say(kind: 'log' | 'warn', text: string): void {
    this.out({ kind, text });
  }

  close(): void {
    this.closed = true;
    this.abort.abort();
    this.catchUp.close();
    // claims in flight are left to run out: a redeployed node does not know their tokens, and the other instance
    // takes them over with the same idempotency key
    for (const p of this.pending.values()) {
      clearTimeout(p.timer);
      p.keeper.stop();
    }
    this.pending.clear();
    this.unsubscribe();
  }

  /**
   * A re-record booking, made once across the instances: `won` for the instance that books it and says so,
   * `done` where another instance booked it first (this one plans the airing too, and its start is claimed
   * once as any other). The claim is keyed by the airing booked, so that every instance can look it up
   * (bookedElsewhere).
   */
  async claimBooking(booking: RerecordBooking): Promise<'won' | 'done'> {
    const coordinator = this.coordinator();
    const ref = bookingRef(booking);
    const deadline = Math.max(Date.now() + 10_000, booking.start);
    const result = await coordinator.claimUntil(ref, { deadline, signal: this.abort.signal });
    if (result.status !== 'won' && result.status !== 'done')
      throw new CoordinationError(
        'unavailable',
        `the booking's claim ${result.status === 'aborted' ? 'was given up' : 'stayed held by another instance'}`,
      );
    if (result.status === 'done') return 'done';
    // kept past the airing: an instance started days later still finds the booking done
    const done = await coordinator.complete(ref, result.token, booking, booking.end);
    return done.status === 'completed' ? 'won' : 'done';
  }

  /** The booking another instance made of this airing (a survivor plans what the instance that died booked). */
  async bookedElsewhere(airing: {
    slot: string;
    windowId: string;
    occurrence: string;
    start: number;
  }): Promise<unknown> {
    const record = await this.coordinator().getDone(bookingRef(airing));
    return record?.result;
  }

  private coordinator(): Coordinator {
    if (!this.provider) throw new CoordinationError('invalid_config', this.problem ?? 'no coordination node');
    return this.provider.getCoordinator();
  }

  private async runStart(event: StartEvent): Promise<void> {
    const { slot } = event;
    const coordinator = this.coordinator();
    this.endSeen(slot);
    const ref = slotRef(slot, 'start');
    const channel = this.localChannel(slot.key);
    const result = await this.claim(coordinator, ref, slot, slot.end, {
      locallyDone: channel === undefined ? false : { result: channel },
    });
    if (!result || this.closed) return;
    if (result.status === 'done') {
      this.adoptStart(slot, result.record);
      return;
    }
    this.setRole('leading', `leading: ${label(slot)}`, slot.end);
    const keeper = this.keep(coordinator, ref, result.token, slot, 'start');
    // not cut short by the window's end: the end waits for a start in flight (startRecord)
    const timer = setTimeout(() => this.channelTimedOut(slot.key), CHANNEL_WAIT_MS);
    this.pending.set(slot.key, { ref, token: result.token, keeper, timer, coordinator, end: slot.end });
    this.out({ kind: 'start', event });
  }

  private async runRestart(event: StartEvent & { restart: number }, act: () => void): Promise<void> {
    const { slot } = event;
    const coordinator = this.coordinator();
    // another instance ending the window (its end came first, a redeploy shortened it there) stops the recording:
    // that is the window's end, not an interruption
    const end = slotRef(slot, 'end');
    const probe = await coordinator.claim(end);
    if (probe.status === 'won') await coordinator.release(end, probe.token);
    else {
      this.say('log', `${slot.key}: the recording was stopped by the end of the window on another instance`);
      return;
    }
    const ref: SlotRef = { ...slotRef(slot, 'start'), phase: `restart:${event.restart}` };
    const result = await this.claim(coordinator, ref, slot, slot.end, { locallyDone: false });
    if (!result || this.closed) return;
    if (result.status === 'done') {
      this.adoptStart(slot, result.record);
      return;
    }
    this.setRole('leading', `leading: replacement of ${label(slot)}`, slot.end);
    const keeper = this.keep(coordinator, ref, result.token, slot, 'replacement');
    const timer = setTimeout(() => this.channelTimedOut(slot.key), CHANNEL_WAIT_MS);
    this.pending.set(slot.key, { ref, token: result.token, keeper, timer, coordinator, end: slot.end });
    act();
  }

  private async runEnd(original: EndEvent): Promise<void> {
    const event = await this.latestEnd(original);
    if (!event || this.closed) return;
    const { slot } = event;
    const coordinator = this.coordinator();
    const ref = slotRef(slot, 'end');
    // an end this instance sent before a restart (its message was kept) is done, whatever Redis remembers
    const sent = event.replay === true && isPlainObject(event.message) ? event.message : undefined;
    // this instance's journal holds the channel: Redis learns the start again if it lost it, so that
    // whichever instance ends the window finds the recording
    if (event.channel !== undefined) {
      await coordinator.claim(slotRef(slot, 'start'), { locallyDone: { result: event.channel } });
    }
    const result = await this.claim(coordinator, ref, slot, slot.end + END_GRACE_MS, {
      locallyDone: sent ? { result: { idempotency_key: sent.idempotency_key } } : false,
    });
    if (!result || this.closed) return;
    if (result.status === 'done') {
      this.setRole('standby', `standby: end of ${label(slot)} sent by ${result.record.instance}`, Date.now() + 5000);
      this.out({ kind: 'ended-elsewhere', slot });
      return;
    }
    const keeper = this.keep(coordinator, ref, result.token, slot, 'end');
    const start = event.channel === undefined ? await this.startRecord(coordinator, slot, keeper) : undefined;
    // a manual start (trigger command) is this instance's own: it never went through Redis
    const started =
      event.channel !== undefined ||
      start !== undefined ||
      slot.reason === 'manual' ||
      this.reads.startedAlone(slot.key);
    const failed = isPlainObject(start?.result) && typeof start.result.failed === 'string' ? start.result.failed : '';
    if (!started && !failed && Date.now() < slot.end + this.unstartedGraceMs(coordinator)) {
      // another instance may hold the channel in its journal (Redis lost the start): it gets the end
      keeper.stop();
      await coordinator.release(ref, result.token).catch(() => false);
      if (!(await pause(UNSTARTED_RETRY_MS, this.abort.signal))) return;
      return this.runEnd(event);
    }
    this.setRole('leading', `leading: end of ${label(slot)}`, Date.now() + 5000);
    const channel = event.channel ?? start?.result;
    // whether the slot recorded is the emitter's one decision (recorded.ts), told what Redis knows
    const coordinated = { started, ...(failed ? { failed } : {}) };
    this.out({
      kind: 'end',
      event: { ...event, channel },
      after: (sent, missed) => {
        keeper.stop();
        const done = { ref, token: result.token, coordinator };
        if (missed !== undefined) this.finish(done, slot.key, 'end', { missed });
        else if (sent) this.finish(done, slot.key, 'end', { sentAt: Date.now() });
        else void coordinator.release(ref, result.token).catch(() => false);
      },
      coordinated,
    });
  }

  /**
   * How long past the end an instance that knows of no start leaves the end to
   * others before it reports the window missed: long enough for one waiting
   * on the end claim to take it (they look again when a lease would end).
   */
  private unstartedGraceMs(coordinator: Coordinator): number {
    return coordinator.leaseMs * 1.5 + 5_000;
  }

  /** claim, and while another instance holds the step, stand by and claim again when its lease ends. */
  private async claim(
    coordinator: Coordinator,
    ref: SlotRef,
    slot: Slot,
    deadline: number,
    options: ClaimOptions,
  ): Promise<Exclude<ClaimResult, { status: 'held' }> | undefined> {
    const first = await coordinator.claim(ref, options);
    if (first.status !== 'held') return first;
    // our own claim, won by a command whose answer timed out (Redis stalled): it is ours to act on
    if (first.holder?.instance === coordinator.instanceId && (await coordinator.renew(ref, first.holder.token))) {
      this.say('log', `${slot.key}: the ${ref.phase} claim this instance won while Redis stalled is taken up`);
      return { status: 'won', token: first.holder.token, leaseMs: coordinator.leaseMs };
    }
    const holder = first.holder?.instance ?? 'another instance';
    this.setRole('standby', `standby: ${ref.phase} of ${label(slot)} held by ${holder}`, deadline);
    const next = await coordinator.claimUntil(ref, { ...options, deadline, signal: this.abort.signal });
    if (next.status === 'won') this.say('log', `${slot.key}: took the ${ref.phase} over from ${holder}`);
    // claimUntil returns only once nobody holds the step any more
    return next.status === 'won' || next.status === 'done' ? next : undefined;
  }

  private keep(coordinator: Coordinator, ref: SlotRef, token: number, slot: Slot, phase: string): LeaseKeeper {
    return coordinator.keepLease(ref, token, {
      onLost: () => this.say('warn', `${slot.key}: another instance took the ${phase} over (this one was too slow)`),
      onError: (err) => this.say('warn', `${slot.key}: cannot renew the ${phase} claim: ${err.message}`),
    });
  }

  private finish(p: Pick<PendingStart, 'ref' | 'token' | 'coordinator'>, key: string, phase: string, result: unknown) {
    p.coordinator.complete(p.ref, p.token, result).then(
      (done) => {
        if (done.status === 'lost')
          this.say('warn', `${key}: the ${phase} was completed or claimed by another instance`);
      },
      (err) => this.say('warn', `${key}: cannot record the ${phase} as done in Redis: ${messageOf(err)}`),
    );
  }

  /** The leader's channel did not come back in time: done without one, or (when channels come back) free for a retry. */
  private channelTimedOut(key: string): void {
    const p = this.pending.get(key);
    if (!p) return;
    this.pending.delete(key);
    p.keeper.stop();
    if (this.reads.scheduler()?.snapshot().routesChannels) {
      this.say('warn', `${key}: no channel came back; another instance may retry the start (same idempotency key)`);
      void p.coordinator.release(p.ref, p.token).catch(() => false);
    } else {
      this.finish(p, key, 'start', undefined);
    }
  }

  private adoptStart(slot: Slot, record: DoneRecord): void {
    this.setRole('standby', `standby: ${label(slot)} started by ${record.instance}`, slot.end);
    const channel = record.result;
    // the same test of a channel as the end's: an id to stop and read
    const adopted = channelWithId(channel);
    if (adopted) this.out({ kind: 'adopted', slot, channel: adopted });
  }

  /**
   * The start's done record; while another instance's start is still in
   * flight (a start caught up just before the end), waits for it. A probe
   * claim that wins means nobody started the slot: it is given back at once.
   */
  private async startRecord(
    coordinator: Coordinator,
    slot: Slot,
    keeper: LeaseKeeper,
  ): Promise<DoneRecord | undefined> {
    const ref = slotRef(slot, 'start');
    try {
      return await retryUntilDeadline({
        deadline: Date.now() + CHANNEL_WAIT_MS,
        attempt: async () => {
          const done = await coordinator.getDone(ref);
          if (done) return done;
          const probe = await coordinator.claim(ref);
          if (probe.status === 'done') return probe.record;
          if (probe.status === 'won') {
            await coordinator.release(ref, probe.token);
            return undefined;
          }
          throw new NotYet(probe.retryInMs);
        },
        decide: (error) =>
          error instanceof NotYet && !keeper.lost && !this.closed
            ? { retry: true, delayMs: Math.min(error.retryInMs, 250) }
            : { retry: false },
      });
    } catch (err) {
      // still held by a start in flight when the wait ran out (or the node closed): no channel to go with
      if (err instanceof NotYet) return undefined;
      this.say(
        'warn',
        `${slot.key}: cannot read the start from Redis (${messageOf(err)}); the end goes without a channel`,
      );
      return { instance: 'unknown', token: 0, completedAt: '' };
    }
  }

  private localChannel(key: string): unknown {
    return this.reads
      .scheduler()
      ?.activeSlots()
      .find((s) => s.key === key)?.channel;
  }

  /**
   * Runs a step. While Redis cannot be used (a timeout, a reconnect), the step
   * is tried again with capped backoff until the phase's deadline (the
   * window's end for start, 5 minutes past it for end): a stall is not the
   * end of a slot. Past the deadline, or at once for the `alone` policy, the
   * config node's policy applies: act alone, or skip (an end skipped that way
   * is reported missed).
   */
  private async guarded(event: StartEvent | EndEvent, phase: 'start' | 'end', step: () => Promise<void>) {
    const deadline = phase === 'start' ? event.slot.end : event.slot.end + END_GRACE_MS;
    const alone = () => this.policy === 'alone' && this.provider !== undefined;
    let tries = 0;
    try {
      await retryUntilDeadline({
        deadline,
        signal: this.abort.signal,
        attempt: async (n) => {
          tries = n;
          await step();
        },
        decide: (err, n) => {
          return isTransientCoordinationError(err) && !alone() && !this.closed
            ? { retry: true, delayMs: doublingDelay(n, REDIS_RETRY_FIRST_MS, REDIS_RETRY_MAX_MS) }
            : { retry: false };
        },
        retrying: (err, n) => {
          if (n === 1) {
            this.say(
              'warn',
              `${event.slot.key}: Redis coordination unusable (${messageOf(err)}): the ${phase} is tried again until ${isoSeconds(deadline)}`,
            );
          }
          this.setRole('unreachable', `Redis unreachable: retrying the ${phase} of ${label(event.slot)}`, deadline);
        },
      });
      if (tries > 1) this.say('log', `${event.slot.key}: ${phase} went through Redis after ${tries} tries`);
    } catch (err) {
      if (this.closed || this.abort.signal.aborted) return;
      if (!(err instanceof CoordinationError)) {
        this.say('warn', `${event.slot.key}: ${phase} failed: ${messageOf(err)}`);
        return;
      }
      this.unusable(event, phase, err, alone());
    }
  }

  /** Redis could not be used in time: the config node's policy. */
  private unusable(event: StartEvent | EndEvent, phase: 'start' | 'end', err: CoordinationError, alone: boolean) {
    const skipped =
      phase === 'start'
        ? 'start skipped by this instance (another may have started it before Redis stalled)'
        : 'end skipped: nothing stopped or followed up by this instance';
    this.say(
      'warn',
      `${event.slot.key}: Redis coordination unusable (${err.message}): ${alone ? `${phase} sent by this instance alone` : skipped}`,
    );
    this.setRole(
      'unreachable',
      alone ? 'Redis unreachable: acting alone' : 'Redis unreachable: skipping slots',
      event.slot.end,
    );
    if (phase === 'start') {
      if (!alone) return;
      this.out({ kind: 'start', event });
      this.out({ kind: 'started-alone', key: event.slot.key });
    } else if (alone) {
      this.out({ kind: 'end', event, after: () => undefined });
    } else {
      const reason = `Redis coordination unusable until past the end (${err.message})`;
      this.out({ kind: 'missed', event, why: 'coordination', reason });
    }
  }

  private setRole(kind: SlotRole['kind'], text: string, until: number): void {
    this.role = { kind, text, until };
    this.out({ kind: 'changed' });
  }
}

/**
 * Slots of one window of one schedule share the part of the key before the occurrence id; a listed occurrence
 * (calendar, guide) is named by its id, a cron one by its time, as before.
 */
function scheduleOf(slot: Slot): string {
  const suffix = `:${occurrenceOf(slot)}`;
  return slot.key.endsWith(suffix) ? slot.key.slice(0, -suffix.length) : `${slot.key}#${slot.windowId}`;
}

/**
 * A re-record booking's claim: the airing booked (its occurrence id, so that every instance finds it), phase
 * `rerecord`, under a name of the window's own (`<schedule id>:<window id>#rerecords`: ids hold no `#`), so
 * that a booking of an airing days ahead moves no mark the window's catch-up reads (the high-water mark).
 */
function bookingRef(b: { slot: string; windowId: string; occurrence: string; start: number }): SlotRef {
  const slot: Slot = {
    key: b.slot,
    windowId: b.windowId,
    start: b.start,
    end: b.start,
    reason: 'scheduled',
    occurrence: b.occurrence,
  };
  return { ...slotRef(slot, 'start'), schedule: `${scheduleOf(slot)}#rerecords`, phase: 'rerecord' };
}

function slotRef(slot: Slot, phase: 'start' | 'end'): SlotRef {
  return {
    schedule: scheduleOf(slot),
    slot: slot.start,
    phase,
    ...(slot.occurrence !== undefined ? { occurrence: slot.occurrence } : {}),
  };
}

function label(slot: Slot): string {
  return `${slot.windowId} ${isoSeconds(slot.start).slice(11, 19)}`;
}

/**
 * The token of a claim this instance won by a command whose answer timed out (Redis stalled, then went on):
 * its own to complete, rather than to wait out while other instances wait to take it over.
 */
async function ownStalledClaim(
  coordinator: Coordinator,
  ref: SlotRef,
  holder: HeldBy | undefined,
): Promise<number | undefined> {
  if (holder?.instance !== coordinator.instanceId) return undefined;
  return (await coordinator.renew(ref, holder.token)) ? holder.token : undefined;
}

/** One name per report's claim, whatever the order of the ref's fields. */
function claimId(ref: SlotRef): string {
  return JSON.stringify([ref.schedule, ref.slot, ref.occurrence, ref.phase]);
}

/** Resolves true after `ms`, false at once when the signal aborts. */
function pause(ms: number, signal: AbortSignal): Promise<boolean> {
  return sleep(ms, signal).then(
    () => true,
    () => false,
  );
}

function messageOf(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

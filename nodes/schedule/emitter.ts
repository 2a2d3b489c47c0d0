import { MediaSpacesError } from '../../lib/errors';
import { isPlainObject } from '../../lib/guards';
import {
  buildEndMessage,
  buildStartMessage,
  type EndEvent,
  type EndMessage,
  isoSeconds,
  occurrenceName,
  type Scheduler,
  type ScheduleWindow,
  type Slot,
  type StartEvent,
  windowInfo,
} from '../../lib/schedule';
import { type Channel, gapView, type SlotLives } from '../../lib/schedule/slot-lives';
import { asMediaSpacesError, failMessage } from '../shared/failure';
import type { NodeMessage } from '../shared/node-red-types';
import { clientFor } from '../shared/server-client';
import { type MissedWhy, missedReport, missedSentence, outcomeOfMiss, raisesError } from './missed';
import { type RecordingFacts, recordedVerdict } from './recorded';
import { endRecording, STOP_GRACE_MS } from './recording-end';
import type { ScheduleSettings } from './settings';
import type { ScheduleAPI, ScheduleNode } from './types';

/** What the emitter reads from the node it works for. */
interface EmitterHost {
  readonly scheduler: Scheduler | undefined;
  readonly closed: boolean;
  readonly lives: SlotLives;
  /** aborted when the node closes */
  readonly signal: AbortSignal;
  scheduleId(): string;
}

/** Whether the end was dealt with; `missed` the reason when the slot was reported missed instead. */
type Delivered = (sent: boolean, missed?: string) => void;
const ignore: Delivered = () => undefined;

/** What a conflict's loser says when it starts late, once a channel freed up. */
export const FREED_REASON = 'started after a channel freed up';

/** How long a follow-up's workflow name stays resolved to an id. */
const WORKFLOW_CACHE_MS = 300_000;

/**
 * Turns the scheduler's starts and ends into messages: output 1 a
 * create-channel request; at the end, the recording stopped and, once it has
 * finished, output 2 a submit-job request carrying the final channel (the
 * workflow name looked up); or, for a window that recorded nothing, a
 * `missed` report on output 3 and an error for Catch nodes.
 */
export class Emitter {
  private readonly workflowIds = new Map<string, { id: string; at: number }>();

  constructor(
    private readonly RED: ScheduleAPI,
    private readonly node: ScheduleNode,
    private readonly settings: ScheduleSettings,
    private readonly host: EmitterHost,
  ) {}

  /** Every start, timed, caught up, replayed or manual (a trigger message, the sidebar's Start now), comes here. */
  emitStart({ slot, window, replay, msgid, restart, freed }: StartEvent): void {
    const msg: NodeMessage = { ...buildStartMessage(this.host.scheduleId(), window, slot) };
    if (replay) msg.replay = true;
    if (msgid) msg._msgid = msgid;
    if (restart) {
      // a replacement of an interrupted recording: a channel of its own, under a key of its own
      msg.idempotency_key = `${slot.key}:restart:${restart}`;
      msg.window = { ...(msg.window as object), restart };
    }
    if (freed) {
      msg.freed = true;
      this.host.lives.starting(slot, FREED_REASON);
      // said on output 3 with the start itself: the loser of a conflict records, late
      const info = windowInfo(window, slot);
      const report = {
        topic: 'channel_freed',
        payload: {
          slot: slot.key,
          name: occurrenceName(window.name, slot.programme),
          reason: FREED_REASON,
          late_s: Math.max(0, Math.round((Date.now() - slot.start) / 1000)),
          window: info,
        },
        window: info,
      };
      this.node.send([msg, null, report]);
      return;
    }
    this.host.lives.starting(slot);
    this.node.send([msg, null, null]);
  }

  /**
   * The start still fails `alarm_after` into the window: said once on output 3, while an operator can still
   * act; the final missed report (or the recording) follows as usual.
   */
  emitStartFailing(slot: Slot, window: ScheduleWindow, failure: { attempts: number; reason: string }): void {
    const info = windowInfo(window, slot);
    const since = Math.round((Date.now() - slot.start) / 1000);
    this.node.send([
      null,
      null,
      {
        topic: 'start_failing',
        payload: { slot: slot.key, attempts: failure.attempts, reason: failure.reason, since_s: since, window: info },
        window: info,
      },
    ]);
  }

  /**
   * The recording stopped before the window's end: a report on output 3 and one error for Catch nodes per
   * interruption; the replacement is asked for through the one start path.
   */
  emitInterrupted(slot: Slot, window: ScheduleWindow, channel: { id: string }, why: string, n: number): void {
    const info = windowInfo(window, slot);
    const report = {
      topic: 'interrupted',
      payload: {
        slot: slot.key,
        name: occurrenceName(window.name, slot.programme),
        channel_id: channel.id,
        reason: why,
        restart: n,
        window: info,
      },
      window: info,
    };
    this.node.send([null, null, report]);
    const error = new MediaSpacesError({
      code: 'interrupted',
      message: `recording of "${occurrenceName(window.name, slot.programme)}" at ${isoSeconds(slot.start)} interrupted: ${why}; a new channel is being created`,
    });
    failMessage(this.node, structuredClone(report), error.toJSON());
    this.emitStart({ slot, window, restart: n });
  }

  /**
   * A slot that recorded nothing: a report on output 3 and, unless an operator
   * chose it or create-channel already raised it, an error for Catch nodes.
   */
  emitMissed(
    { slot, window }: Pick<EndEvent, 'slot' | 'window'>,
    why: MissedWhy,
    reason: string,
    /** how the report goes out when it is not this instance's alone (a cancellation every instance reads) */
    tell: (send: () => void) => void = (send) => send(),
  ): void {
    const attempts = this.host.lives.attempts(slot.key);
    this.host.lives.missed(slot, outcomeOfMiss(why), reason);
    const report = missedReport(window, slot, why, reason, attempts);
    tell(() => this.node.send([null, null, report]));
    if (!raisesError(why)) return;
    const error = new MediaSpacesError({ code: 'missed', message: missedSentence(window, slot, reason) });
    failMessage(this.node, structuredClone(report), error.toJSON());
  }

  /**
   * The end of a slot: the recording stopped and finished, then the
   * follow-up; or the missed report when nothing was recorded. `after` learns
   * whether the slot's end was dealt with (coordination completes or releases
   * the slot's end with it).
   */
  emitEnd(event: EndEvent, after: Delivered = ignore, coordinated?: RecordingFacts['coordinated']): void {
    if (event.replay && isPlainObject(event.message)) {
      // the very message sent before the restart: same body, same idempotency key
      this.node.send([null, { ...structuredClone(event.message), replay: true }, null]);
      this.host.lives.replayed(event.slot, event.channel);
      after(true);
      return;
    }
    const verdict = recordedVerdict({
      channel: event.channel,
      earlier: event.earlier,
      startFailure: event.startFailure,
      heard: this.host.lives.heardOf(event.slot.key),
      routesChannels: this.host.scheduler?.routesChannels === true,
      coordinated,
    });
    if (verdict.kind === 'missed') {
      this.emitMissed(event, verdict.why, verdict.reason);
      after(true, verdict.reason);
      return;
    }
    if (verdict.kind === 'unknown') {
      this.sendEnd(event, after);
      return;
    }
    const segments = verdict.segments;
    if (!this.settings.server) {
      const last = segments[segments.length - 1];
      this.sendEnd({ ...event, channel: last }, after, 'no server in the schedule node: the recording was not stopped');
      return;
    }
    this.finishRecording(event, segments, after);
  }

  /**
   * Stops the recording of every segment (unless the window keeps it), waits until each has finished, then
   * sends the follow-up with the last as its channel and all of them, in order, as its segments.
   */
  private finishRecording(event: EndEvent, segments: Channel[], after: Delivered): void {
    const { slot, window } = event;
    const channel = segments[segments.length - 1];
    let client: ReturnType<typeof clientFor>;
    try {
      client = clientFor(this.RED, this.settings.server, 'liveCapture');
    } catch (err) {
      // a server node gone or unusable: the follow-up still goes, and says why nothing was stopped
      const reason = asMediaSpacesError(err, 'Stop recording').message;
      this.node.warn(`${slot.key}: the recording was not stopped: ${reason}`);
      this.sendEnd(event, after, `the recording was not stopped: ${reason}`);
      return;
    }
    this.host.lives.stopping(slot, channel);
    const last = segments.length - 1;
    const ends = segments.map((segment, i) =>
      endRecording({
        client,
        channel: segment,
        atEnd: window.at_end ?? 'stop',
        stopDeadline: slot.end + STOP_GRACE_MS,
        // the first channel keeps the key of slots recorded before interruptions were followed
        stopKey: i === 0 ? `${slot.key}:stop` : `${slot.key}:restart:${i}:stop`,
        signal: this.host.signal,
        stopped: i === last ? (now, refused) => this.host.lives.finishing(slot, now, refused) : undefined,
      }),
    );
    Promise.all(ends).then(
      (ended) => {
        if (this.host.closed) return after(false);
        const notes = ended.flatMap((e) => e.note ?? []);
        const note = notes.length > 0 ? notes.join('; ') : undefined;
        if (note && window.at_end !== 'keep') this.node.warn(`${slot.key}: ${note}`);
        const final = ended.map((e) => e.channel);
        this.sendEnd({ ...event, channel: final[last] }, after, note, final);
      },
      () => after(false),
    );
  }

  private sendEnd(
    { slot, window, channel, replay, gaps }: EndEvent,
    after: Delivered,
    note?: string,
    segments?: unknown[],
  ): void {
    const msg: EndMessage & NodeMessage = {
      ...buildEndMessage(this.host.scheduleId(), window, slot, channel, segments),
    };
    const interrupted = this.host.lives.view(slot.key)?.gaps ?? gaps ?? [];
    if (interrupted.length > 0) {
      msg.partial = true;
      msg.gaps = interrupted.map(gapView);
    }
    if (replay) msg.replay = true;
    if (msg.unresolved) {
      this.node.warn(
        `${slot.key}: ${channel === undefined ? 'no channel came back for this window; ' : ''}` +
          `templates left empty: ${msg.unresolved.join(', ')}`,
      );
    }
    if (note) msg.note = note;
    if (msg.workflow === undefined || msg.workflow_id !== undefined) {
      this.deliverEnd(slot, msg, channel, note);
      after(true);
      return;
    }
    this.resolveWorkflow(msg.workflow).then(
      (id) => {
        if (this.host.closed) return after(false);
        msg.workflow_id = id;
        this.deliverEnd(slot, msg, channel, note);
        after(true);
      },
      (err) => {
        after(false);
        if (this.host.closed) return;
        const failure = asMediaSpacesError(err, `Schedule end of ${slot.key}`);
        this.host.lives.finished(slot, channel, `no follow-up: ${failure.message}`);
        failMessage(this.node, msg, failure.toJSON());
      },
    );
  }

  /** Sends the end, kept with the slot for the replay period so a replay after a crash sends this very request. */
  private deliverEnd(slot: Slot, msg: NodeMessage, channel: unknown, note: string | undefined): void {
    const { replay: _flag, ...plain } = msg;
    this.host.scheduler?.rememberEnd(slot.key, JSON.parse(JSON.stringify(plain)));
    this.host.lives.finished(slot, channel, note);
    this.node.send([null, msg, null]);
  }

  /** A follow-up's workflow name to its id, through the optional config node (cached 5 minutes). */
  private async resolveWorkflow(name: string): Promise<string> {
    const cached = this.workflowIds.get(name);
    if (cached && Date.now() - cached.at < WORKFLOW_CACHE_MS) return cached.id;
    if (!this.settings.server) {
      throw MediaSpacesError.invalidInput(
        `followup.workflow "${name}" is a name: choose a server in the schedule node to look it up, or give workflow_id`,
        { 'followup.workflow': 'needs a server to look up' },
      );
    }
    const all = await clientFor(this.RED, this.settings.server, 'workflow').listAllWorkflows();
    const matches = all.filter((w) => w.name === name);
    const chosen = matches.find((w) => w.status === 'active') ?? matches[0];
    if (!chosen) {
      throw MediaSpacesError.invalidInput(`no workflow named "${name}" in the space`, {
        'followup.workflow': 'not found',
      });
    }
    this.workflowIds.set(name, { id: chosen.id, at: Date.now() });
    return chosen.id;
  }
}

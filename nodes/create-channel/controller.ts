import type { MediaSpacesClient } from '../../lib/client';
import { MediaSpacesError } from '../../lib/errors';
import { isPlainObject } from '../../lib/guards';
import { reportStart } from '../../lib/schedule/slot-starts';
import type { RetryNotice } from '../../lib/transport';
import { resolveInputs } from '../shared/inputs';
import type { Node, NodeAPI, NodeDef, NodeMessage } from '../shared/node-red-types';
import { Handover } from '../shared/node-state';
import { type OperationContext, type Outcome, respond, runOperationNode } from '../shared/operation';
import { failureStatus } from '../shared/request-status';
import { clientFor } from '../shared/server-client';
import { channelRequest } from './channel-request';
import { FIELDS } from './fields';
import { CREATE_INPUTS, CreateChannelSettings, WatchSettings } from './settings';
import { ChannelStateWatch, type WatchHandover } from './state-watch';

/**
 * A "Show state" watch handed from a node closed by a redeploy to its successor: Node-RED clears
 * the badge of every node it restarts, so without it a recording channel's badge (and its reads,
 * and its state messages) ended at a full redeploy.
 */
const handovers = new Handover<WatchHandover>();

/** How often a created channel's state is read on its way to recording (or out of it), and for how long at most. */
const WATCH_INTERVAL_MS = 1000;
const WATCH_LIMIT_MS = 120_000;
/**
 * A recording channel is read every 10 s (as a schedule reads its channels for the sidebar) until it
 * leaves RECORDING: for 12 hours at most, or a schedule's until 10 minutes past its window's end (the
 * schedule tries its stop for 5 minutes past the end and waits up to 2 more for the recording to finish).
 */
const RECORDING_INTERVAL_MS = 10_000;
const RECORDING_LIMIT_MS = 12 * 3_600_000;
const RECORDING_GRACE_MS = 10 * 60_000;

/** The node's runtime, from its deploy on; with "Show state", a watch of each created channel. */
export function start(RED: NodeAPI, node: Node & { send(msg: unknown): void }, def: NodeDef): void {
  const watched = WatchSettings.safeParse(def);
  let watch: ChannelStateWatch | undefined;
  if (watched.success && watched.data.watchState) {
    watch = new ChannelStateWatch({
      intervalMs: WATCH_INTERVAL_MS,
      limitMs: WATCH_LIMIT_MS,
      recordingIntervalMs: RECORDING_INTERVAL_MS,
      recordingLimitMs: RECORDING_LIMIT_MS,
      recordingGraceMs: RECORDING_GRACE_MS,
      send: (msg) => node.send([null, msg]),
      status: (status) => node.status(status),
      warn: (text) => node.warn(text),
    });
  }
  runOperationNode(RED, node, def, {
    context: 'Create channel',
    area: 'liveCapture',
    settings: CreateChannelSettings,
    fields: FIELDS,
    perform: (msg, ctx) => createChannel(msg, ctx, watch),
  });
  const previous = handovers.take(node.id);
  if (watch && previous) resumeWatch(RED, def.server, watch, previous);
  const warming = setImmediate(() => warmClient(RED, def.server));
  node.on('close', (removed, done) => {
    clearImmediate(warming);
    if (watch && !removed) handovers.keep(node.id, watch.handover());
    watch?.close();
    done();
  });
}

/** A predecessor's watch taken on, through this node's server (its badge shown again even without one). */
function resumeWatch(RED: NodeAPI, serverId: unknown, watch: ChannelStateWatch, previous: WatchHandover): void {
  let client: MediaSpacesClient | undefined;
  try {
    client = clientFor(RED, serverId, 'liveCapture');
  } catch {
    // no usable server now: the last badge stands, nothing more is read
  }
  watch.resume(client, previous);
}

/**
 * Builds the config node's client (and so loads its HTTP stack) just after the deploy rather than on the
 * first message. That first message is usually a schedule's start: with dozens of windows opening at the
 * same second, loading undici (70 to 200 ms, synchronous) inside the first one held every other start
 * back by as much (bench/top-of-hour.mjs). Nothing is reported here: the first message reports a
 * missing or broken config as usual.
 */
function warmClient(RED: NodeAPI, serverId: unknown): void {
  try {
    clientFor(RED, serverId, 'liveCapture');
  } catch {
    // the first message says what is wrong
  }
}

/** The schedule slot a start message is for: its key, its start and its end (the deadline), epoch ms. */
interface ScheduledSlot {
  key: string;
  start: number;
  end: number;
}

/**
 * Creates one channel. A schedule's start message (msg.window with its slot
 * key and end) is tried until the window's end rather than the config node's
 * number of retries: a recording that can still start is worth every attempt
 * (same Idempotency-Key, capped backoff), and the schedule hears of each
 * attempt, of the channel and of a start given up (lib/schedule/slot-starts).
 */
export async function createChannel(
  msg: NodeMessage,
  ctx: OperationContext<CreateChannelSettings>,
  watch: ChannelStateWatch | undefined,
): Promise<Outcome> {
  const { RED, node, settings, client, signal, progress } = ctx;
  const { idempotencyKey } = await resolveInputs(RED, node, msg, {}, CREATE_INPUTS);
  if (msg.topic === 'stop') return stopRecording(msg, ctx, idempotencyKey, watch);
  const request = channelRequest(settings, msg.payload);
  const slot = scheduledSlot(msg);
  if (!slot) {
    const response = await client.createChannel(request, { idempotencyKey, signal });
    watch?.follow(client, response.data, msg);
    return respond(msg, response, summary(client.channelState(response.data)));
  }
  let attempts = 1;
  const onRetry = (notice: RetryNotice) => {
    attempts = notice.attempt + 1;
    const reason = failureStatus(notice.error);
    progress(`starting, attempt ${attempts}: ${reason}`);
    reportStart(slot.key, { kind: 'attempt', attempt: attempts, reason, retryInMs: notice.delayMs });
  };
  // the schedule's end waits for this answer when it comes first (a start caught up just before the end)
  reportStart(slot.key, { kind: 'requesting' });
  try {
    const response = await client.createChannel(request, { idempotencyKey, signal, deadline: slot.end, onRetry });
    const lateMs = Math.max(0, Date.now() - slot.start);
    msg.window = { ...(msg.window as Record<string, unknown>), late_ms: lateMs, attempts: response.attempts };
    reportStart(slot.key, { kind: 'started', channel: response.data, attempts: response.attempts, lateMs });
    watch?.follow(client, response.data, msg);
    const state = client.channelState(response.data);
    return respond(
      msg,
      response,
      lateMs >= 1000 ? `${summary(state)}, ${Math.round(lateMs / 1000)} s late` : summary(state),
    );
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    reportStart(slot.key, { kind: 'failed', reason, attempts });
    if (!(error instanceof MediaSpacesError) || attempts < 2) throw error;
    throw new MediaSpacesError({
      status: error.status,
      code: error.code,
      message: `${reason} (after ${attempts} attempts; the start of ${slot.key} was given up)`,
      fieldErrors: error.fieldErrors,
      traceId: error.traceId,
    });
  }
}

/**
 * `msg.topic` "stop": ends the recording of the channel `msg.channel_id` (or
 * the channel on msg.payload, as this node sends it), through the stop
 * extension; a channel meant to record only for a while is not left running.
 */
async function stopRecording(
  msg: NodeMessage,
  { client, signal }: OperationContext<CreateChannelSettings>,
  idempotencyKey: string | undefined,
  watch: ChannelStateWatch | undefined,
): Promise<Outcome> {
  const id =
    typeof msg.channel_id === 'string'
      ? msg.channel_id
      : isPlainObject(msg.payload) && typeof msg.payload.id === 'string'
        ? msg.payload.id
        : undefined;
  if (!id) {
    throw MediaSpacesError.invalidInput('a "stop" message needs msg.channel_id (or the channel on msg.payload)', {
      channel_id: 'is required to stop a recording',
    });
  }
  const response = await client.stopChannel(id, { idempotencyKey, signal });
  // the status goes on from "stopped" as the recording finishes, FINISHING_RECORDING -> INACTIVE
  watch?.follow(client, response.data, msg);
  return respond(msg, response, `stopped: ${summary(client.channelState(response.data))}`);
}

function summary(state: string | undefined): string {
  return state ? `channel ${state}` : 'channel created';
}

/** The slot of a schedule's start message whose window is still open; undefined for any other message. */
function scheduledSlot(msg: NodeMessage): ScheduledSlot | undefined {
  const window = msg.window;
  if (!isPlainObject(window) || typeof window.slotKey !== 'string') return undefined;
  const start = typeof window.start === 'string' ? Date.parse(window.start) : Number.NaN;
  const end = typeof window.end === 'string' ? Date.parse(window.end) : Number.NaN;
  if (Number.isNaN(start) || Number.isNaN(end) || end <= Date.now()) return undefined;
  return { key: window.slotKey, start, end };
}

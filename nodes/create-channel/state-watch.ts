import type { MediaSpacesClient } from '../../lib/client';
import { isPlainObject } from '../../lib/guards';
import { CHANNEL_STATES } from '../../lib/schemas';
import { ChannelStatePoller, type WatchedChannel } from '../../lib/watch/channel-state';
import { asMediaSpacesError } from '../shared/failure';
import type { NodeMessage, NodeStatus } from '../shared/node-red-types';

/** States after which nothing more happens to a channel: it will not record (again). */
const FINAL: ReadonlySet<string> = new Set(['INACTIVE', 'ERROR']);
/** States a channel on its way (to recording, or out of it) may arrive at. */
const ARRIVED: ReadonlySet<string> = new Set(['RECORDING', ...FINAL]);
/** Every state but RECORDING: a recording channel is read until it leaves it. */
const LEFT_RECORDING: ReadonlySet<string> = new Set(CHANNEL_STATES.filter((s) => s !== 'RECORDING'));

interface StateWatchOptions {
  /** Time between two reads of a channel on its way (PENDING, ACTIVE, FINISHING_RECORDING). */
  intervalMs: number;
  /** A channel on its way that has not arrived after this long is no longer read. */
  limitMs: number;
  /** Time between two reads of a recording channel: it records for hours, and leaves that state when stopped. */
  recordingIntervalMs: number;
  /** A recording channel is read for this long at most, unless it is a schedule's: */
  recordingLimitMs: number;
  /** a schedule's recording channel is read until this long past its window's end (msg.window.end). */
  recordingGraceMs: number;
  /** Output 2: one message per state change. */
  send(msg: NodeMessage): void;
  status(status: NodeStatus): void;
  warn(text: string): void;
}

/**
 * What a watch hands to its successor on a redeploy: the badge it showed last and each channel it
 * still read, without the client (the successor reads them through its own config node's).
 */
export interface WatchHandover {
  status: NodeStatus | undefined;
  latest: string | undefined;
  channels: { id: string; state: string | undefined; window: Record<string, unknown> | undefined; end?: number }[];
}

interface Followed {
  client: MediaSpacesClient;
  /** The input's msg.window (a schedule's), copied onto each state message. */
  window: Record<string, unknown> | undefined;
  /** A schedule's window end (epoch ms): the recording is stopped then. */
  end: number | undefined;
}

/**
 * Follows each created channel's state through the get-channel extension
 * (the described operations create a channel but never read one back), so
 * the status shows PENDING -> ACTIVE -> RECORDING as the service moves it,
 * and on once the recording is stopped (by a schedule at its window's end,
 * by a "stop" message, or elsewhere): FINISHING_RECORDING -> INACTIVE. A
 * channel on its way is read every `intervalMs`, a recording one every
 * `recordingIntervalMs`, each for a bounded time; `close` ends every read.
 * The badge follows the channel created last; every change of every watched
 * channel goes out on output 2.
 */
export class ChannelStateWatch {
  private readonly moving: ChannelStatePoller<Followed>;
  private readonly recording: ChannelStatePoller<Followed>;
  private latest: string | undefined;
  /** The badge shown last, handed over on a redeploy. */
  private shown: NodeStatus | undefined;
  private readonly options: StateWatchOptions;

  constructor(options: StateWatchOptions) {
    this.options = {
      ...options,
      status: (status) => {
        this.shown = status;
        options.status(status);
      },
    };
    this.moving = this.poller(options.intervalMs, (watch) => {
      const seconds = Math.round(options.limitMs / 1000);
      return { fill: 'yellow', shape: 'ring', text: `channel ${watch.state ?? '?'} after ${seconds}s` };
    });
    // no longer read: when it was last seen recording (a grey ring), not that it records (a green dot);
    // no longer than the FINISHING_RECORDING badge, so a flow laid out for that one keeps its room
    this.recording = this.poller(options.recordingIntervalMs, () => ({
      fill: 'grey',
      shape: 'ring',
      text: `channel RECORDING at ${clock(new Date())}`,
    }));
  }

  /** Reads channels every `intervalMs`; `limited` is the badge of the latest channel once its limit ends the reads. */
  private poller(
    intervalMs: number,
    limited: (watch: WatchedChannel<Followed>) => NodeStatus,
  ): ChannelStatePoller<Followed> {
    return new ChannelStatePoller<Followed>({
      intervalMs,
      read: async (id, signal, { client }) => (await client.getChannel(id, { signal })).data,
      stateOf: (channel, { client }) => client.channelState(channel),
      onChange: (id, state, channel, watch) => this.changed(id, state, channel, watch),
      onError: (error, watch) => {
        const failure = asMediaSpacesError(error, 'Get channel');
        this.options.warn(
          `Reading channel ${watch.id} back: ${failure.message}; its state is no longer shown ` +
            '(turn off "Show state" if the service has no get-channel)',
        );
        return true;
      },
      onLimit: (watch) => {
        if (this.latest === watch.id) this.options.status(limited(watch));
      },
    });
  }

  follow(client: MediaSpacesClient, channel: unknown, origin: NodeMessage): void {
    if (!isPlainObject(channel) || typeof channel.id !== 'string') return;
    const window = copyOf(origin.window);
    const end = typeof window?.end === 'string' ? Date.parse(window.end) : Number.NaN;
    const followed: Followed = { client, window, end: Number.isNaN(end) ? undefined : end };
    this.latest = channel.id;
    this.route(channel.id, client.channelState(channel), followed);
  }

  close(): void {
    this.moving.close();
    this.recording.close();
  }

  /** What the successor of this node (a redeploy) takes on: see `resume`. */
  handover(): WatchHandover {
    const channels = [...this.moving.watched(), ...this.recording.watched()].map(({ id, state, context }) => ({
      id,
      state,
      window: context.window,
      ...(context.end !== undefined ? { end: context.end } : {}),
    }));
    return { status: this.shown, latest: this.latest, channels };
  }

  /**
   * Takes on a predecessor's watch (a redeploy closed it): its badge is shown again at once, and each
   * channel it still read is read on through `client` (none: no usable server, nothing read), at the
   * pace its last state calls for.
   */
  resume(client: MediaSpacesClient | undefined, from: WatchHandover): void {
    this.latest = from.latest;
    if (from.status) this.options.status(from.status);
    if (!client) return;
    for (const channel of from.channels) {
      this.route(channel.id, channel.state, { client, window: channel.window, end: channel.end });
    }
  }

  /** Reads a channel at the pace its state calls for, or no more once it will not record (again). */
  private route(id: string, state: string | undefined, context: Followed): void {
    this.moving.unwatch(id);
    this.recording.unwatch(id);
    if (state !== undefined && FINAL.has(state)) return;
    if (state === 'RECORDING') {
      const limitMs =
        context.end === undefined
          ? this.options.recordingLimitMs
          : Math.max(0, context.end + this.options.recordingGraceMs - Date.now());
      this.recording.watch(id, { context, state, settled: LEFT_RECORDING, limitMs });
      return;
    }
    this.moving.watch(id, {
      context,
      settled: ARRIVED,
      limitMs: this.options.limitMs,
      ...(state !== undefined ? { state } : {}),
    });
  }

  private changed(id: string, state: string, channel: Record<string, unknown>, watch: WatchedChannel<Followed>): void {
    if (this.latest === id) this.options.status(stateStatus(state));
    const msg: NodeMessage = { topic: 'channel-state', payload: channel, channel_id: id, state };
    if (watch.state !== undefined) msg.previous_state = watch.state;
    // a schedule's window, so a flow can tell which recording this is
    if (watch.context.window) msg.window = structuredClone(watch.context.window);
    this.options.send(msg);
    // the poller that read it lets go of a channel that arrived; the other one takes it on
    if (state === 'RECORDING' || (watch.state === 'RECORDING' && !FINAL.has(state))) {
      queueMicrotask(() => this.route(id, state, watch.context));
    }
  }
}

/** "14:05" in the runtime's zone. */
function clock(date: Date): string {
  return date.toTimeString().slice(0, 5);
}

/** The badge for a channel state: green while recording, red on ERROR, blue on the way. */
function stateStatus(state: string): NodeStatus {
  if (state === 'RECORDING') return { fill: 'green', shape: 'dot', text: 'channel RECORDING' };
  if (state === 'ERROR') return { fill: 'red', shape: 'ring', text: 'channel ERROR' };
  if (state === 'INACTIVE' || state === 'DRAFT') return { fill: 'grey', shape: 'ring', text: `channel ${state}` };
  return { fill: 'blue', shape: 'ring', text: `channel ${state}` };
}

function copyOf(value: unknown): Record<string, unknown> | undefined {
  if (!isPlainObject(value)) return undefined;
  try {
    return structuredClone(value);
  } catch {
    // a window holding functions or the like is the flow's own business, not a state message's
    return undefined;
  }
}

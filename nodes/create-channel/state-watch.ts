import type { MediaSpacesClient } from '../../lib/client';
import { isPlainObject } from '../../lib/guards';
import { ChannelStatePoller, type WatchedChannel } from '../../lib/watch/channel-state';
import { asMediaSpacesError } from '../shared/failure';
import type { NodeMessage, NodeStatus } from '../shared/node-red-types';

/**
 * States after which nothing more happens on its own: the recording has
 * begun (it runs until stopped), or the channel will not record.
 */
const SETTLED: ReadonlySet<string> = new Set(['RECORDING', 'INACTIVE', 'ERROR']);

export interface StateWatchOptions {
  /** Time between two reads of one channel. */
  intervalMs: number;
  /** A channel that has not settled after this long is no longer read. */
  limitMs: number;
  /** Output 2: one message per state change. */
  send(msg: NodeMessage): void;
  status(status: NodeStatus): void;
  warn(text: string): void;
}

interface Followed {
  client: MediaSpacesClient;
  /** The input's msg.window (a schedule's), copied onto each state message. */
  window: Record<string, unknown> | undefined;
}

/**
 * Follows each created channel's state through the get-channel extension
 * (the described operations create a channel but never read one back), so
 * the status shows PENDING -> ACTIVE -> RECORDING as the service moves it.
 * The badge follows the channel created last; every change of every watched
 * channel goes out on output 2.
 */
export class ChannelStateWatch {
  private readonly poller: ChannelStatePoller<Followed>;
  private latest: string | undefined;

  constructor(private readonly options: StateWatchOptions) {
    this.poller = new ChannelStatePoller<Followed>({
      intervalMs: options.intervalMs,
      read: async (id, signal, { client }) => (await client.getChannel(id, { signal })).data,
      stateOf: (channel, { client }) => client.channelState(channel),
      onChange: (id, state, channel, watch) => this.changed(id, state, channel, watch),
      onError: (error, watch) => {
        const failure = asMediaSpacesError(error, 'Get channel');
        options.warn(
          `Reading channel ${watch.id} back: ${failure.message}; its state is no longer shown ` +
            '(turn off "Show state" if the service has no get-channel)',
        );
        return true;
      },
      onLimit: (watch) => {
        if (this.latest !== watch.id) return;
        const seconds = Math.round(options.limitMs / 1000);
        options.status({ fill: 'yellow', shape: 'ring', text: `channel ${watch.state ?? '?'} after ${seconds}s` });
      },
    });
  }

  follow(client: MediaSpacesClient, channel: unknown, origin: NodeMessage): void {
    if (!isPlainObject(channel) || typeof channel.id !== 'string') return;
    const followed = { client, window: copyOf(origin.window) };
    const state = client.channelState(channel);
    this.latest = channel.id;
    this.poller.watch(channel.id, {
      context: followed,
      settled: SETTLED,
      limitMs: this.options.limitMs,
      ...(state !== undefined ? { state } : {}),
    });
  }

  close(): void {
    this.poller.close();
  }

  private changed(id: string, state: string, channel: Record<string, unknown>, watch: WatchedChannel<Followed>): void {
    if (this.latest === id) this.options.status(stateStatus(state));
    const msg: NodeMessage = { topic: 'channel-state', payload: channel, channel_id: id, state };
    if (watch.state !== undefined) msg.previous_state = watch.state;
    // a schedule's window, so a flow can tell which recording this is
    if (watch.context.window) msg.window = structuredClone(watch.context.window);
    this.options.send(msg);
  }
}

/** The badge for a channel state: green while recording, red on ERROR, blue on the way. */
export function stateStatus(state: string): NodeStatus {
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

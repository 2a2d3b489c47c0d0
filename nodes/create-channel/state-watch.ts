import type { MediaSpacesClient } from '../../lib/client';
import { isPlainObject } from '../../lib/guards';
import { asMediaSpacesError } from '../shared/failure';
import type { NodeMessage, NodeStatus } from '../shared/node-red-types';

/**
 * States after which nothing more happens on its own: the recording has
 * begun (it runs until stopped), or the channel will not record.
 */
const SETTLED = new Set(['RECORDING', 'INACTIVE', 'ERROR']);

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

interface Watch {
  id: string;
  state: string | undefined;
  timer: ReturnType<typeof setTimeout> | undefined;
  startedAt: number;
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
  private readonly watches = new Map<string, Watch>();
  private latest: string | undefined;
  private closed = false;

  constructor(private readonly options: StateWatchOptions) {}

  follow(client: MediaSpacesClient, channel: unknown, origin: NodeMessage): void {
    if (this.closed || !isPlainObject(channel) || typeof channel.id !== 'string') return;
    this.stop(channel.id);
    const watch: Watch = {
      id: channel.id,
      state: client.channelState(channel),
      timer: undefined,
      startedAt: Date.now(),
      window: copyOf(origin.window),
    };
    this.watches.set(watch.id, watch);
    this.latest = watch.id;
    if (watch.state !== undefined && SETTLED.has(watch.state)) {
      this.stop(watch.id);
      return;
    }
    this.schedule(client, watch);
  }

  close(): void {
    this.closed = true;
    for (const id of [...this.watches.keys()]) this.stop(id);
  }

  private schedule(client: MediaSpacesClient, watch: Watch): void {
    watch.timer = setTimeout(() => this.read(client, watch), this.options.intervalMs);
  }

  private async read(client: MediaSpacesClient, watch: Watch): Promise<void> {
    let channel: Record<string, unknown>;
    try {
      channel = (await client.getChannel(watch.id)).data;
    } catch (error) {
      if (this.closed || this.watches.get(watch.id) !== watch) return;
      const failure = asMediaSpacesError(error, 'Get channel');
      this.options.warn(
        `Reading channel ${watch.id} back: ${failure.message}; its state is no longer shown ` +
          '(turn off "Show state" if the service has no get-channel)',
      );
      this.stop(watch.id);
      return;
    }
    if (this.closed || this.watches.get(watch.id) !== watch) return;
    const state = client.channelState(channel);
    if (state !== undefined && state !== watch.state) this.changed(watch, channel, state);
    if (state !== undefined && SETTLED.has(state)) {
      this.stop(watch.id);
    } else if (Date.now() - watch.startedAt >= this.options.limitMs) {
      if (this.latest === watch.id) {
        const seconds = Math.round(this.options.limitMs / 1000);
        this.options.status({ fill: 'yellow', shape: 'ring', text: `channel ${state ?? '?'} after ${seconds}s` });
      }
      this.stop(watch.id);
    } else {
      this.schedule(client, watch);
    }
  }

  private changed(watch: Watch, channel: Record<string, unknown>, state: string): void {
    const previous = watch.state;
    watch.state = state;
    if (this.latest === watch.id) this.options.status(stateStatus(state));
    const msg: NodeMessage = { topic: 'channel-state', payload: channel, channel_id: watch.id, state };
    if (previous !== undefined) msg.previous_state = previous;
    // a schedule's window, so a flow can tell which recording this is
    if (watch.window) msg.window = structuredClone(watch.window);
    this.options.send(msg);
  }

  private stop(id: string): void {
    const watch = this.watches.get(id);
    if (watch?.timer !== undefined) clearTimeout(watch.timer);
    this.watches.delete(id);
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

import { setMaxListeners } from 'node:events';
import { type Clock, systemClock } from '../clock';

type ChannelBody = Record<string, unknown>;

/** One watched channel as the callbacks see it; `context` is what `watch` was given. */
export interface WatchedChannel<T> {
  readonly id: string;
  readonly context: T;
  /** The last state read (or given to `watch`). */
  readonly state: string | undefined;
}

export interface ChannelStatePollerOptions<T> {
  /** Time between two rounds of reads. */
  intervalMs: number;
  /** Reads one channel; `signal` fires on close. */
  read(id: string, signal: AbortSignal, context: T): Promise<ChannelBody>;
  /** The channel's state as the service reports it; undefined: not told (nothing reported). */
  stateOf(channel: ChannelBody, context: T): string | undefined;
  /** A state differs from the last one; `watch.state` is still the previous one. */
  onChange(id: string, state: string, channel: ChannelBody, watch: WatchedChannel<T>): void;
  /** A read failed: return true to stop watching the channel; otherwise its last state stands and it is read again. */
  onError?(error: unknown, watch: WatchedChannel<T>): boolean;
  /** The channel outlived its `limitMs` without settling and is no longer read. */
  onLimit?(watch: WatchedChannel<T>): void;
  clock?: Clock;
}

export interface PollChannelOptions<T> {
  context: T;
  /** The state already known (e.g. the created channel's); not reported again. */
  state?: string;
  /** States after which the channel is no longer read. */
  settled?: ReadonlySet<string>;
  /** Stop reading after this long (ms) without settling. */
  limitMs?: number;
}

interface Entry<T> extends WatchedChannel<T> {
  state: string | undefined;
  startedAt: number;
  settled: ReadonlySet<string> | undefined;
  limitMs: number | undefined;
}

/**
 * Reads a set of channels back through get-channel every `intervalMs` and
 * reports each state change (the described operations create a channel but
 * never say how it moves on). One timer, armed only while there is a channel
 * to read and no round in flight; `close` aborts the reads in flight.
 */
export class ChannelStatePoller<T = undefined> {
  private readonly entries = new Map<string, Entry<T>>();
  private readonly clock: Clock;
  private timer: unknown;
  private inFlight: AbortController | undefined;
  private closed = false;

  constructor(private readonly options: ChannelStatePollerOptions<T>) {
    this.clock = options.clock ?? systemClock;
  }

  /** (Re)starts watching `id`; false when there is nothing to watch (closed, or already settled). */
  watch(id: string, options: PollChannelOptions<T>): boolean {
    this.entries.delete(id);
    const { state, settled } = options;
    if (this.closed || (state !== undefined && settled?.has(state))) return false;
    this.entries.set(id, {
      id,
      context: options.context,
      state,
      startedAt: this.clock.now(),
      settled,
      limitMs: options.limitMs,
    });
    this.arm();
    return true;
  }

  unwatch(id: string): void {
    this.entries.delete(id);
    if (this.entries.size === 0) this.disarm();
  }

  /** The ids watched now. */
  ids(): string[] {
    return [...this.entries.keys()];
  }

  /** Each channel watched now: its id, its context and the last state read. */
  watched(): WatchedChannel<T>[] {
    return [...this.entries.values()].map(({ id, context, state }) => ({ id, context, state }));
  }

  close(): void {
    this.closed = true;
    this.entries.clear();
    this.disarm();
    this.inFlight?.abort();
  }

  private arm(): void {
    if (this.closed || this.timer !== undefined || this.inFlight) return;
    this.timer = this.clock.setTimeout(() => {
      this.timer = undefined;
      void this.round();
    }, this.options.intervalMs);
  }

  private disarm(): void {
    if (this.timer !== undefined) this.clock.clearTimeout(this.timer);
    this.timer = undefined;
  }

  private async round(): Promise<void> {
    const controller = new AbortController();
    // every read of the round listens to it (the transport does) until it ends: dozens of channels
    // recording at once are no leak, and Node's warning past 10 listeners would say there is one
    setMaxListeners(0, controller.signal);
    this.inFlight = controller;
    await Promise.all([...this.entries.values()].map((entry) => this.read(entry, controller.signal)));
    this.inFlight = undefined;
    if (this.entries.size > 0) this.arm();
  }

  private async read(entry: Entry<T>, signal: AbortSignal): Promise<void> {
    let channel: ChannelBody;
    try {
      channel = await this.options.read(entry.id, signal, entry.context);
    } catch (error) {
      // closed, unwatched or watched anew meanwhile: the failure is nobody's news
      if (this.entries.get(entry.id) === entry && this.options.onError?.(error, entry)) this.unwatch(entry.id);
      return;
    }
    if (this.entries.get(entry.id) !== entry) return;
    const state = this.options.stateOf(channel, entry.context);
    if (state !== undefined && state !== entry.state) {
      this.options.onChange(entry.id, state, channel, entry);
      entry.state = state;
    }
    if (state !== undefined && entry.settled?.has(state)) {
      this.unwatch(entry.id);
    } else if (entry.limitMs !== undefined && this.clock.now() - entry.startedAt >= entry.limitMs) {
      this.unwatch(entry.id);
      this.options.onLimit?.(entry);
    }
  }
}

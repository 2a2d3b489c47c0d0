import type { MediaSpacesClient } from '../../lib/client';
import { ChannelStatePoller } from '../../lib/watch/channel-state';

/** How often the state of a recording's channel is read while its window is open. */
const CHANNEL_POLL_MS = 10_000;

/**
 * Reads the state of the channels of windows in progress every
 * CHANNEL_POLL_MS, for the sidebar (the schedule itself needs the channel
 * only at the end). A failed read keeps the last state; `close` aborts a read in flight.
 */
export class ChannelWatch {
  private readonly poller: ChannelStatePoller;

  constructor(
    client: () => MediaSpacesClient,
    // the channel read with its state: a slot waiting for its recording takes the start from recording.started_at
    onState: (channelId: string, state: string, channel: Record<string, unknown>) => void,
    intervalMs = CHANNEL_POLL_MS,
  ) {
    this.poller = new ChannelStatePoller({
      intervalMs,
      read: async (id, signal) => (await client().getChannel(id, { signal })).data,
      // the client knows which field carries the state (state, then status, or as configured)
      stateOf: (channel) => client().channelState(channel),
      onChange: (id, state, channel) => onState(id, state, channel),
    });
  }

  /** The channels to read: those of the windows in progress. */
  set(ids: Iterable<string>): void {
    const wanted = new Set(ids);
    for (const id of this.poller.ids()) if (!wanted.has(id)) this.poller.unwatch(id);
    const watched = new Set(this.poller.ids());
    for (const id of wanted) if (!watched.has(id)) this.poller.watch(id, { context: undefined });
  }

  close(): void {
    this.poller.close();
  }
}

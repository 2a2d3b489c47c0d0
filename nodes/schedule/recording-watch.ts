import type { MediaSpacesClient } from '../../lib/client';
import { isPlainObject } from '../../lib/guards';
import { ChannelStatePoller } from '../../lib/watch/channel-state';

/** How often the channel of a window in progress is read to see that it still records. */
const CONTINUITY_POLL_MS = 2_000;

/** States of a channel on its way to recording, or recording. */
const ALIVE = new Set(['PENDING', 'ACTIVE', 'STARTING', 'RECORDING']);

/**
 * Watches the channels of windows in progress (the get-channel extension,
 * every CONTINUITY_POLL_MS) and tells which one stopped recording before its
 * window's end: ERROR, or any state past RECORDING (its recording ended by
 * itself). The slot's state machine decides what that means: a stop the
 * schedule asked for leaves the slot "stopping", and is no interruption.
 */
export class RecordingWatch {
  private readonly poller: ChannelStatePoller<string>;

  constructor(
    client: () => MediaSpacesClient,
    lost: (slotKey: string, channelId: string, why: string) => void,
    /**
     * every state read, with the channel read (the sidebar shows it rather than reading the channel again; a
     * slot waiting for its channel to record takes the recording's start from it)
     */
    seen: (channelId: string, state: string, channel: Record<string, unknown>) => void,
    intervalMs = CONTINUITY_POLL_MS,
  ) {
    this.poller = new ChannelStatePoller<string>({
      intervalMs,
      read: async (id, signal) => (await client().getChannel(id, { signal, retries: 0 })).data,
      stateOf: (channel) => client().channelState(channel),
      onChange: (id, state, channel, watch) => {
        seen(id, state, channel);
        if (ALIVE.has(state.toUpperCase())) return;
        this.poller.unwatch(id);
        lost(watch.context, id, whyLost(state, channel));
      },
      // a failed read is not a failed recording: the last state stands and the channel is read again
      onError: () => false,
    });
  }

  /** Watches each slot's channel (slot key → channel id); stops watching the others. */
  set(channels: ReadonlyMap<string, string>): void {
    const wanted = new Set(channels.values());
    for (const id of this.poller.ids()) if (!wanted.has(id)) this.poller.unwatch(id);
    const watched = new Set(this.poller.ids());
    for (const [slotKey, id] of channels) if (!watched.has(id)) this.poller.watch(id, { context: slotKey });
  }

  close(): void {
    this.poller.close();
  }
}

/** One sentence: the state the channel went to and, for ERROR, what the service said. */
function whyLost(state: string, channel: Record<string, unknown>): string {
  const errors = Array.isArray(channel.errors) ? channel.errors.filter((e) => typeof e === 'string') : [];
  if (state.toUpperCase() === 'ERROR')
    return `the channel went to ERROR${errors.length ? ` (${errors.join('; ')})` : ''}`;
  const recording = isPlainObject(channel.recording) ? channel.recording : undefined;
  const ended = typeof recording?.ended_at === 'string' ? ` at ${recording.ended_at}` : '';
  return `the channel's recording ended${ended} (state ${state})`;
}

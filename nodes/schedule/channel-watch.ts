import type { MediaSpacesClient } from '../../lib/client';

/** How often the state of a recording's channel is read while its window is open. */
export const CHANNEL_POLL_MS = 10_000;

/**
 * Reads the state of the channels of windows in progress every
 * CHANNEL_POLL_MS, for the sidebar (the schedule itself needs the channel
 * only at the end). One timer, armed only while there is a channel to read;
 * a failed read keeps the last state; `close` aborts a read in flight.
 */
export class ChannelWatch {
  private readonly ids = new Set<string>();
  private timer: ReturnType<typeof setTimeout> | undefined;
  private inFlight: AbortController | undefined;
  private closed = false;

  constructor(
    private readonly client: () => MediaSpacesClient,
    private readonly onState: (channelId: string, state: string) => void,
    private readonly intervalMs = CHANNEL_POLL_MS,
  ) {}

  /** The channels to read: those of the windows in progress. */
  set(ids: Iterable<string>): void {
    this.ids.clear();
    for (const id of ids) this.ids.add(id);
    if (this.ids.size === 0) this.stop();
    else this.arm();
  }

  close(): void {
    this.closed = true;
    this.stop();
    this.inFlight?.abort();
  }

  private arm(): void {
    if (this.closed || this.timer !== undefined || this.inFlight) return;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      void this.readAll();
    }, this.intervalMs);
  }

  private stop(): void {
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timer = undefined;
  }

  private async readAll(): Promise<void> {
    const controller = new AbortController();
    this.inFlight = controller;
    for (const id of [...this.ids]) {
      if (this.closed) break;
      try {
        const { data } = await this.client().getChannel(id, { signal: controller.signal });
        if (!this.closed && this.ids.has(id) && typeof data.state === 'string') this.onState(id, data.state);
      } catch {
        // the last state stays shown; the next round reads again
      }
    }
    this.inFlight = undefined;
    if (this.ids.size > 0) this.arm();
  }
}

import { isPlainObject } from '../../lib/guards';
import type { Scheduler, ScheduleWindow } from '../../lib/schedule';
import { clientFor } from '../shared/server-client';
import type { ScheduleControl, SlotReport, WindowPlan } from '../sidebar/activity-types';
import type { ActivityFeed } from '../sidebar/feed';
import { activityFeed } from '../sidebar/feed-host';
import { ChannelWatch } from './channel-watch';
import { type CommandHost, skipReply, startMessage } from './commands';
import type { ScheduleAPI, ScheduleNode } from './types';

type Channel = NonNullable<SlotReport['channel']>;
interface Tracked {
  windowId: string;
  start: number;
  end: number;
  channel?: Channel;
}

const NO_CHANNEL = 'no channel came back for this window (route the create-channel output back to the schedule)';

/**
 * What the Media Spaces sidebar shows of one schedule node: its windows and
 * paused state, each slot (start, channel, outcome), and the tab's actions.
 * The controller calls `sync()` wherever its status may change; this module
 * works out what changed since and tells the runtime's activity feed.
 */
export class ScheduleSidebar {
  private readonly feed: ActivityFeed;
  private readonly slots = new Map<string, Tracked>();
  private paused = false;
  private windows: readonly ScheduleWindow[] = [];
  private closed = false;
  /** reads the channels' state as it changes, when the schedule has a server to ask */
  private readonly channels: ChannelWatch | undefined;

  constructor(
    RED: ScheduleAPI,
    private readonly node: ScheduleNode,
    /** the scheduler and what the commands act on; undefined once closed */
    private readonly host: () => CommandHost | undefined,
    server?: string,
  ) {
    this.feed = activityFeed(RED);
    if (server) {
      this.channels = new ChannelWatch(
        () => clientFor(RED, server, 'liveCapture'),
        (id, state) => this.channelState(id, state),
      );
    }
    const current = host();
    this.windows = current?.config.windows ?? [];
    this.paused = current?.scheduler.paused ?? false;
    this.feed.registerSchedule(
      {
        nodeId: node.id,
        name: this.name(),
        ...(node.z ? { z: node.z } : {}),
        paused: this.paused,
        windows: plans(this.windows),
      },
      this.control(),
    );
  }

  /** Reports what changed since the last call: paused, windows, slots started, channels, slots ended. */
  sync(): void {
    const host = this.host();
    if (this.closed || !host) return;
    const { scheduler, config } = host;
    if (scheduler.paused !== this.paused || config.windows !== this.windows) {
      this.paused = scheduler.paused;
      this.windows = config.windows;
      this.feed.updateSchedule(this.node.id, { paused: this.paused, windows: plans(this.windows) });
    }
    this.syncSlots(scheduler);
  }

  /** The node closes: its schedule leaves the tab (the slots it reported stay in the history). */
  close(): void {
    this.closed = true;
    this.channels?.close();
    this.feed.unregister(this.node.id);
  }

  /** A channel's state as the service reads it now. */
  private channelState(channelId: string, state: string): void {
    for (const slot of this.slots.values()) {
      if (slot.channel?.id !== channelId || slot.channel.state === state) continue;
      slot.channel = { ...slot.channel, state };
      this.feed.reportSlot(this.node.id, slot);
    }
  }

  private syncSlots(scheduler: Scheduler): void {
    const active = new Set<string>();
    for (const slot of scheduler.activeSlots()) {
      active.add(slot.key);
      const channel = channelOf(slot.channel);
      const known = this.slots.get(slot.key);
      if (known && sameChannel(known.channel, channel)) continue;
      const tracked: Tracked = {
        windowId: slot.windowId,
        start: slot.start,
        end: slot.end,
        ...(channel ? { channel } : {}),
      };
      this.slots.set(slot.key, tracked);
      this.feed.reportSlot(this.node.id, tracked);
    }
    for (const [key, slot] of this.slots) {
      if (active.has(key)) continue;
      this.slots.delete(key);
      const outcome = slot.channel?.id
        ? { channel: 'created' as const }
        : { channel: 'failed' as const, reason: NO_CHANNEL };
      this.feed.reportSlot(this.node.id, { ...slot, outcome });
    }
    this.channels?.set([...this.slots.values()].flatMap((s) => (s.channel?.id ? [s.channel.id] : [])));
  }

  private control(): ScheduleControl {
    const act = (fn: (host: CommandHost) => void) => {
      const host = this.host();
      if (!host) throw new Error('the schedule is closed');
      fn(host);
    };
    return {
      pause: () =>
        act((h) => {
          h.scheduler.pause();
          h.updateStatus();
        }),
      resume: () =>
        act((h) => {
          h.scheduler.resume();
          h.updateStatus();
        }),
      startNow: (windowId) =>
        act((h) => {
          const id = windowId ?? h.scheduler.nextStart()?.window.id ?? h.config.windows.find((w) => w.enabled)?.id;
          if (!id) throw new Error('the schedule has no window to start');
          const msg = startMessage(h, id);
          h.updateStatus();
          this.node.send([msg, null, null]);
        }),
      skipNext: (windowId) =>
        act((h) => {
          skipReply(h, windowId);
        }),
    };
  }

  /** The node's name; the feed names an unnamed schedule by its windows. */
  private name(): string {
    return this.node.name ?? '';
  }
}

function plans(windows: readonly ScheduleWindow[]): WindowPlan[] {
  return windows.map((w) => ({
    id: w.id,
    name: w.name,
    cron: w.cron,
    timezone: w.timezone,
    duration: w.duration,
    enabled: w.enabled,
  }));
}

/** The channel create-channel returned (routed back), as the tab shows it. */
function channelOf(channel: unknown): Channel | undefined {
  if (!isPlainObject(channel)) return undefined;
  const id = typeof channel.id === 'string' ? channel.id : undefined;
  const state = typeof channel.state === 'string' && channel.state !== '' ? channel.state : 'created';
  return { state, ...(id ? { id } : {}) };
}

/** The same channel came back (its state since then is the watch's to update, not the routed-back copy's). */
function sameChannel(a: Channel | undefined, b: Channel | undefined): boolean {
  return a === undefined ? b === undefined : b !== undefined && a.id === b.id;
}

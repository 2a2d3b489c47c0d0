import { isPlainObject } from '../../lib/guards';
import type { Scheduler, ScheduleWindow, Slot } from '../../lib/schedule';
import { clientFor } from '../shared/server-client';
import {
  FINAL_STAGES,
  type ScheduleControl,
  type SlotLife,
  type SlotReport,
  type WindowPlan,
} from '../sidebar/activity-types';
import type { ActivityFeed } from '../sidebar/feed';
import { activityFeed } from '../sidebar/feed-host';
import { ChannelWatch } from './channel-watch';
import { type CommandHost, skipReply } from './commands';
import type { ScheduleAPI, ScheduleNode } from './types';

type Channel = NonNullable<SlotReport['channel']>;
interface Tracked {
  slotKey: string;
  windowId: string;
  start: number;
  end: number;
  channel?: Channel;
  life?: SlotLife;
}

/**
 * The stages in which this module reads the channel's state itself; while a slot records, the schedule's
 * recording watch reads it (every 2 s) and passes each state on (`channelState`), so it is not read twice.
 */
const WATCHED: readonly SlotLife['stage'][] = ['starting', 'stopping'];

/**
 * What the Media Spaces sidebar shows of one schedule node: its windows and
 * paused state, each slot (start, channel, outcome), and the tab's actions.
 * The controller calls `sync()` wherever its status may change; this module
 * works out what changed since and tells the runtime's activity feed.
 */
export class ScheduleSidebar {
  private readonly feed: ActivityFeed;
  private readonly slots = new Map<string, Tracked>();
  /** skipped starts already drawn as such */
  private readonly skippedShown = new Set<string>();
  private paused = false;
  private planRevision = 0;
  /** slot keys of planned occurrences over the document's max_channels */
  private overLimit = new Set<string>();
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
    if (
      scheduler.paused !== this.paused ||
      config.windows !== this.windows ||
      scheduler.planRevision !== this.planRevision
    ) {
      this.paused = scheduler.paused;
      this.windows = config.windows;
      this.planRevision = scheduler.planRevision;
      this.feed.updateSchedule(this.node.id, {
        paused: this.paused,
        windows: plans(this.windows),
        planRevision: this.planRevision,
      });
    }
    this.syncSlots(scheduler);
  }

  /** The planned occurrences over max_channels changed: the timeline marks them. */
  conflicts(keys: Set<string>): void {
    const same = keys.size === this.overLimit.size && [...keys].every((k) => this.overLimit.has(k));
    if (same || this.closed) return;
    this.overLimit = keys;
    // the timeline plans anew, now with the conflicts marked
    this.feed.updateSchedule(this.node.id, { planRevision: this.planRevision });
  }

  /** The node closes: its schedule leaves the tab (the slots it reported stay in the history). */
  close(): void {
    this.closed = true;
    this.channels?.close();
    this.feed.unregister(this.node.id);
  }

  /** A channel's state as the service reads it now (read here, or by the schedule's recording watch). */
  channelState(channelId: string, state: string): void {
    for (const slot of this.slots.values()) {
      if (slot.channel?.id !== channelId || slot.channel.state === state) continue;
      slot.channel = { ...slot.channel, state };
      this.feed.reportSlot(this.node.id, slot);
    }
  }

  /** A slot's stage changed (slot-life.ts); a final stage is its last report. */
  show(slot: Slot, life: SlotLife, channel?: unknown): void {
    if (this.closed) return;
    const known = this.slots.get(slot.key);
    const title = slot.programme?.title;
    const tracked: Tracked = {
      slotKey: slot.key,
      windowId: slot.windowId,
      start: slot.start,
      end: slot.end,
      ...(title ? { title } : {}),
      life: { ...life },
      ...(channelOf(channel) || known?.channel ? { channel: channelOf(channel) ?? known?.channel } : {}),
    };
    const final = FINAL_STAGES.includes(life.stage);
    if (final) this.slots.delete(slot.key);
    else this.slots.set(slot.key, tracked);
    const outcome = !final
      ? undefined
      : tracked.channel?.id
        ? { channel: 'created' as const }
        : { channel: 'failed' as const, ...(life.note ? { reason: life.note } : {}) };
    this.feed.reportSlot(this.node.id, outcome ? { ...tracked, outcome } : tracked);
    this.watchChannels();
  }

  /** Upcoming starts skipped on request: drawn as skipped from the moment they are, not as planned. */
  private syncSkipped(scheduler: Scheduler): void {
    if (scheduler.skippedCount === 0) return;
    for (const u of scheduler.upcoming(scheduler.skippedCount + 20)) {
      if (!u.skipped || this.skippedShown.has(u.slotKey)) continue;
      this.skippedShown.add(u.slotKey);
      this.feed.reportSlot(this.node.id, {
        slotKey: u.slotKey,
        windowId: u.window_id,
        start: u.start,
        end: u.end,
        ...(u.title ? { title: u.title } : {}),
        life: { stage: 'skipped', note: 'skipped on request' },
      });
    }
  }

  /** Slots in progress the lives do not know yet (restored after a restart): shown as recording or starting. */
  private syncSlots(scheduler: Scheduler): void {
    this.syncSkipped(scheduler);
    for (const slot of scheduler.activeSlots()) {
      const channel = channelOf(slot.channel);
      const known = this.slots.get(slot.key);
      if (known && (known.channel || !channel)) continue;
      const stage = known?.life?.stage === 'stopping' ? 'stopping' : channel ? 'recording' : 'starting';
      const tracked: Tracked = {
        slotKey: slot.key,
        windowId: slot.windowId,
        start: slot.start,
        end: slot.end,
        life: { ...known?.life, stage },
        ...(channel ? { channel } : {}),
      };
      this.slots.set(slot.key, tracked);
      this.feed.reportSlot(this.node.id, tracked);
    }
    this.watchChannels();
  }

  private watchChannels(): void {
    this.channels?.set(
      [...this.slots.values()].flatMap((s) =>
        s.channel?.id && (!s.life || WATCHED.includes(s.life.stage)) ? [s.channel.id] : [],
      ),
    );
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
          // the schedule's one start path, as a trigger message takes
          h.scheduler.trigger(id);
          h.updateStatus();
        }),
      plan: (from, to, perWindow) =>
        (this.host()?.scheduler.planned(from, to, perWindow) ?? []).map((p) =>
          this.overLimit.has(p.key) ? { ...p, conflict: true as const } : p,
        ),
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
    source: w.source?.kind ?? 'cron',
  }));
}

/** The channel create-channel returned (routed back), as the tab shows it. */
function channelOf(channel: unknown): Channel | undefined {
  if (!isPlainObject(channel)) return undefined;
  const id = typeof channel.id === 'string' ? channel.id : undefined;
  const state = typeof channel.state === 'string' && channel.state !== '' ? channel.state : 'created';
  return { state, ...(id ? { id } : {}) };
}

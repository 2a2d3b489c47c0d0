import { isPlainObject } from '../../lib/guards';
import {
  occurrenceName,
  type ScheduleConfig,
  type Scheduler,
  type ScheduleWindow,
  type Slot,
} from '../../lib/schedule';
import type { SlotLives } from '../../lib/schedule/slot-lives';
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
import type { Act } from './control-events';
import type { ScheduleAPI, ScheduleNode } from './types';

type Channel = NonNullable<SlotReport['channel']>;

/**
 * The stages in which this module reads the channel's state itself; while a slot records, the schedule's
 * recording watch reads it (every 2 s) and passes each state on, so it is not read twice.
 */
const WATCHED: readonly SlotLife['stage'][] = ['starting', 'stopping'];

/**
 * What the Media Spaces sidebar shows of one schedule node: its windows and
 * paused state, each slot (start, channel, outcome), and the tab's actions.
 * A slot is shown as its state machine (lib/schedule/slot-lives.ts) tells it; the controller
 * calls `sync()` wherever the schedule's own state may change, and this module
 * tells the runtime's activity feed what changed since. It keeps no slot of
 * its own: the lives hold the slots in progress, the scheduler the skipped
 * ones, the conflict watch the conflicts.
 */
export class ScheduleSidebar {
  private readonly feed: ActivityFeed;
  private paused = false;
  private planRevision = 0;
  /** how many starts the scheduler holds skipped, when they were last drawn */
  private skippedDrawn = 0;
  private windows: readonly ScheduleWindow[] = [];
  private closed = false;
  /** reads the channels' state as it changes, when the schedule has a server to ask */
  private readonly channels: ChannelWatch | undefined;

  constructor(
    RED: ScheduleAPI,
    private readonly node: ScheduleNode,
    private readonly parts: {
      /** undefined once closed */
      scheduler: () => Scheduler | undefined;
      config: () => ScheduleConfig;
      /** the schedule's one way to carry out what a button asks (controller.ts `act`) */
      act: Act;
      lives: SlotLives;
      /** slot keys of planned occurrences over the document's max_channels */
      conflicted: () => ReadonlySet<string>;
      server?: string;
    },
  ) {
    this.feed = activityFeed(RED);
    const { server, lives } = parts;
    if (server) {
      this.channels = new ChannelWatch(
        () => clientFor(RED, server, 'liveCapture'),
        (id, state, channel) => lives.channelState(id, state, channel),
      );
    }
    const scheduler = parts.scheduler();
    this.windows = scheduler ? parts.config().windows : [];
    this.paused = scheduler?.paused ?? false;
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

  /** Reports what changed since the last call: paused, windows, the plan, starts skipped. */
  sync(): void {
    const scheduler = this.parts.scheduler();
    if (this.closed || !scheduler) return;
    const config = this.parts.config();
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
    this.drawSkipped(scheduler);
  }

  /** The planned occurrences over max_channels changed: the timeline plans anew, with them marked. */
  conflictsChanged(): void {
    if (!this.closed) this.feed.updateSchedule(this.node.id, { planRevision: this.planRevision });
  }

  /** The node closes: its schedule leaves the tab (the slots it reported stay in the history). */
  close(): void {
    this.closed = true;
    this.channels?.close();
    this.feed.unregister(this.node.id);
  }

  /** A slot's stage changed (lib/schedule/slot-lives.ts); a final stage is its last report. */
  show(slot: Slot, life: SlotLife, channel?: unknown): void {
    if (this.closed) return;
    // the programme's title and episode, as every place that names the slot says it
    const title = slot.programme?.title ? occurrenceName('', slot.programme) : undefined;
    const shown = channelOf(channel);
    const report: SlotReport = {
      slotKey: slot.key,
      windowId: slot.windowId,
      start: slot.start,
      end: slot.end,
      ...(title ? { title } : {}),
      life: { ...life },
      ...(shown ? { channel: shown } : {}),
    };
    const outcome = !FINAL_STAGES.includes(life.stage)
      ? undefined
      : shown?.id
        ? { channel: 'created' as const }
        : { channel: 'failed' as const, ...(life.note ? { reason: life.note } : {}) };
    this.feed.reportSlot(this.node.id, outcome ? { ...report, outcome } : report);
    this.channels?.set(this.parts.lives.channelsIn(WATCHED));
  }

  /**
   * Upcoming starts skipped on request: drawn as skipped from the moment they are, not as planned. The
   * scheduler holds them; they are drawn again whenever their number changes (a report replaces the last).
   */
  private drawSkipped(scheduler: Scheduler): void {
    const count = scheduler.skippedCount;
    if (count === this.skippedDrawn) return;
    this.skippedDrawn = count;
    for (const u of scheduler.upcoming(count + 20)) {
      if (!u.skipped) continue;
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

  /** The tab's buttons, each the control event a message would be read into (`act` refuses once closed). */
  private control(): ScheduleControl {
    const { act, config } = this.parts;
    return {
      pause: () => {
        act({ kind: 'pause' });
      },
      resume: () => {
        act({ kind: 'resume' });
      },
      startNow: (windowId) => {
        const scheduler = this.parts.scheduler();
        if (!scheduler) throw new Error('the schedule is closed');
        const id = windowId ?? scheduler.nextStart()?.window.id ?? config().windows.find((w) => w.enabled)?.id;
        if (!id) throw new Error('the schedule has no window to start');
        act({ kind: 'trigger', windowId: id });
      },
      plan: (from, to, perWindow) => {
        const over = this.parts.conflicted();
        return (this.parts.scheduler()?.planned(from, to, perWindow) ?? []).map((p) =>
          over.has(p.key) ? { ...p, conflict: true as const } : p,
        );
      },
      skipNext: (windowId) => {
        act({ kind: 'skip', windowId });
      },
      reloadFeed: (windowId) => act({ kind: 'reload-feed', windowId }),
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

import { channelWithId } from '../../lib/channel-ref';
import { MediaSpacesError, quoteShort } from '../../lib/errors';
import { isPlainObject } from '../../lib/guards';
import { formatShort, isoSeconds, type ScheduleConfig, type Scheduler } from '../../lib/schedule';
import { describeType } from '../../lib/submit-input';
import type { NodeMessage, Outputs } from '../shared/node-red-types';
import type { FeedReloadResult } from '../sidebar/activity-types';
import type { ScheduleSettings } from './settings';

const COMMANDS = ['trigger', 'pause', 'resume', 'skip', 'reload', 'list', 'windows'] as const;
type Command = (typeof COMMANDS)[number];

/** What the commands act on. */
/** What the schedule did with a channel told to it. */
export interface ChannelTold {
  /** this instance led the slot's start (coordination completed it with the channel) */
  led: boolean;
  /** the slot in progress has this channel now */
  kept: boolean;
  /** the window lost this channel already: an interruption replaced it */
  lost: boolean;
}

export interface CommandHost {
  readonly scheduler: Scheduler;
  readonly config: ScheduleConfig;
  readonly source: ScheduleSettings['source'];
  /** reloads the windows from their source; the error when that failed */
  reload(): MediaSpacesError | undefined;
  updateStatus(): void;
  /** a created channel came back: true when coordination completed the slot's start with it */
  /** a channel routed back: the schedule takes it (controller.ts channelCreated) */
  channelReturned(slotKey: string, channel: unknown): ChannelTold;
  /** the control message's window_id (trigger, skip), read by the one resolver */
  windowId(msg: NodeMessage): string | undefined;
  /** the control message's count (list), read by the one resolver */
  count(msg: NodeMessage): number;
  /** fetches every calendar and guide feed now; the ids of their windows */
  refreshFeeds?(): string[];
  /** fetches one calendar or guide window's feed now (the sidebar's "Reload feed"); what it read */
  reloadFeed?(windowId: string): Promise<FeedReloadResult>;
  /**
   * a `windows` message: the window's occurrences replaced by the list; what the reply says (once Redis took
   * it, with coordination)
   */
  listWindows?(msg: NodeMessage): Record<string, unknown> | Promise<Record<string, unknown>>;
}

/**
 * A control message: a command (trigger, pause, resume, skip, reload, list), or a
 * created channel routed back (msg.window.slotKey). Returns the message for
 * output 3; throws a MediaSpacesError for bad input.
 */
export function handleControl(host: CommandHost, msg: NodeMessage): Outputs | Promise<Outputs> {
  const window = msg.window;
  if (isPlainObject(window) && typeof window.slotKey === 'string') return rememberChannel(host, msg, window.slotKey);
  const command = commandOf(msg);
  switch (command) {
    case 'trigger':
      // the start message goes out through the schedule's one start path, under this message's id
      trigger(host, msg, host.windowId(msg));
      return [null, null, null];
    case 'pause':
    case 'resume':
      if (command === 'pause') host.scheduler.pause();
      else host.scheduler.resume();
      host.updateStatus();
      return reply(msg, command, { paused: host.scheduler.paused });
    case 'skip':
      return reply(msg, command, skipReply(host, host.windowId(msg)));
    case 'reload': {
      const error = host.reload();
      host.updateStatus();
      if (error) throw error;
      return reply(msg, command, {
        reloaded: true,
        source: host.source,
        windows: host.config.windows.map((w) => w.id),
        feeds: host.refreshFeeds?.() ?? [],
      });
    }
    case 'windows': {
      if (!host.listWindows) throw MediaSpacesError.invalidInput('this schedule takes no windows messages', {});
      const listed = host.listWindows(msg);
      return listed instanceof Promise ? listed.then((p) => reply(msg, command, p)) : reply(msg, command, listed);
    }
    case 'list':
      return list(host, msg, host.count(msg));
  }
}

/** Skips the next start (of the window named, else of any window); the reply names the slot skipped. */
export function skipReply(host: CommandHost, id: unknown): Record<string, unknown> {
  if (id !== undefined && (typeof id !== 'string' || id === '')) {
    throw MediaSpacesError.invalidInput(
      'skip takes msg.window_id as the id of a window (or no window_id: the next start)',
      {
        window_id: 'is not a window id',
      },
    );
  }
  const skipped = host.scheduler.skipNext(id);
  host.updateStatus();
  return {
    skipped: true,
    window_id: skipped.window_id,
    name: skipped.name,
    start: isoSeconds(skipped.start),
    local: `${formatShort(skipped.start, skipped.timezone)} ${skipped.timezone}`,
    slotKey: skipped.slotKey,
  };
}

function trigger(host: CommandHost, msg: NodeMessage, id: string | undefined): void {
  if (id === undefined) {
    throw MediaSpacesError.invalidInput('trigger needs msg.window_id: the id of the window to start now', {
      window_id: 'is required',
    });
  }
  if (!host.config.windows.some((w) => w.id === id)) {
    const known = host.config.windows.map((w) => w.id).join(', ') || 'none';
    throw MediaSpacesError.invalidInput(`no window with id ${quoteShort(id)} (windows: ${known})`, {
      window_id: 'unknown window',
    });
  }
  host.scheduler.trigger(id, typeof msg._msgid === 'string' ? msg._msgid : undefined);
  host.updateStatus();
}

function list(host: CommandHost, msg: NodeMessage, count: number): Outputs {
  const { scheduler } = host;
  const upcoming = scheduler.upcoming(count).map((u) => ({
    window_id: u.window_id,
    name: u.name,
    start: isoSeconds(u.start),
    end: isoSeconds(u.end),
    local: `${formatShort(u.start, u.timezone)} ${u.timezone}`,
    timezone: u.timezone,
    slotKey: u.slotKey,
    ...(u.title ? { title: u.title } : {}),
    ...(u.skipped ? { skipped: true } : {}),
  }));
  msg.active = scheduler.activeSlots().map((s) => ({
    slotKey: s.key,
    window_id: s.windowId,
    name: s.window.name,
    start: isoSeconds(s.start),
    end: isoSeconds(s.end),
    channel_id: isPlainObject(s.channel) ? s.channel.id : undefined,
  }));
  msg.paused = scheduler.paused;
  return reply(msg, 'list', upcoming);
}

function rememberChannel(host: CommandHost, msg: NodeMessage, slotKey: string): Outputs {
  // the same test of a channel as the end's, with coordination or without
  const channel = channelWithId(msg.payload);
  if (!channel) {
    throw MediaSpacesError.invalidInput(
      `a message with msg.window.slotKey must carry the created channel (an object with an id) on msg.payload`,
      { payload: 'is not a channel' },
    );
  }
  const { led: completed, kept, lost } = host.channelReturned(slotKey, channel);
  if (!kept) {
    // a channel an interruption replaced, reported late: the window records on its replacement
    if (lost) return reply(msg, 'channel', { slotKey, channel_id: channel.id, remembered: false, lost: true });
    // a start this instance led whose window ended here meanwhile: the channel is kept in Redis for the end
    if (completed) return reply(msg, 'channel', { slotKey, channel_id: channel.id, remembered: false, completed });
    // create-channel told the schedule of this channel first, and the window's end already used it
    const known = host.scheduler.channelOf(slotKey);
    if (isPlainObject(known) && known.id === channel.id) {
      return reply(msg, 'channel', { slotKey, channel_id: channel.id, remembered: false, known: true });
    }
    throw MediaSpacesError.invalidInput(
      `no window of this schedule is in progress for slot ${slotKey}: the channel came back after the window ended, or belongs to another schedule`,
      { 'window.slotKey': 'not in progress' },
    );
  }
  host.updateStatus();
  return reply(msg, 'channel', { slotKey, channel_id: channel.id, remembered: true });
}

function reply(msg: NodeMessage, topic: string, payload: unknown): Outputs {
  msg.topic = topic;
  msg.payload = payload;
  return [null, null, msg];
}

function commandOf(msg: NodeMessage): Command {
  const payload = msg.payload;
  let raw: unknown;
  let from = '';
  if (isPlainObject(payload) && payload.command !== undefined) {
    raw = payload.command;
    from = 'msg.payload.command';
  } else if (typeof msg.topic === 'string' && msg.topic.trim() !== '') {
    raw = msg.topic;
    from = 'msg.topic';
  } else if (typeof payload === 'string') {
    raw = payload;
    from = 'msg.payload';
  }
  const name = typeof raw === 'string' ? raw.trim().toLowerCase() : '';
  const command = COMMANDS.find((c) => c === name);
  if (command) return command;
  const expected = `${COMMANDS.join(', ')} (in msg.topic or msg.payload.command), or a created channel routed back with msg.window.slotKey`;
  throw MediaSpacesError.invalidInput(
    from
      ? `unknown command ${shownCommand(raw)} in ${from}: expected ${expected}`
      : `not a schedule control message: expected ${expected}`,
    { command: 'unknown' },
  );
}

/** A command that is not one, as the error quotes it: text cut short, an object or list by its type. */
function shownCommand(raw: unknown): string {
  if (typeof raw === 'string') return quoteShort(raw);
  if (typeof raw === 'object' && raw !== null) return describeType(raw);
  return JSON.stringify(raw) ?? String(raw);
}

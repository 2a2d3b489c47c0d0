import { channelWithId, type IdentifiedChannel } from '../../lib/channel-ref';
import { MediaSpacesError, quoteShort } from '../../lib/errors';
import { isPlainObject } from '../../lib/guards';
import type { ActiveSlot, StartEvent, UpcomingStart } from '../../lib/schedule';
import { describeType } from '../../lib/submit-input';
import type { NodeMessage } from '../shared/node-red-types';
import type { FeedReloadResult } from '../sidebar/activity-types';

/**
 * What each control event carries. A control message is read into one (readControl), and the sidebar's
 * buttons build the same ones, so that both take the controller's one path (`act`), as Node-RED's inject
 * node sends its button and its timer through one `receive`.
 */
export interface ControlEvents {
  trigger: { windowId: string; msgid?: string };
  pause: object;
  resume: object;
  skip: { windowId?: string };
  reload: object;
  list: { count: number };
  /** a window fed by messages: its occurrences replaced by the list on `payload` */
  windows: { windowId?: string; payload: unknown };
  /** a created channel routed back (msg.window.slotKey) */
  channel: { slotKey: string; channel: IdentifiedChannel };
  /** the sidebar's "Reload feed" only: no control message names it */
  'reload-feed': { windowId: string };
}

export type ControlKind = keyof ControlEvents;

/** The kinds a control message can name. */
export type MessageKind = Exclude<ControlKind, 'reload-feed'>;

/** One event of a kind; written as a mapped type so that `act` can hand each kind to its own effect. */
export type ControlEvent<K extends ControlKind = ControlKind> = { [P in K]: { kind: P } & ControlEvents[P] }[K];

/** What the schedule did with a channel told to it. */
export interface ChannelTold {
  /** this instance led the slot's start (coordination completed it with the channel) */
  led: boolean;
  /** the slot in progress has this channel now */
  kept: boolean;
  /** the window lost this channel already: an interruption replaced it */
  lost: boolean;
}

/** A channel routed back, as the reply needs it. */
export interface ChannelTaken extends ChannelTold {
  /** not kept, but the slot's record holds this very channel already (create-channel told it first) */
  known: boolean;
}

/** What `act` gives back for each kind: the replies are built from these (control-replies.ts). */
export interface ControlResults {
  /** the start, gone out on output 1 */
  trigger: StartEvent;
  pause: { paused: boolean };
  resume: { paused: boolean };
  skip: UpcomingStart;
  /** the window ids as reloaded; the feeds fetched again */
  reload: { windows: string[]; feeds: string[] };
  list: {
    upcoming: UpcomingStart[];
    active: readonly ActiveSlot[];
    paused: boolean;
  };
  windows: Record<string, unknown> | Promise<Record<string, unknown>>;
  channel: ChannelTaken;
  'reload-feed': Promise<FeedReloadResult>;
}

/** Carries out one event: the controller's `act`. */
export type Act = <K extends ControlKind>(event: ControlEvent<K>) => ControlResults[K];

/**
 * What a control message needs beyond itself, resolved only for the command that uses it (a bad window_id
 * on a pause is ignored): the node's settings say where window_id and count are read from.
 */
export interface ControlInputs {
  windowId(): string | undefined;
  count(): number;
  /** the schedule's windows: a trigger must name one of them */
  windowIds(): readonly string[];
}

const COMMANDS = ['trigger', 'pause', 'resume', 'skip', 'reload', 'list', 'windows'] as const;
type Command = (typeof COMMANDS)[number];

/**
 * A control message as an event: a command (in msg.topic or msg.payload.command), or a created channel
 * routed back (msg.window.slotKey). Throws a MediaSpacesError for a message that is neither.
 */
export function readControl(msg: NodeMessage, inputs: ControlInputs): ControlEvent<MessageKind> {
  const window = msg.window;
  if (isPlainObject(window) && typeof window.slotKey === 'string') return channelEvent(msg, window.slotKey);
  const kind = commandOf(msg);
  switch (kind) {
    case 'trigger':
      return triggerEvent(msg, inputs);
    case 'skip':
      return { kind, windowId: inputs.windowId() };
    case 'list':
      return { kind, count: inputs.count() };
    case 'windows':
      return { kind, windowId: inputs.windowId(), payload: msg.payload };
    default:
      return { kind };
  }
}

/**
 * A trigger names a window of this schedule. Checked here and not in `act`: the sidebar's "Start now"
 * picks its window itself and has the scheduler's own check, with its own words.
 */
function triggerEvent(msg: NodeMessage, inputs: ControlInputs): ControlEvent<'trigger'> {
  const id = inputs.windowId();
  if (id === undefined) {
    throw MediaSpacesError.invalidInput('trigger needs msg.window_id: the id of the window to start now', {
      window_id: 'is required',
    });
  }
  const ids = inputs.windowIds();
  if (!ids.includes(id)) {
    const known = ids.join(', ') || 'none';
    throw MediaSpacesError.invalidInput(`no window with id ${quoteShort(id)} (windows: ${known})`, {
      window_id: 'unknown window',
    });
  }
  // the start goes out under this message's id
  return { kind: 'trigger', windowId: id, ...(typeof msg._msgid === 'string' ? { msgid: msg._msgid } : {}) };
}

function channelEvent(msg: NodeMessage, slotKey: string): ControlEvent<'channel'> {
  // the same test of a channel as the end's, with coordination or without
  const channel = channelWithId(msg.payload);
  if (!channel) {
    throw MediaSpacesError.invalidInput(
      `a message with msg.window.slotKey must carry the created channel (an object with an id) on msg.payload`,
      { payload: 'is not a channel' },
    );
  }
  return { kind: 'channel', slotKey, channel };
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

import { MediaSpacesError } from '../../lib/errors';
import { isPlainObject } from '../../lib/guards';
import { formatShort, isoSeconds, type UpcomingStart } from '../../lib/schedule';
import type { NodeMessage, Outputs } from '../shared/node-red-types';
import type { Act, ControlEvent, ControlResults, MessageKind } from './control-events';
import type { ScheduleSettings } from './settings';

/**
 * A control message's event carried out, and its one reply on output 3 (a trigger's start leaves on output 1
 * instead). Throws what the event's effect threw.
 */
export function answerControl(
  msg: NodeMessage,
  event: ControlEvent<MessageKind>,
  act: Act,
  source: ScheduleSettings['source'],
): Outputs | Promise<Outputs> {
  switch (event.kind) {
    case 'trigger':
      act(event);
      return [null, null, null];
    case 'pause':
    case 'resume':
      return reply(msg, event.kind, act(event));
    case 'skip':
      return reply(msg, event.kind, skippedPayload(act(event)));
    case 'reload':
      return reply(msg, event.kind, { reloaded: true, source, ...act(event) });
    case 'windows': {
      // a list shared through Redis is answered once Redis took it
      const listed = act(event);
      return listed instanceof Promise ? listed.then((p) => reply(msg, 'windows', p)) : reply(msg, 'windows', listed);
    }
    case 'list':
      return listReply(msg, act(event));
    case 'channel':
      return reply(msg, 'channel', channelPayload(event.slotKey, event.channel.id, act(event)));
  }
}

/** The start skipped, as the reply names it. */
export function skippedPayload(skipped: UpcomingStart): Record<string, unknown> {
  return {
    skipped: true,
    window_id: skipped.window_id,
    name: skipped.name,
    start: isoSeconds(skipped.start),
    local: `${formatShort(skipped.start, skipped.timezone)} ${skipped.timezone}`,
    slotKey: skipped.slotKey,
  };
}

/** The next starts on the payload, the slots in progress on msg.active, and whether the schedule is paused. */
export function listReply(msg: NodeMessage, listed: ControlResults['list']): Outputs {
  const upcoming = listed.upcoming.map((u) => ({
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
  msg.active = listed.active.map((s) => ({
    slotKey: s.key,
    window_id: s.windowId,
    name: s.window.name,
    start: isoSeconds(s.start),
    end: isoSeconds(s.end),
    channel_id: isPlainObject(s.channel) ? s.channel.id : undefined,
  }));
  msg.paused = listed.paused;
  return reply(msg, 'list', upcoming);
}

/** What became of a channel routed back; throws when no slot of this schedule could take it. */
export function channelPayload(
  slotKey: string,
  channelId: string,
  taken: ControlResults['channel'],
): Record<string, unknown> {
  const { led: completed, kept, lost, known } = taken;
  if (kept) return { slotKey, channel_id: channelId, remembered: true };
  // a channel an interruption replaced, reported late: the window records on its replacement
  if (lost) return { slotKey, channel_id: channelId, remembered: false, lost: true };
  // a start this instance led whose window ended here meanwhile: the channel is kept in Redis for the end
  if (completed) return { slotKey, channel_id: channelId, remembered: false, completed };
  // create-channel told the schedule of this channel first, and the window's end already used it
  if (known) return { slotKey, channel_id: channelId, remembered: false, known: true };
  throw MediaSpacesError.invalidInput(
    `no window of this schedule is in progress for slot ${slotKey}: the channel came back after the window ended, or belongs to another schedule`,
    { 'window.slotKey': 'not in progress' },
  );
}

function reply(msg: NodeMessage, topic: string, payload: unknown): Outputs {
  msg.topic = topic;
  msg.payload = payload;
  return [null, null, msg];
}

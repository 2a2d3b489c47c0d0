import type { MediaSpacesError } from '../../lib/errors';
import {
  formatIssue,
  formatShort,
  formatTime,
  occurrenceName,
  ScheduleConfigError,
  type Scheduler,
} from '../../lib/schedule';
import type { SlotView } from '../../lib/schedule/slot-lives';
import type { UnreachablePolicy } from '../shared/coordination-provider';
import type { NodeStatus } from '../shared/node-red-types';

/** What the badge shows comes from these. */
interface StatusView {
  configError: MediaSpacesError | undefined;
  windowCount: number;
  scheduler: Scheduler | undefined;
  /** the slot's state machine, when this instance follows it */
  slot?(key: string): SlotView | undefined;
}

/**
 * The badge: a configuration error when there are no windows to run, else
 * the recording in progress, paused, a failed reload, or the next start.
 */
export function scheduleStatus({ configError, windowCount, scheduler, slot }: StatusView): NodeStatus {
  if (configError && windowCount === 0) {
    const first = configError instanceof ScheduleConfigError ? formatIssue(configError.issues[0]) : configError.message;
    return { fill: 'red', shape: 'ring', text: truncate(first, 80) };
  }
  if (!scheduler) return { fill: 'grey', shape: 'ring', text: 'starting' };
  const active = scheduler.activeSlots();
  if (active.length > 0) {
    const first = active[0];
    const more = active.length > 1 ? ` (+${active.length - 1})` : '';
    const until = formatTime(first.end, first.window.timezone);
    const paused = scheduler.paused ? 'paused; ' : '';
    const { fill, text } = slotText(
      occurrenceName(first.window.name, first.programme),
      until,
      slot?.(first.key),
      first.channel !== undefined,
    );
    return {
      fill: scheduler.paused ? 'yellow' : fill,
      shape: fill === 'green' ? 'dot' : 'ring',
      text: truncate(`${paused}${text}${more}`, 80),
    };
  }
  if (scheduler.paused) return { fill: 'yellow', shape: 'ring', text: 'paused' };
  if (configError) return { fill: 'red', shape: 'ring', text: truncate(`reload failed: ${configError.message}`, 80) };
  const next = scheduler.nextStart();
  if (!next) return { fill: 'grey', shape: 'ring', text: windowCount ? 'no upcoming starts' : 'no windows' };
  return {
    fill: 'blue',
    shape: 'ring',
    text: truncate(
      `next: ${formatShort(next.start, next.window.timezone)} ${next.window.timezone}${skipping(scheduler)}`,
      80,
    ),
  };
}

/**
 * What the badge says of the first slot in progress: what its state machine knows, never "recording" before a
 * channel records. A slot without one (its start output goes to a flow that does not create channels here)
 * is only "open".
 */
function slotText(
  name: string,
  until: string,
  view: SlotView | undefined,
  hasChannel: boolean,
): { fill: NodeStatus['fill']; text: string } {
  switch (view?.phase) {
    case 'starting':
      return view.lastFailure
        ? { fill: 'yellow', text: `starting ${name}, attempt ${Math.max(1, view.attempts)}: ${view.lastFailure}` }
        : { fill: 'blue', text: `starting: ${name} until ${until}` };
    case 'interrupted':
      return { fill: 'yellow', text: `interrupted, restarting: ${name} until ${until}` };
    case 'stopping':
    case 'finishing':
      return { fill: 'blue', text: `stopping: ${name}` };
    case 'recording':
      return { fill: 'green', text: `recording: ${name} until ${until}` };
    default:
      return hasChannel
        ? { fill: 'green', text: `recording: ${name} until ${until}` }
        : { fill: 'blue', text: `window open: ${name} until ${until}` };
  }
}

/** A feed window's state as the badge reads it. */
export interface FeedBadge {
  windowId: string;
  ok: boolean;
  staleSince?: Date;
  lastError?: string;
}

/**
 * A stale feed is said first, in yellow, on every badge but an error's: the plan in use is the last good one
 * ("feed stale since 18:02: HTTP 503"), with the time in the schedule's zone.
 */
export function withFeeds(status: NodeStatus, feeds: readonly FeedBadge[], timezone: string): NodeStatus {
  const stale = feeds.find((f) => !f.ok);
  if (!stale || status.fill === 'red') return status;
  const since = stale.staleSince ? ` since ${formatTime(stale.staleSince.getTime(), timezone).slice(0, 5)}` : '';
  const why = stale.lastError ? `: ${stale.lastError}` : '';
  return {
    fill: 'yellow',
    shape: 'ring',
    text: truncate(`${stale.windowId} feed stale${since}${why}; ${status.text ?? ''}`, 80),
  };
}

/**
 * Without a server the schedule cannot stop a recording at its window's end
 * (nor read it until finished, nor look a follow-up's workflow up by name):
 * said first, in yellow, on every badge but an error's.
 */
export function withoutServer(status: NodeStatus): NodeStatus {
  if (status.fill === 'red') return status;
  return {
    fill: 'yellow',
    shape: status.shape,
    // the badge's own text is at most 80 characters already
    text: `no server: recordings will not be stopped${status.text ? `; ${status.text}` : ''}`,
  };
}

/** "; skipping <window> <start>" for the first skipped start, when one is. */
function skipping(scheduler: Scheduler): string {
  if (scheduler.skippedCount === 0) return '';
  const first = scheduler.upcoming(20).find((u) => u.skipped);
  return first ? `; skipping ${first.name} ${formatShort(first.start, first.timezone)}` : '';
}

function truncate(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

/** What the coordination adds to the badge. */
interface CoordinationView {
  connection: { state: string; error?: string };
  policy: UnreachablePolicy;
  role: { kind: 'leading' | 'standby' | 'unreachable'; text: string; until: number } | undefined;
}

/**
 * With coordination: Redis out of reach (and what the slots do meanwhile)
 * comes first, then this instance's role in the latest slot while it lasts,
 * else the schedule's own badge.
 */
export function coordinatedStatus(base: NodeStatus, view: CoordinationView, now = Date.now()): NodeStatus {
  const { connection, policy, role } = view;
  const acting = policy === 'alone' ? 'acting alone' : 'skipping slots';
  if (connection.state === 'error' || connection.state === 'closed') {
    const why = connection.error ? ` (${connection.error})` : '';
    return { fill: 'red', shape: 'ring', text: truncate(`Redis unreachable: ${acting}${why}`, 80) };
  }
  if (role && now < role.until) {
    if (role.kind === 'unreachable') return { fill: 'red', shape: 'ring', text: role.text };
    return { fill: role.kind === 'leading' ? 'green' : 'grey', shape: 'dot', text: truncate(role.text, 80) };
  }
  return base;
}

/** Lists kept on this instance only (Redis could not be used when they were sent): said on the badge. */
export function withPendingLists(status: NodeStatus, pending: number): NodeStatus {
  if (pending === 0) return status;
  const note = `${pending} list${pending === 1 ? '' : 's'} kept here until Redis is back`;
  const text = typeof status.text === 'string' && status.text !== '' ? `${status.text} · ${note}` : note;
  return { fill: status.fill === 'red' ? 'red' : 'yellow', shape: 'ring', text: truncate(text, 80) };
}

import { channelFieldsFromText } from '../channel-fields';
import type { ChannelTemplate, ScheduleWindow } from './config';
import { renderTemplates } from './template';
import { formatDate, formatLocalIso, formatTime, isoSeconds } from './tz';

/** Why a start was emitted. */
export type StartReason = 'scheduled' | 'catch-up' | 'manual';

/** One occurrence of a window. Times are epoch milliseconds. */
export interface Slot {
  key: string;
  windowId: string;
  start: number;
  end: number;
  reason: StartReason;
}

/** `msg.window` of start and end messages. */
export interface WindowInfo {
  id: string;
  name: string;
  /** ISO 8601, UTC */
  start: string;
  end: string;
  timezone: string;
  slotKey: string;
  reason: StartReason;
}

export interface StartMessage {
  payload: Record<string, unknown>;
  idempotency_key: string;
  window: WindowInfo;
  topic: string;
}

export interface EndMessage {
  workflow_id?: string;
  workflow?: string;
  job_name?: string;
  payload: Record<string, unknown>;
  idempotency_key: string;
  window: WindowInfo;
  channel?: unknown;
  /** template paths that resolved to nothing (for example channel.id when no channel came back) */
  unresolved?: string[];
  topic: string;
}

/** `<schedule id>:<window id>:<slot start, ISO 8601 UTC>` — the Idempotency-Key of the slot's channel. */
export function slotKey(scheduleId: string, windowId: string, start: number): string {
  return `${scheduleId}:${windowId}:${isoSeconds(start)}`;
}

export function windowInfo(window: ScheduleWindow, slot: Slot): WindowInfo {
  return {
    id: window.id,
    name: window.name,
    start: isoSeconds(slot.start),
    end: isoSeconds(slot.end),
    timezone: window.timezone,
    slotKey: slot.key,
    reason: slot.reason,
  };
}

/** What templates can read: `window`, `slot`, `schedule` and, for the follow-up, `channel`. */
export function templateContext(
  scheduleId: string,
  window: ScheduleWindow,
  slot: Slot,
  channel?: unknown,
): Record<string, unknown> {
  const tz = window.timezone;
  const info = windowInfo(window, slot);
  const context: Record<string, unknown> = {
    window: {
      ...info,
      cron: window.cron,
      duration: window.duration,
      duration_hours: Math.max(1, Math.ceil(window.duration / 3600)),
    },
    slot: {
      key: slot.key,
      start: info.start,
      end: info.end,
      date: formatDate(slot.start, tz),
      time: formatTime(slot.start, tz),
      end_date: formatDate(slot.end, tz),
      end_time: formatTime(slot.end, tz),
      local_start: formatLocalIso(slot.start, tz),
      local_end: formatLocalIso(slot.end, tz),
      epoch: Math.floor(slot.start / 1000),
      reason: slot.reason,
    },
    schedule: { id: scheduleId },
  };
  if (channel !== undefined && channel !== null) context.channel = channel;
  return context;
}

export const DEFAULT_CHANNEL_NAME = '{{window.name}} {{slot.date}} {{slot.time}}';
export const DEFAULT_JOB_NAME = '{{window.name}} {{slot.date}} {{slot.time}}';

/** The message for create-channel: the templated channel request, keyed by the slot. */
export function buildStartMessage(scheduleId: string, window: ScheduleWindow, slot: Slot): StartMessage {
  const template: ChannelTemplate = { name: DEFAULT_CHANNEL_NAME, ...window.channel };
  const rendered = renderTemplates(template, templateContext(scheduleId, window, slot)) as Record<string, unknown>;
  return {
    topic: `${window.name}`,
    payload: channelFieldsFromText(rendered),
    idempotency_key: slot.key,
    window: windowInfo(window, slot),
  };
}

/**
 * The message for submit-job at the end of the slot: the follow-up's short
 * form with templates resolved against the channel (when one came back).
 */
export function buildEndMessage(scheduleId: string, window: ScheduleWindow, slot: Slot, channel?: unknown): EndMessage {
  const unresolved = new Set<string>();
  const context = templateContext(scheduleId, window, slot, channel);
  const followup = window.followup ?? {};
  const payload: Record<string, unknown> = {};
  for (const key of ['variables', 'media_nicknames', 'attachments', 'labels'] as const) {
    if (followup[key] !== undefined) payload[key] = renderTemplates(followup[key], context, unresolved);
  }
  const out: EndMessage = {
    topic: `${window.name}`,
    payload,
    idempotency_key: `${slot.key}:end`,
    window: windowInfo(window, slot),
  };
  if (followup.workflow_id !== undefined) {
    out.workflow_id = String(renderTemplates(followup.workflow_id, context, unresolved));
  }
  if (followup.workflow !== undefined) out.workflow = String(renderTemplates(followup.workflow, context, unresolved));
  if (window.followup) {
    const jobName = renderTemplates(followup.job_name ?? DEFAULT_JOB_NAME, context, unresolved);
    if (jobName !== '') out.job_name = String(jobName);
  }
  if (channel !== undefined && channel !== null) out.channel = channel;
  if (unresolved.size > 0) out.unresolved = [...unresolved];
  return out;
}

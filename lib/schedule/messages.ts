import { channelFieldsFromText } from '../channel-fields';
import { INPUT_KINDS } from '../rules';
import type { ChannelTemplate, ScheduleWindow } from './config';
import { DEFAULT_CHANNEL_NAME, DEFAULT_JOB_NAME } from './default-names';
import { renderTemplates } from './template';
import { occurrenceName, type Slot, templateContext, type WindowInfo, windowInfo } from './template-context';

export {
  type ContextWindow,
  occurrenceName,
  type Slot,
  type StartReason,
  slotKey,
  templateContext,
  type WindowInfo,
  windowInfo,
} from './template-context';

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
  /** every channel that recorded part of the window, in order, when its recording was interrupted */
  segments?: unknown[];
  /** the recording was interrupted: it has gaps */
  partial?: boolean;
  gaps?: { from: string; to: string; why: string }[];
  topic: string;
}

export { DEFAULT_CHANNEL_NAME, DEFAULT_JOB_NAME } from './default-names';

/** The message for create-channel: the templated channel request, keyed by the slot. */
export function buildStartMessage(scheduleId: string, window: ScheduleWindow, slot: Slot): StartMessage {
  const template: ChannelTemplate = { name: DEFAULT_CHANNEL_NAME, ...window.channel };
  const rendered = renderTemplates(template, templateContext(scheduleId, window, slot)) as Record<string, unknown>;
  return {
    topic: occurrenceName(window.name, slot.programme),
    payload: channelFieldsFromText(rendered),
    idempotency_key: slot.key,
    window: windowInfo(window, slot),
  };
}

/**
 * The message for submit-job at the end of the slot: the follow-up's short
 * form with templates resolved against the channel (when one came back).
 */
export function buildEndMessage(
  scheduleId: string,
  window: ScheduleWindow,
  slot: Slot,
  channel?: unknown,
  segments?: readonly unknown[],
): EndMessage {
  const unresolved = new Set<string>();
  const context = templateContext(scheduleId, window, slot, channel, segments);
  const followup = window.followup ?? {};
  const payload: Record<string, unknown> = {};
  for (const key of INPUT_KINDS) {
    if (followup[key] !== undefined) payload[key] = renderTemplates(followup[key], context, unresolved);
  }
  const out: EndMessage = {
    topic: occurrenceName(window.name, slot.programme),
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
  if (segments && segments.length > 1) out.segments = [...segments];
  if (unresolved.size > 0) out.unresolved = [...unresolved];
  return out;
}

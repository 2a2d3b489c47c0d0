import { expectedPropertiesText, recordingFlag } from '../../lib/channel-fields';
import { requestPayload } from '../shared/inputs';
import type { SettingsOf } from '../shared/settings';
import type { FIELDS } from './fields';

/**
 * The request fields the node's settings give, read by their fields' rules
 * (fields.ts): blank ones are left out. The node keeps Node-RED's camelCase
 * property names (and `channelName`, because `name` is the node's own label).
 */
export function channelSettings(settings: SettingsOf<typeof FIELDS>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  const texts = [
    ['name', settings.channelName],
    ['description', settings.description],
    ['source_id', settings.sourceId],
    ['expected_properties', settings.expectedProperties],
    ['region', settings.region],
  ] as const;
  for (const [field, value] of texts) {
    if (value !== '') out[field] = value;
  }
  const continuous = recordingFlag(settings.continuousRecording);
  if (continuous !== undefined) out.continuous_recording = continuous;
  if (settings.recordingDuration !== undefined) out.recording_duration = settings.recordingDuration;
  const tags = settings.tags
    .split(',')
    .map((t) => t.trim())
    .filter((t) => t !== '');
  if (tags.length > 0) out.tags = tags;
  return out;
}

/**
 * The create-channel request: the settings with msg.payload merged over them.
 * The merge follows JSON merge patch: a payload field replaces the setting,
 * and null removes it, so a flow can leave out a field the node sets. The
 * library then validates the whole request strictly.
 */
export function channelRequest(settings: Record<string, unknown>, payload: unknown): Record<string, unknown> {
  const fields = requestPayload(payload, 'must be a channel create request object such as {name: "Studio 1"}');
  const request: Record<string, unknown> = { ...settings };
  for (const [field, value] of Object.entries(fields ?? {})) {
    if (value === null) delete request[field];
    else if (value !== undefined) request[field] = value;
  }
  if (request.expected_properties !== undefined && typeof request.expected_properties !== 'string') {
    request.expected_properties = expectedPropertiesText(request.expected_properties);
  }
  return request;
}

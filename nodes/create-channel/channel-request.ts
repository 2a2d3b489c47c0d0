import { expectedPropertiesText, recordingFlag } from '../../lib/channel-fields';
import { requestPayload } from '../shared/inputs';
import { wholeNumber } from '../shared/message-fields';

/**
 * The create-channel request from the node's settings (as the editor stores
 * them: text boxes and selects) with msg.payload merged over it. The merge
 * follows JSON merge patch: a payload field replaces the setting, and null
 * removes it, so a flow can leave out a field the node sets.
 */
/**
 * The request fields the node's settings give; empty settings are left out.
 * The node keeps Node-RED's camelCase property names (and `channelName`,
 * because `name` is the node's own label).
 */
export function channelSettings(def: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  const texts = [
    ['name', def.channelName],
    ['description', def.description],
    ['source_id', def.sourceId],
    ['expected_properties', def.expectedProperties],
    ['region', def.region],
  ] as const;
  for (const [field, value] of texts) {
    if (typeof value === 'string' && value.trim() !== '') out[field] = value.trim();
  }
  const continuous = recordingFlag(def.continuousRecording);
  if (continuous !== undefined) out.continuous_recording = continuous;
  const duration = def.recordingDuration;
  if (duration !== undefined && duration !== null && duration !== '') {
    out.recording_duration = wholeNumber('recording_duration (node setting)', duration);
  }
  if (typeof def.tags === 'string' && def.tags.trim() !== '') {
    out.tags = def.tags
      .split(',')
      .map((t) => t.trim())
      .filter((t) => t !== '');
  }
  return out;
}

/** Settings with msg.payload merged over them; the library then validates the whole request strictly. */
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

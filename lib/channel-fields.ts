import { MediaSpacesError } from './errors';
import { isPlainObject } from './guards';
import { ChannelCreateRequest } from './schemas';
import { describeType } from './submit-input';

/**
 * The create-channel request fields that arrive as text (the create-channel
 * node's text boxes and selects, a schedule's YAML after its templates are
 * rendered) converted to the types the service takes. One set of rules for
 * both, so that a schedule and a create-channel node send the same request
 * for the same text.
 */

/**
 * The create-channel request's fields, read from its schema: the one list a
 * window's channel template (schedule/config.ts) and the create-channel
 * node's settings (nodes/create-channel/channel-request.ts) follow.
 */
export const CHANNEL_FIELDS = ChannelCreateRequest.keyof().options;
export type ChannelField = (typeof CHANNEL_FIELDS)[number];

/** continuous_recording: a boolean, or the text "true"/"false" (any case); undefined for anything else. */
function recordingFlag(value: unknown): boolean | undefined {
  if (typeof value === 'boolean') return value;
  if (typeof value !== 'string') return undefined;
  const text = value.trim().toLowerCase();
  if (text === 'true') return true;
  if (text === 'false') return false;
  return undefined;
}

/** recording_duration given as digits ("4"): the number; undefined when it is not such text. */
function hoursFromText(value: unknown): number | undefined {
  return typeof value === 'string' && /^\d+$/.test(value.trim()) ? Number(value.trim()) : undefined;
}

/** expected_properties travels as a JSON string; an object (or list) is serialised for it. */
export function expectedPropertiesText(value: unknown): string {
  if (typeof value === 'string') return value;
  if (!isPlainObject(value) && !Array.isArray(value)) {
    const rule = 'must be an object or a JSON string';
    throw MediaSpacesError.invalidInput(`expected_properties ${rule}, got ${describeType(value)}`, {
      expected_properties: rule,
    });
  }
  try {
    return JSON.stringify(value);
  } catch (error) {
    throw MediaSpacesError.invalidInput(
      `expected_properties cannot be written as JSON: ${error instanceof Error ? error.message : String(error)}`,
      { expected_properties: 'cannot be written as JSON' },
    );
  }
}

/**
 * A rendered channel template (or the create-channel node's text boxes) as a
 * create request: each field converted where its text says what it is (tags
 * as comma-separated text), anything else left as it is for the request's
 * schema to report.
 */
export function channelFieldsFromText(fields: Record<string, unknown>): Record<string, unknown> {
  const out = { ...fields };
  if (typeof out.tags === 'string') {
    out.tags = out.tags
      .split(',')
      .map((t) => t.trim())
      .filter((t) => t !== '');
  }
  if (isPlainObject(out.expected_properties)) out.expected_properties = expectedPropertiesText(out.expected_properties);
  const hours = hoursFromText(out.recording_duration);
  if (hours !== undefined) out.recording_duration = hours;
  if (typeof out.continuous_recording === 'string') {
    const flag = recordingFlag(out.continuous_recording);
    if (flag !== undefined) out.continuous_recording = flag;
  }
  return out;
}

import {
  CHANNEL_FIELDS,
  type ChannelField,
  channelFieldsFromText,
  expectedPropertiesText,
} from '../../lib/channel-fields';
import { requestPayload } from '../shared/inputs';
import type { SettingsOf } from '../shared/settings';
import type { FIELDS } from './fields';

type Camel<S extends string> = S extends `${infer Head}_${infer Tail}` ? `${Head}${Capitalize<Camel<Tail>>}` : S;

/**
 * The node's setting of a request field: its camelCase name, `channelName`
 * for `name` (the node's own label is `name`). Reading the settings by it
 * does not compile while a request field has no setting in fields.ts.
 */
type ChannelSetting = { [F in ChannelField]: F extends 'name' ? 'channelName' : Camel<F> }[ChannelField];

const settingOf = (field: ChannelField) =>
  (field === 'name' ? 'channelName' : field.replace(/_(\w)/g, (_m, c: string) => c.toUpperCase())) as ChannelSetting;

/**
 * The request fields the node's settings give, each request field (the
 * library's list) from its setting, converted from the dialog's text as a
 * schedule's template is (channelFieldsFromText); blank ones are left out.
 */
export function channelSettings(settings: SettingsOf<typeof FIELDS>): Record<string, unknown> {
  const text: Record<string, unknown> = {};
  for (const field of CHANNEL_FIELDS) {
    const value: unknown = settings[settingOf(field)];
    if (value !== '' && value !== undefined) text[field] = value;
  }
  return channelFieldsFromText(text);
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

import {
  anything,
  fieldTable,
  flag,
  idempotencyKeyField,
  optional,
  serverField,
  textOrEmpty,
  whole,
} from '../shared/fields';

const trimmed = () => textOrEmpty({ trim: true });

/**
 * The create-channel node's fields: a setting per field of the library's
 * create request (CHANNEL_FIELDS, its schema's keys), under its camelCase
 * name, as the dialog stores them (text boxes and selects); channelSettings
 * (channel-request.ts) turns them into the request, and does not compile
 * while a request field lacks its setting here. `channelName`, because
 * `name` is the node's own label. msg.payload is merged over the request.
 */
export const FIELDS = fieldTable({
  server: serverField,
  channelName: { value: '', rule: trimmed() },
  description: { value: '', rule: trimmed() },
  // checked by the library on the request, after msg.payload is merged over it (it may replace or remove them)
  sourceId: { value: '', rule: trimmed() },
  expectedProperties: { value: '', rule: trimmed() },
  region: { value: '', rule: trimmed() },
  /** '' (not set), 'true' or 'false' from the select; read by the library's channelFieldsFromText, as a schedule's. */
  continuousRecording: { value: '', rule: anything() },
  /** Hours; the service's range is the library's to check. */
  recordingDuration: {
    value: '',
    rule: optional(whole(0, Number.MAX_SAFE_INTEGER, 'must be a whole number of hours'), { null: 'unset' }),
  },
  /** Comma separated (channelFieldsFromText makes the list). */
  tags: { value: '', rule: trimmed() },
  /**
   * "Show state": follow each created channel's state in the status and on
   * output 2. On for new nodes; off when the property is missing, so flows
   * saved before it existed make no extra requests.
   */
  watchState: { value: true, missing: false, rule: flag(false) },
  idempotencyKey: idempotencyKeyField,
});

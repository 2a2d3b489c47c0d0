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
 * The create-channel node's fields: the request fields as the dialog stores
 * them (text boxes and selects), which channelSettings (channel-request.ts)
 * turns into the request; blank ones are left out. `channelName`, because
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
  /** '' (not set), 'true' or 'false' from the select; read by the library's recordingFlag, as a schedule's. */
  continuousRecording: { value: '', rule: anything() },
  /** Hours; the service's range is the library's to check. */
  recordingDuration: {
    value: '',
    rule: optional(whole(0, Number.MAX_SAFE_INTEGER, 'must be a whole number of hours'), { null: 'unset' }),
  },
  /** Comma separated. */
  tags: { value: '', rule: trimmed() },
  /**
   * "Show state": follow each created channel's state in the status and on
   * output 2. On for new nodes; off when the property is missing, so flows
   * saved before it existed make no extra requests.
   */
  watchState: { value: true, missing: false, rule: flag(false) },
  idempotencyKey: idempotencyKeyField,
});

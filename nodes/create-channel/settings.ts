import { z } from 'zod';
import { type InputMap, idempotencyKeyInput } from '../shared/inputs';
import { channelSettings } from './channel-request';

const text = () => z.string().optional();

/**
 * The request fields as the editor stores them (text boxes and selects);
 * channelSettings (channel-request.ts) turns them into request fields.
 * `channelName`, because `name` is the node's own label.
 */
const Fields = z.object({
  server: z.string().default(''),
  channelName: text(),
  description: text(),
  sourceId: text(),
  expectedProperties: text(),
  region: text(),
  continuousRecording: z.union([z.boolean(), z.string()]).optional(),
  recordingDuration: z.union([z.number(), z.string()]).nullish(),
  tags: text(),
});

/** The request fields the settings give (a bad one throws the MediaSpacesError naming it). */
export const CreateChannelSettings = Fields.transform((fields) => channelSettings(fields));
export type CreateChannelSettings = z.infer<typeof CreateChannelSettings>;

/** msg.payload is merged over the settings (channelRequest); msg.idempotency_key sets the header. */
export const CREATE_INPUTS = { idempotencyKey: idempotencyKeyInput } satisfies InputMap;

/**
 * "Show state": follow each created channel's state in the status and on
 * output 2. Off when the property is missing, so flows saved before it
 * existed make no extra requests; the editor turns it on for new nodes.
 */
export const WatchSettings = z.object({
  watchState: z
    .union([z.boolean(), z.string()])
    .optional()
    .transform((v) => v === true || v === 'true'),
});

import type { z } from 'zod';
import { inputMap, settingsSchema } from '../shared/settings';
import { channelSettings } from './channel-request';
import { FIELDS } from './fields';

/** The request fields the settings give (channel-request.ts), each setting read by its field's rule first. */
export const CreateChannelSettings = settingsSchema(FIELDS).transform(channelSettings);
export type CreateChannelSettings = z.infer<typeof CreateChannelSettings>;

/** msg.idempotency_key sets the header; msg.payload is merged over the settings (channelRequest). */
export const CREATE_INPUTS = inputMap(FIELDS, 'media-spaces-create-channel');

/** "Show state" alone, read before the node starts (its field says why a missing one is off). */
export const WatchSettings = settingsSchema({ watchState: FIELDS.watchState });

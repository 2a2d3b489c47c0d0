import type { z } from 'zod';
import { inputMap, settingsSchema } from '../shared/settings';
import { FIELDS } from './fields';

export const DeleteEventSettings = settingsSchema(FIELDS);
export type DeleteEventSettings = z.infer<typeof DeleteEventSettings>;

/** msg.event_id, else the Event setting (a typed input). */
export const DELETE_INPUTS = inputMap(FIELDS, 'media-spaces-delete-event');

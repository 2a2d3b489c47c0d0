import { z } from 'zod';
import { type InputMap, required } from '../shared/inputs';

export const DeleteEventSettings = z.object({
  server: z.string().default(''),
  eventId: z.unknown().optional(),
  eventIdType: z.string().optional(),
});
export type DeleteEventSettings = z.infer<typeof DeleteEventSettings>;

/** msg.event_id, else the Event setting (a typed input); the library checks the id itself. */
export const DELETE_INPUTS = {
  eventId: {
    message: 'event_id',
    setting: 'eventId',
    typeField: 'eventIdType',
    schema: required('set the Event setting or msg.event_id'),
  },
} satisfies InputMap;

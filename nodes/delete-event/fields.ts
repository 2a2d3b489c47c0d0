import { fieldTable, required, serverField } from '../shared/fields';

/** The delete-event node's fields: the event id, msg.event_id by default; the library checks the id itself. */
export const FIELDS = fieldTable({
  server: serverField,
  eventId: {
    value: 'event_id',
    message: 'event_id',
    types: ['str', 'msg', 'flow', 'global', 'env'],
    type: 'msg',
    rule: required('set the Event setting or msg.event_id'),
  },
});

import { resolveInputs } from '../shared/inputs';
import type { Node, NodeAPI, NodeDef } from '../shared/node-red-types';
import { respond, runOperationNode } from '../shared/operation';
import { FIELDS } from './fields';
import { DELETE_INPUTS, DeleteEventSettings } from './settings';

/** The node's runtime, from its deploy on: one delete per message. */
export function start(RED: NodeAPI, node: Node, def: NodeDef): void {
  runOperationNode(RED, node, def, {
    context: 'Delete event',
    area: 'liveCapture',
    settings: DeleteEventSettings,
    fields: FIELDS,
    async perform(msg, { settings, client, signal }) {
      const { eventId } = await resolveInputs(RED, node, msg, settings, DELETE_INPUTS);
      // the library checks the id and encodes it as one path segment
      const response = await client.deleteEvent(eventId as string, { signal });
      msg.event_id = eventId;
      // a retry that found the event gone after an earlier attempt's answer was lost is a success too
      return respond(
        msg,
        { ...response, data: response.data ?? null },
        response.alreadyGone ? 'already deleted' : 'deleted',
      );
    },
  });
}

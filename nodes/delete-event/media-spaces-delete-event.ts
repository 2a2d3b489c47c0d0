import { MediaSpacesError } from '../../lib/errors';
import { given } from '../shared/message-fields';
import type { Node, NodeAPI, NodeDef } from '../shared/node-red-types';
import { handleOperation, respond } from '../shared/operation';
import { evaluateSetting } from '../shared/typed-input';

/** media-spaces-delete-event: deletes a live-capture event by id (msg.event_id, else the node's setting). */
export = function register(RED: NodeAPI): void {
  function DeleteEventNode(this: Node, def: NodeDef): void {
    RED.nodes.createNode(this, def);
    const node = this;

    handleOperation(RED, node, {
      context: 'Delete event',
      area: 'liveCapture',
      serverId: def.server,
      async perform(msg, client, signal) {
        const eventId = given(msg, 'event_id')
          ? msg.event_id
          : await evaluateSetting(RED, node, msg, { name: 'event_id', value: def.eventId, type: def.eventIdType });
        if (eventId === undefined || eventId === null || eventId === '') {
          throw MediaSpacesError.invalidInput('event_id is required: set the Event setting or msg.event_id', {
            event_id: 'is required',
          });
        }
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

  RED.nodes.registerType('media-spaces-delete-event', DeleteEventNode);
};

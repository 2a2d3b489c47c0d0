import type { Node, NodeAPI, NodeDef } from '../shared/node-red-types';

/** media-spaces-delete-event: deletes a live-capture event by id (msg.event_id, else the node's setting). */
export = function register(RED: NodeAPI): void {
  function DeleteEventNode(this: Node, def: NodeDef): void {
    RED.nodes.createNode(this, def);
    // required on first deploy, not at Node-RED start
    const { resolveInputs } = require('../shared/inputs') as typeof import('../shared/inputs');
    const { respond } = require('../shared/operation') as typeof import('../shared/operation');
    const { runOperationNode } = require('../shared/operation-node') as typeof import('../shared/operation-node');
    const { dialogLabels } = require('../shared/settings') as typeof import('../shared/settings');
    const { FIELDS } = require('./fields') as typeof import('./fields');
    const { DELETE_INPUTS, DeleteEventSettings } = require('./settings') as typeof import('./settings');
    runOperationNode(RED, this, def, {
      context: 'Delete event',
      area: 'liveCapture',
      settings: DeleteEventSettings,
      labels: dialogLabels(RED, def.type, FIELDS),
      async perform(msg, { node, settings, client, signal }) {
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
  RED.nodes.registerType('media-spaces-delete-event', DeleteEventNode);
};

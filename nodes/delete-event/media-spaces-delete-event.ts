import type { Node, NodeAPI, NodeDef } from '../shared/node-red-types';

/** media-spaces-delete-event: deletes a live-capture event by id (msg.event_id, else the node's setting). */
export = function register(RED: NodeAPI): void {
  function DeleteEventNode(this: Node, def: NodeDef): void {
    RED.nodes.createNode(this, def);
    // required on first deploy, not at Node-RED start
    const { start } = require('./controller') as typeof import('./controller');
    start(RED, this, def);
  }
  RED.nodes.registerType('media-spaces-delete-event', DeleteEventNode);
};

import type { Node, NodeAPI, NodeDef } from '../shared/node-red-types';

/**
 * media-spaces-create-channel: creates a recording channel from the node's
 * settings with msg.payload merged over them; with "Show state", follows the
 * channel's state until it records and on until it is stopped (status, and
 * output 2). A schedule's start
 * is tried until its window's end (controller.ts).
 */
export = function register(RED: NodeAPI): void {
  function CreateChannelNode(this: Node & { send(msg: unknown): void }, def: NodeDef): void {
    RED.nodes.createNode(this, def);
    // required on first deploy, not at Node-RED start
    const { start } = require('./controller') as typeof import('./controller');
    start(RED, this, def);
  }
  RED.nodes.registerType('media-spaces-create-channel', CreateChannelNode);
};

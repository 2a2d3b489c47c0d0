import type { Node, NodeAPI, NodeDef } from '../shared/node-red-types';

/**
 * media-spaces-submit-job: submits a job to a workflow. The node's inputs
 * (short or full form) are the base; msg.payload, in either form, is merged
 * over them by the library, which checks every value against its typecode
 * before anything is sent.
 */
export = function register(RED: NodeAPI): void {
  function SubmitJobNode(this: Node, def: NodeDef): void {
    RED.nodes.createNode(this, def);
    // required here, not at the top: Node-RED loads every installed package at start, and a flow
    // without this node must not pay for zod and the client
    const { start } = require('./controller') as typeof import('./controller');
    start(RED, this, def);
  }
  RED.nodes.registerType('media-spaces-submit-job', SubmitJobNode);
};

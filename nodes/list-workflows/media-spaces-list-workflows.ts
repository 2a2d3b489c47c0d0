import type { Node, NodeAPI, NodeDef } from '../shared/node-red-types';

/**
 * media-spaces-list-workflows: the space's workflows, as one array (all
 * pages), one page with its continuation token (for a loop in the flow), or
 * one message per workflow (for a join node).
 */
export = function register(RED: NodeAPI): void {
  function ListWorkflowsNode(this: Node, def: NodeDef): void {
    RED.nodes.createNode(this, def);
    // required on first deploy, not at Node-RED start
    const { start } = require('./controller') as typeof import('./controller');
    start(RED, this, def);
  }
  RED.nodes.registerType('media-spaces-list-workflows', ListWorkflowsNode);
};

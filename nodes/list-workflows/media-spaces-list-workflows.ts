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
    const { runOperationNode } = require('../shared/operation-node') as typeof import('../shared/operation-node');
    const { listWorkflows } = require('./controller') as typeof import('./controller');
    const { dialogLabels } = require('../shared/settings') as typeof import('../shared/settings');
    const { FIELDS } = require('./fields') as typeof import('./fields');
    const { ListWorkflowsSettings } = require('./settings') as typeof import('./settings');
    runOperationNode(RED, this, def, {
      context: 'List workflows',
      area: 'workflow',
      settings: ListWorkflowsSettings,
      labels: dialogLabels(RED, def.type, FIELDS),
      perform: listWorkflows,
    });
  }
  RED.nodes.registerType('media-spaces-list-workflows', ListWorkflowsNode);
};

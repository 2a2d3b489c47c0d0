import type { Node, NodeAPI, NodeDef } from '../shared/node-red-types';
import { runOperationNode } from '../shared/operation-node';
import { listWorkflows } from './controller';
import { ListWorkflowsSettings, SETTING_LABELS } from './settings';

/**
 * media-spaces-list-workflows: the space's workflows, as one array (all
 * pages), one page with its continuation token (for a loop in the flow), or
 * one message per workflow (for a join node).
 */
export = function register(RED: NodeAPI): void {
  function ListWorkflowsNode(this: Node, def: NodeDef): void {
    RED.nodes.createNode(this, def);
    runOperationNode(RED, this, def, {
      context: 'List workflows',
      area: 'workflow',
      settings: ListWorkflowsSettings,
      labels: SETTING_LABELS,
      perform: listWorkflows,
    });
  }
  RED.nodes.registerType('media-spaces-list-workflows', ListWorkflowsNode);
};

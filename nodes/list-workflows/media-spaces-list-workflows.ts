import type { NodeAPI } from '../shared/node-red-types';
import { registerOperationNode } from '../shared/operation-node';
import { listWorkflows } from './controller';
import { ListWorkflowsSettings, SETTING_LABELS } from './settings';

/**
 * media-spaces-list-workflows: the space's workflows, as one array (all
 * pages), one page with its continuation token (for a loop in the flow), or
 * one message per workflow (for a join node).
 */
export = function register(RED: NodeAPI): void {
  registerOperationNode(RED, 'media-spaces-list-workflows', {
    context: 'List workflows',
    area: 'workflow',
    settings: ListWorkflowsSettings,
    labels: SETTING_LABELS,
    perform: listWorkflows,
  });
};

import { MediaSpacesError } from '../../lib/errors';
import type { Node, NodeAPI, NodeDef } from '../shared/node-red-types';
import { handleOperation } from '../shared/operation';
import { settingsOrError } from '../shared/settings';
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
    const node = this;
    // a bad setting fails every message with the reason, rather than the deploy
    const settings = settingsOrError(ListWorkflowsSettings, def, SETTING_LABELS);

    handleOperation(RED, node, {
      context: 'List workflows',
      area: 'workflow',
      serverId: def.server,
      async perform(msg, client, signal) {
        if (settings instanceof MediaSpacesError) throw settings;
        return listWorkflows(RED, node, settings, msg, client, signal);
      },
    });
  }

  RED.nodes.registerType('media-spaces-list-workflows', ListWorkflowsNode);
};

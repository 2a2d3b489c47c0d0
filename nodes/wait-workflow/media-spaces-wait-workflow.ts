import type { NodeAPI, NodeDef } from '../shared/node-red-types';
import { closeWith, type PollNode } from '../shared/poll-node';
import { readPollSettings } from '../shared/poll-settings';
import { clientFor } from '../shared/server-client';
import { StatusBoard } from '../shared/status-board';
import { WaitWorkflowController } from './controller';
import { WAIT_WORKFLOW_LABELS, waitWorkflowSettings } from './settings';

/**
 * media-spaces-wait-workflow: holds each input message until its workflow is
 * active, then passes it on with msg.workflow and msg.workflow_id. The
 * polling lives in lib/watch (WorkflowActiveWaiter).
 */
export = function register(RED: NodeAPI): void {
  function WaitWorkflowNode(this: PollNode, def: NodeDef): void {
    RED.nodes.createNode(this, def);
    const warn = (text: string) => this.warn(`media-spaces-wait-workflow: ${text}`);
    const settings = readPollSettings(waitWorkflowSettings, def, WAIT_WORKFLOW_LABELS, warn);
    const status = new StatusBoard(this);
    const controller = new WaitWorkflowController(this, settings, status, () => clientFor(RED, def.server, 'workflow'));
    this.on('input', (msg, send, done) => controller.input(msg, send, done));
    closeWith(this, status, () => controller.close());
  }

  RED.nodes.registerType('media-spaces-wait-workflow', WaitWorkflowNode);
};

import type { NodeAPI, NodeDef } from '../shared/node-red-types';
import type { PollNode } from '../shared/poll-node';

/**
 * media-spaces-wait-workflow: holds each input message until its workflow is
 * active, then passes it on with msg.workflow and msg.workflow_id. The
 * polling lives in lib/watch (WorkflowActiveWaiter).
 */
export = function register(RED: NodeAPI): void {
  function WaitWorkflowNode(this: PollNode, def: NodeDef): void {
    RED.nodes.createNode(this, def);
    // required on first deploy, not at Node-RED start
    const { closeWith } = require('../shared/poll-node') as typeof import('../shared/poll-node');
    const { dialogLabels, settingsWithWarnings } = require('../shared/settings') as typeof import('../shared/settings');
    const { clientFor } = require('../shared/server-client') as typeof import('../shared/server-client');
    const { StatusBoard } = require('../shared/status-board') as typeof import('../shared/status-board');
    const { WaitWorkflowController } = require('./controller') as typeof import('./controller');
    const { FIELDS } = require('./fields') as typeof import('./fields');
    const { waitWorkflowSettings } = require('./settings') as typeof import('./settings');
    const warn = (text: string) => this.warn(`media-spaces-wait-workflow: ${text}`);
    const settings = settingsWithWarnings(waitWorkflowSettings, def, dialogLabels(RED, def.type, FIELDS), warn);
    const status = new StatusBoard(this);
    const controller = new WaitWorkflowController(RED, this, settings, status, () =>
      clientFor(RED, def.server, 'workflow'),
    );
    this.on('input', (msg, send, done) => controller.input(msg, send, done));
    closeWith(this, status, () => controller.close());
  }

  RED.nodes.registerType('media-spaces-wait-workflow', WaitWorkflowNode);
};

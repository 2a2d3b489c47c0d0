import type { NodeAPI, NodeDef } from '../shared/node-red-types';
import type { PollNode } from '../shared/poll-node';

/**
 * media-spaces-watch-workflows: polls the workflow list and sends one
 * message per added, changed or removed workflow (output 1); an input polls
 * now and comes back on output 2 with the whole list. The polling lives in
 * lib/watch (WorkflowWatcher).
 */
export = function register(RED: NodeAPI): void {
  function WatchWorkflowsNode(this: PollNode, def: NodeDef): void {
    RED.nodes.createNode(this, def);
    // required on first deploy, not at Node-RED start
    const { closeWith } = require('../shared/poll-node') as typeof import('../shared/poll-node');
    const { dialogLabels, settingsWithWarnings } = require('../shared/settings') as typeof import('../shared/settings');
    const { clientFor } = require('../shared/server-client') as typeof import('../shared/server-client');
    const { StatusBoard } = require('../shared/status-board') as typeof import('../shared/status-board');
    const { WatchWorkflowsController } = require('./controller') as typeof import('./controller');
    const { FIELDS } = require('./fields') as typeof import('./fields');
    const { watchWorkflowsSettings } = require('./settings') as typeof import('./settings');
    const warn = (text: string) => this.warn(`media-spaces-watch-workflows: ${text}`);
    const settings = settingsWithWarnings(watchWorkflowsSettings, def, dialogLabels(RED, def.type, FIELDS), warn);
    const status = new StatusBoard(this);
    const controller = new WatchWorkflowsController(this, settings, status, () =>
      clientFor(RED, def.server, 'workflow'),
    );
    this.on('input', (msg, send, done) => controller.input(msg, send, done));
    closeWith(this, status, () => controller.close());
  }

  RED.nodes.registerType('media-spaces-watch-workflows', WatchWorkflowsNode);
};

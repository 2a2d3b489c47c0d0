import type { NodeAPI, NodeDef } from '../shared/node-red-types';
import { closeWith, type PollNode } from '../shared/poll-node';
import { readPollSettings } from '../shared/poll-settings';
import { clientFor } from '../shared/server-client';
import { StatusBoard } from '../shared/status-board';
import { WatchWorkflowsController } from './controller';
import { WATCH_WORKFLOWS_LABELS, watchWorkflowsSettings } from './settings';

/**
 * media-spaces-watch-workflows: polls the workflow list and sends one
 * message per added, changed or removed workflow (output 1); an input polls
 * now and comes back on output 2 with the whole list. The polling lives in
 * lib/watch (WorkflowWatcher).
 */
export = function register(RED: NodeAPI): void {
  function WatchWorkflowsNode(this: PollNode, def: NodeDef): void {
    RED.nodes.createNode(this, def);
    const warn = (text: string) => this.warn(`media-spaces-watch-workflows: ${text}`);
    const settings = readPollSettings(watchWorkflowsSettings, def, WATCH_WORKFLOWS_LABELS, warn);
    const status = new StatusBoard(this);
    const controller = new WatchWorkflowsController(this, settings, status, () =>
      clientFor(RED, def.server, 'workflow'),
    );
    this.on('input', (msg, send, done) => controller.input(msg, send, done));
    closeWith(this, status, () => controller.close());
  }

  RED.nodes.registerType('media-spaces-watch-workflows', WatchWorkflowsNode);
};

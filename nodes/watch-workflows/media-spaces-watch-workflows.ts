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
    const { start } = require('./controller') as typeof import('./controller');
    start(RED, this, def);
  }

  RED.nodes.registerType('media-spaces-watch-workflows', WatchWorkflowsNode);
};

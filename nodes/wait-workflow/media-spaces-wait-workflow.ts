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
    const { start } = require('./controller') as typeof import('./controller');
    start(RED, this, def);
  }

  RED.nodes.registerType('media-spaces-wait-workflow', WaitWorkflowNode);
};

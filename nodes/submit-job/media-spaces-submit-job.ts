import type { Node, NodeAPI, NodeDef } from '../shared/node-red-types';
import { runOperationNode } from '../shared/operation-node';
import { submitJob } from './controller';
import { SubmitJobSettings } from './settings';

/**
 * media-spaces-submit-job: submits a job to a workflow. The node's inputs
 * (short or full form) are the base; msg.payload, in either form, is merged
 * over them by the library, which checks every value against its typecode
 * before anything is sent.
 */
export = function register(RED: NodeAPI): void {
  function SubmitJobNode(this: Node, def: NodeDef): void {
    RED.nodes.createNode(this, def);
    runOperationNode(RED, this, def, {
      context: 'Submit job',
      area: 'workflow',
      settings: SubmitJobSettings,
      perform: submitJob,
    });
  }
  RED.nodes.registerType('media-spaces-submit-job', SubmitJobNode);
};

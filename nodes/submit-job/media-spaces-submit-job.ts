import type { Node, NodeAPI, NodeDef } from '../shared/node-red-types';

/**
 * media-spaces-submit-job: submits a job to a workflow. The node's inputs
 * (short or full form) are the base; msg.payload, in either form, is merged
 * over them by the library, which checks every value against its typecode
 * before anything is sent.
 */
export = function register(RED: NodeAPI): void {
  function SubmitJobNode(this: Node, def: NodeDef): void {
    RED.nodes.createNode(this, def);
    // required here, not at the top: Node-RED loads every installed package at start, and a flow
    // without this node must not pay for zod and the client
    const { runOperationNode } = require('../shared/operation-node') as typeof import('../shared/operation-node');
    const { submitJob } = require('./controller') as typeof import('./controller');
    const { dialogLabels } = require('../shared/settings') as typeof import('../shared/settings');
    const { FIELDS } = require('./fields') as typeof import('./fields');
    const { SubmitJobSettings } = require('./settings') as typeof import('./settings');
    runOperationNode(RED, this, def, {
      context: 'Submit job',
      area: 'workflow',
      settings: SubmitJobSettings,
      labels: dialogLabels(RED, def.type, FIELDS),
      perform: submitJob,
    });
  }
  RED.nodes.registerType('media-spaces-submit-job', SubmitJobNode);
};

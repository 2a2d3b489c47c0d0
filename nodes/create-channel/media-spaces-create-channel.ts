import type { Node, NodeAPI, NodeDef } from '../shared/node-red-types';

/**
 * media-spaces-create-channel: creates a recording channel from the node's
 * settings with msg.payload merged over them.
 */
export = function register(RED: NodeAPI): void {
  function CreateChannelNode(this: Node, def: NodeDef): void {
    RED.nodes.createNode(this, def);
    // required on first deploy, not at Node-RED start (issue #15)
    const { channelRequest } = require('../shared/channel-request') as typeof import('../shared/channel-request');
    const { resolveInputs } = require('../shared/inputs') as typeof import('../shared/inputs');
    const { respond } = require('../shared/operation') as typeof import('../shared/operation');
    const { runOperationNode } = require('../shared/operation-node') as typeof import('../shared/operation-node');
    const { CREATE_INPUTS, CreateChannelSettings } = require('./settings') as typeof import('./settings');
    runOperationNode(RED, this, def, {
      context: 'Create channel',
      area: 'liveCapture',
      settings: CreateChannelSettings,
      async perform(msg, { node, settings, client, signal }) {
        const { idempotencyKey } = await resolveInputs(RED, node, msg, {}, CREATE_INPUTS);
        const request = channelRequest(settings, msg.payload);
        const response = await client.createChannel(request, { idempotencyKey, signal });
        const state = client.channelState(response.data);
        return respond(msg, response, state ? `channel ${state}` : 'channel created');
      },
    });
  }
  RED.nodes.registerType('media-spaces-create-channel', CreateChannelNode);
};

import { channelRequest } from '../shared/channel-request';
import { resolveInputs } from '../shared/inputs';
import type { Node, NodeAPI, NodeDef } from '../shared/node-red-types';
import { respond } from '../shared/operation';
import { runOperationNode } from '../shared/operation-node';
import { CREATE_INPUTS, CreateChannelSettings } from './settings';

/**
 * media-spaces-create-channel: creates a recording channel from the node's
 * settings with msg.payload merged over them.
 */
export = function register(RED: NodeAPI): void {
  function CreateChannelNode(this: Node, def: NodeDef): void {
    RED.nodes.createNode(this, def);
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

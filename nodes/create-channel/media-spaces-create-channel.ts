import { channelRequest, channelSettings } from '../shared/channel-request';
import { idempotencyKey } from '../shared/message-fields';
import type { Node, NodeAPI, NodeDef } from '../shared/node-red-types';
import { handleOperation, respond } from '../shared/operation';

/**
 * media-spaces-create-channel: creates a recording channel from the node's
 * settings with msg.payload merged over them.
 */
export = function register(RED: NodeAPI): void {
  function CreateChannelNode(this: Node, def: NodeDef): void {
    RED.nodes.createNode(this, def);
    let settings: Record<string, unknown> | undefined;
    let settingsError: unknown;
    try {
      settings = channelSettings(def);
    } catch (error) {
      // a bad setting fails every message with the reason, rather than the deploy
      settingsError = error;
    }

    handleOperation(RED, this, {
      context: 'Create channel',
      area: 'liveCapture',
      serverId: def.server,
      async perform(msg, client, signal) {
        if (settings === undefined) throw settingsError;
        const request = channelRequest(settings, msg.payload);
        const response = await client.createChannel(request, { idempotencyKey: idempotencyKey(msg), signal });
        const state = client.channelState(response.data);
        return respond(msg, response, state ? `channel ${state}` : 'channel created');
      },
    });
  }

  RED.nodes.registerType('media-spaces-create-channel', CreateChannelNode);
};

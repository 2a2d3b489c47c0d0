import { MediaSpacesError } from '../../lib/errors';
import { channelRequest, channelSettings } from '../shared/channel-request';
import { resolveInputs } from '../shared/inputs';
import type { Node, NodeAPI, NodeDef } from '../shared/node-red-types';
import { handleOperation, respond } from '../shared/operation';
import { settingsOrError } from '../shared/settings';
import { CREATE_INPUTS, CreateChannelSettings } from './settings';

/**
 * media-spaces-create-channel: creates a recording channel from the node's
 * settings with msg.payload merged over them.
 */
export = function register(RED: NodeAPI): void {
  function CreateChannelNode(this: Node, def: NodeDef): void {
    RED.nodes.createNode(this, def);
    const node = this;
    // a bad setting fails every message with the reason, rather than the deploy
    const settings = requestFields(def);

    handleOperation(RED, node, {
      context: 'Create channel',
      area: 'liveCapture',
      serverId: def.server,
      async perform(msg, client, signal) {
        if (settings instanceof MediaSpacesError) throw settings;
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

function requestFields(def: NodeDef): Record<string, unknown> | MediaSpacesError {
  const settings = settingsOrError(CreateChannelSettings, def);
  if (settings instanceof MediaSpacesError) return settings;
  try {
    return channelSettings(settings);
  } catch (error) {
    if (error instanceof MediaSpacesError) return error;
    throw error;
  }
}

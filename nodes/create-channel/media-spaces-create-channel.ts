import { channelRequest } from '../shared/channel-request';
import { resolveInputs } from '../shared/inputs';
import type { Node, NodeAPI, NodeDef } from '../shared/node-red-types';
import { respond } from '../shared/operation';
import { runOperationNode } from '../shared/operation-node';
import { CREATE_INPUTS, CreateChannelSettings, WatchSettings } from './settings';
import { ChannelStateWatch } from './state-watch';

/** How often a created channel's state is read, and for how long at most. */
const WATCH_INTERVAL_MS = 1000;
const WATCH_LIMIT_MS = 120_000;

/**
 * media-spaces-create-channel: creates a recording channel from the node's
 * settings with msg.payload merged over them; with "Show state", follows the
 * channel's state until it records (status, and output 2).
 */
export = function register(RED: NodeAPI): void {
  function CreateChannelNode(this: Node & { send(msg: unknown): void }, def: NodeDef): void {
    RED.nodes.createNode(this, def);
    const watched = WatchSettings.safeParse(def);
    const watch =
      watched.success && watched.data.watchState
        ? new ChannelStateWatch({
            intervalMs: WATCH_INTERVAL_MS,
            limitMs: WATCH_LIMIT_MS,
            send: (msg) => this.send([null, msg]),
            status: (status) => this.status(status),
            warn: (text) => this.warn(text),
          })
        : undefined;
    runOperationNode(RED, this, def, {
      context: 'Create channel',
      area: 'liveCapture',
      settings: CreateChannelSettings,
      async perform(msg, { node, settings, client, signal }) {
        const { idempotencyKey } = await resolveInputs(RED, node, msg, {}, CREATE_INPUTS);
        const request = channelRequest(settings, msg.payload);
        const response = await client.createChannel(request, { idempotencyKey, signal });
        const state = client.channelState(response.data);
        watch?.follow(client, response.data, msg);
        return respond(msg, response, state ? `channel ${state}` : 'channel created');
      },
    });
    this.on('close', (_removed, done) => {
      watch?.close();
      done();
    });
  }
  RED.nodes.registerType('media-spaces-create-channel', CreateChannelNode);
};

import type { Node, NodeAPI, NodeDef } from '../shared/node-red-types';
import type { ChannelStateWatch } from './state-watch';

/** How often a created channel's state is read, and for how long at most. */
const WATCH_INTERVAL_MS = 1000;
const WATCH_LIMIT_MS = 120_000;

/**
 * media-spaces-create-channel: creates a recording channel from the node's
 * settings with msg.payload merged over them; with "Show state", follows the
 * channel's state until it records (status, and output 2). A schedule's start
 * is tried until its window's end (controller.ts).
 */
export = function register(RED: NodeAPI): void {
  function CreateChannelNode(this: Node & { send(msg: unknown): void }, def: NodeDef): void {
    RED.nodes.createNode(this, def);
    // required on first deploy, not at Node-RED start
    const { createChannel } = require('./controller') as typeof import('./controller');
    const { runOperationNode } = require('../shared/operation-node') as typeof import('../shared/operation-node');
    const { dialogLabels } = require('../shared/settings') as typeof import('../shared/settings');
    const { FIELDS } = require('./fields') as typeof import('./fields');
    const { CreateChannelSettings, WatchSettings } = require('./settings') as typeof import('./settings');
    const watched = WatchSettings.safeParse(def);
    let watch: ChannelStateWatch | undefined;
    if (watched.success && watched.data.watchState) {
      const { ChannelStateWatch } = require('./state-watch') as typeof import('./state-watch');
      watch = new ChannelStateWatch({
        intervalMs: WATCH_INTERVAL_MS,
        limitMs: WATCH_LIMIT_MS,
        send: (msg) => this.send([null, msg]),
        status: (status) => this.status(status),
        warn: (text) => this.warn(text),
      });
    }
    runOperationNode(RED, this, def, {
      context: 'Create channel',
      area: 'liveCapture',
      settings: CreateChannelSettings,
      labels: dialogLabels(RED, def.type, FIELDS),
      perform: (msg, ctx) => createChannel(msg, ctx, watch),
    });
    this.on('close', (_removed, done) => {
      watch?.close();
      done();
    });
  }
  RED.nodes.registerType('media-spaces-create-channel', CreateChannelNode);
};

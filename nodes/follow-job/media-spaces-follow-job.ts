import type { NodeAPI, NodeDef } from '../shared/node-red-types';
import type { PollNode } from '../shared/poll-node';

/**
 * media-spaces-follow-job: follows each input's job until a terminal state:
 * progress on output 2, succeeded on output 1, failed or stopped as an error
 * Catch nodes see. The polling lives in lib/watch (JobFollower).
 */
export = function register(RED: NodeAPI): void {
  function FollowJobNode(this: PollNode, def: NodeDef): void {
    RED.nodes.createNode(this, def);
    // required on first deploy, not at Node-RED start
    const { start } = require('./controller') as typeof import('./controller');
    start(RED, this, def);
  }

  RED.nodes.registerType('media-spaces-follow-job', FollowJobNode);
};

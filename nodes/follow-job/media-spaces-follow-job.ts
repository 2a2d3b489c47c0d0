import type { NodeAPI, NodeDef } from '../shared/node-red-types';
import { closeWith, type PollNode } from '../shared/poll-node';
import { readPollSettings } from '../shared/poll-settings';
import { clientFor } from '../shared/server-client';
import { StatusBoard } from '../shared/status-board';
import { FollowJobController } from './controller';
import { FOLLOW_JOB_LABELS, followJobSettings } from './settings';

/**
 * media-spaces-follow-job: follows each input's job until a terminal state:
 * progress on output 2, succeeded on output 1, failed or stopped as an error
 * Catch nodes see. The polling lives in lib/watch (JobFollower).
 */
export = function register(RED: NodeAPI): void {
  function FollowJobNode(this: PollNode, def: NodeDef): void {
    RED.nodes.createNode(this, def);
    const warn = (text: string) => this.warn(`media-spaces-follow-job: ${text}`);
    const settings = readPollSettings(followJobSettings, def, FOLLOW_JOB_LABELS, warn);
    const status = new StatusBoard(this);
    const controller = new FollowJobController(RED, this, settings, status, () =>
      clientFor(RED, def.server, 'workflow'),
    );
    this.on('input', (msg, send, done) => controller.input(msg, send, done));
    closeWith(this, status, (removed) => controller.close(removed));
  }

  RED.nodes.registerType('media-spaces-follow-job', FollowJobNode);
};

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
    const { closeWith } = require('../shared/poll-node') as typeof import('../shared/poll-node');
    const { dialogLabels, settingsWithWarnings } = require('../shared/settings') as typeof import('../shared/settings');
    const { clientFor } = require('../shared/server-client') as typeof import('../shared/server-client');
    const { StatusBoard } = require('../shared/status-board') as typeof import('../shared/status-board');
    const { FollowJobController } = require('./controller') as typeof import('./controller');
    const { FIELDS } = require('./fields') as typeof import('./fields');
    const { followJobSettings } = require('./settings') as typeof import('./settings');
    const warn = (text: string) => this.warn(`media-spaces-follow-job: ${text}`);
    const settings = settingsWithWarnings(followJobSettings, def, dialogLabels(RED, def.type, FIELDS), warn);
    const status = new StatusBoard(this);
    const controller = new FollowJobController(RED, this, settings, status, () =>
      clientFor(RED, def.server, 'workflow'),
    );
    // the controller sends through node.send, which is what Node-RED's send does for one input handler
    this.on('input', (msg, _send, done) => controller.input(msg, done));
    closeWith(this, status, (removed) => controller.close(removed));
  }

  RED.nodes.registerType('media-spaces-follow-job', FollowJobNode);
};

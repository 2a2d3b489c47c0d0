import { MediaSpacesError } from '../../lib/errors';
import { DeclaredInputs } from '../shared/declared-inputs';
import type { Node, NodeAPI, NodeDef } from '../shared/node-red-types';
import { handleOperation } from '../shared/operation';
import { settingsOrError } from '../shared/settings';
import { submitJob } from './controller';
import { SubmitJobSettings } from './settings';

/**
 * media-spaces-submit-job: submits a job to a workflow. The node's inputs
 * (short or full form) are the base; msg.payload, in either form, is merged
 * over them by the library, which checks every value against its typecode
 * before anything is sent.
 */
export = function register(RED: NodeAPI): void {
  function SubmitJobNode(this: Node, def: NodeDef): void {
    RED.nodes.createNode(this, def);
    const node = this;
    const settings = settingsOrError(SubmitJobSettings, def);
    const declaredInputs = new DeclaredInputs();

    handleOperation(RED, node, {
      context: 'Submit job',
      area: 'workflow',
      serverId: def.server,
      async perform(msg, client, signal) {
        if (settings instanceof MediaSpacesError) throw settings;
        return submitJob(RED, node, settings, declaredInputs, msg, client, signal);
      },
    });
  }

  RED.nodes.registerType('media-spaces-submit-job', SubmitJobNode);
};

import type { NodeAPI } from '../shared/node-red-types';
import { registerOperationNode } from '../shared/operation-node';
import { submitJob } from './controller';
import { SubmitJobSettings } from './settings';

/**
 * media-spaces-submit-job: submits a job to a workflow. The node's inputs
 * (short or full form) are the base; msg.payload, in either form, is merged
 * over them by the library, which checks every value against its typecode
 * before anything is sent.
 */
export = function register(RED: NodeAPI): void {
  registerOperationNode(RED, 'media-spaces-submit-job', {
    context: 'Submit job',
    area: 'workflow',
    settings: SubmitJobSettings,
    perform: submitJob,
  });
};

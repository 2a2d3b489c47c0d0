import { MediaSpacesError } from '../../lib/errors';
import { isPlainObject } from '../../lib/guards';
import { DeclaredInputs, hasTypedInputs } from '../shared/declared-inputs';
import { renderJobName } from '../shared/job-name-template';
import { given, idempotencyKey, invalid } from '../shared/message-fields';
import type { Node, NodeAPI, NodeDef, NodeMessage } from '../shared/node-red-types';
import { handleOperation, respond } from '../shared/operation';
import { evaluateSetting } from '../shared/typed-input';

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
    const declaredInputs = new DeclaredInputs();

    handleOperation(RED, node, {
      context: 'Submit job',
      area: 'workflow',
      serverId: def.server,
      async perform(msg, client, signal) {
        const request = msg.payload;
        if (request !== undefined && request !== null && !isPlainObject(request)) {
          throw invalid(
            'msg.payload',
            'must be a submit request object: {usage: {input: {...}}} or {variables: {...}, media_nicknames: {...}, attachments: {...}, labels: {...}}',
            request,
          );
        }
        const workflowId = await workflowIdOf(msg);
        const jobName = jobNameOf(msg, request);
        const base = await baseInputs(msg);
        const declared =
          hasTypedInputs(request) || hasTypedInputs(base)
            ? await declaredInputs.get(client, workflowId, signal)
            : undefined;
        const response = await client.submitJob(workflowId, request ?? {}, {
          base,
          declared,
          jobName,
          idempotencyKey: idempotencyKey(msg),
          signal,
        });
        return respond(msg, response, `job ${response.data.state ?? 'created'}`);
      },
    });

    /** msg.workflow_id, else the Workflow setting (a typed input). */
    async function workflowIdOf(msg: NodeMessage): Promise<string> {
      // a plain string setting needs no evaluation, and this runs for every message
      const value = given(msg, 'workflow_id')
        ? msg.workflow_id
        : !def.workflowIdType || def.workflowIdType === 'str'
          ? def.workflowId
          : await evaluateSetting(RED, node, msg, {
              name: 'workflow_id',
              value: def.workflowId,
              type: def.workflowIdType,
            });
      if (value === undefined || value === null || value === '') {
        throw MediaSpacesError.invalidInput(
          'workflow_id is required: choose a workflow in the node or set msg.workflow_id',
          { workflow_id: 'is required' },
        );
      }
      // the library checks it is a UUID and names workflow_id if not
      return value as string;
    }

    /** msg.job_name, else the payload's own job_name, else the node's template. */
    function jobNameOf(msg: NodeMessage, request: Record<string, unknown> | null | undefined): string | undefined {
      if (given(msg, 'job_name')) {
        if (typeof msg.job_name !== 'string') throw invalid('msg.job_name', 'must be text', msg.job_name);
        return msg.job_name === '' ? undefined : msg.job_name;
      }
      if (request?.job_name !== undefined) return undefined;
      const template = typeof def.jobName === 'string' ? def.jobName.trim() : '';
      return template === '' ? undefined : renderJobName(RED, template, msg) || undefined;
    }

    /**
     * The node's inputs setting (jobInputs: `inputs` is the editor's own port count, so it cannot be a
     * setting): JSON typed in the editor, or read from msg, flow, global or env.
     */
    async function baseInputs(msg: NodeMessage): Promise<Record<string, unknown> | undefined> {
      const type = typeof def.jobInputsType === 'string' && def.jobInputsType !== '' ? def.jobInputsType : 'json';
      let value: unknown;
      if (type === 'json') {
        const text = typeof def.jobInputs === 'string' ? def.jobInputs.trim() : '';
        if (text === '') return undefined;
        try {
          value = JSON.parse(text);
        } catch (error) {
          throw MediaSpacesError.invalidInput(
            `inputs (node setting jobInputs) is not valid JSON: ${error instanceof Error ? error.message : String(error)}`,
            { inputs: 'is not valid JSON' },
          );
        }
      } else {
        value = await evaluateSetting(RED, node, msg, { name: 'inputs', value: def.jobInputs, type });
      }
      if (value === undefined || value === null || value === '') return undefined;
      if (!isPlainObject(value)) {
        throw invalid(`inputs (node setting, ${type})`, 'must be an object in the short or the full form', value);
      }
      return value;
    }
  }

  RED.nodes.registerType('media-spaces-submit-job', SubmitJobNode);
};

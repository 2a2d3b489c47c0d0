import type { MediaSpacesClient } from '../../lib/client';
import { requestPayload, resolveInputs } from '../shared/inputs';
import type { Node, NodeAPI, NodeDef, NodeMessage } from '../shared/node-red-types';
import { type OperationContext, type Outcome, respond, runOperationNode } from '../shared/operation';
import { DeclaredInputs, hasTypedInputs } from './declared-inputs';
import { FIELDS } from './fields';
import { renderJobName } from './job-name-template';
import { SUBMIT_INPUTS, SubmitJobSettings } from './settings';

/** The node's runtime, from its deploy on. */
export function start(RED: NodeAPI, node: Node, def: NodeDef): void {
  runOperationNode(RED, node, def, {
    context: 'Submit job',
    area: 'workflow',
    settings: SubmitJobSettings,
    fields: FIELDS,
    perform: submitJob,
  });
}

const PAYLOAD_RULE =
  'must be a submit request object: {usage: {input: {...}}} or {variables: {...}, media_nicknames: {...}, attachments: {...}, labels: {...}}';

/**
 * One submission: the node's inputs are the base, msg.payload (either form) is
 * merged over them by the library, which checks every value against its
 * typecode (declared by the workflow where the service describes it).
 */
export async function submitJob(
  msg: NodeMessage,
  { RED, node, settings, client, signal }: OperationContext<SubmitJobSettings>,
): Promise<Outcome> {
  const request = requestPayload(msg.payload, PAYLOAD_RULE);
  const resolved = resolveInputs(RED, node, msg, settings, SUBMIT_INPUTS);
  // awaited only when a promise: each await is a turn of the microtask queue per message
  const {
    workflowId,
    jobInputs: base,
    givenJobName,
    idempotencyKey,
  } = resolved instanceof Promise ? await resolved : resolved;
  let declared =
    hasTypedInputs(request) || hasTypedInputs(base)
      ? declaredInputsOf(client).get(client, workflowId, signal)
      : undefined;
  if (declared instanceof Promise) declared = await declared;
  const response = await client.submitJob(workflowId, request ?? {}, {
    base,
    declared,
    jobName: jobNameOf(RED, settings, msg, givenJobName, request),
    idempotencyKey,
    signal,
  });
  return respond(msg, response, `job ${response.data.state ?? 'created'}`);
}

/** Declared inputs are the service's: cached per client, that is per config node and deploy. */
const declaredCaches = new WeakMap<MediaSpacesClient, DeclaredInputs>();
function declaredInputsOf(client: MediaSpacesClient): DeclaredInputs {
  let cache = declaredCaches.get(client);
  if (!cache) {
    cache = new DeclaredInputs();
    declaredCaches.set(client, cache);
  }
  return cache;
}

/** msg.job_name ("" for none), else the payload's own job_name, else the node's template. */
function jobNameOf(
  RED: NodeAPI,
  settings: SubmitJobSettings,
  msg: NodeMessage,
  fromMessage: string | undefined,
  request: Record<string, unknown> | null | undefined,
): string | undefined {
  if (fromMessage !== undefined) return fromMessage === '' ? undefined : fromMessage;
  if (request?.job_name !== undefined || settings.jobName === '') return undefined;
  return renderJobName(RED, settings.jobName, msg) || undefined;
}

import { setMaxListeners } from 'node:events';
import type { z } from 'zod';
import type { MediaSpacesClient } from '../../lib/client';
import { MediaSpacesError } from '../../lib/errors';
import type { ApiResponse } from '../../lib/transport';
import { asMediaSpacesError, failMessage } from './failure';
import type { FieldTable } from './fields';
import type { DoneFunction, Node, NodeAPI, NodeDef, NodeMessage, SendFunction } from './node-red-types';
import { RequestStatus } from './request-status';
import { type Area, clientFor } from './server-client';
import { UNTIL_FIXED } from './setting-name';
import { dialogLabels, settingsOrError } from './settings';

/** What one input message turned into. */
export interface Outcome {
  /** Messages for the single output, in order (several in split mode, none is fine). */
  messages: NodeMessage[];
  /** The short result shown in the green status, e.g. "12 workflows". */
  summary: string;
}

interface OperationSpec {
  /** Names the operation in messages about unexpected failures, e.g. "Submit job". */
  context: string;
  /** Which credential of the config node the operation needs. */
  area: Area;
  /** The config node id from the node's `server` property. */
  serverId: unknown;
  /** `progress` shows how a long request is going in the status while it runs. */
  perform(
    msg: NodeMessage,
    client: MediaSpacesClient,
    signal: AbortSignal,
    progress: (text: string) => void,
  ): Promise<Outcome>;
}

/** What an operation node's perform() gets besides the message. */
export interface OperationContext<T> {
  RED: NodeAPI;
  node: Node;
  settings: T;
  client: MediaSpacesClient;
  signal: AbortSignal;
  /** Shows how a long request is going in the status while it runs. */
  progress(text: string): void;
}

interface OperationNodeSpec<S extends z.ZodType> {
  /** Names the operation in messages about unexpected failures, e.g. "Submit job". */
  context: string;
  /** Which credential of the config node the operation needs. */
  area: Area;
  /** The node's settings schema; a bad setting fails every message with the reason, rather than the deploy. */
  settings: S;
  /** The node's field table: errors about a setting name it as the dialog does. */
  fields: FieldTable;
  perform(msg: NodeMessage, ctx: OperationContext<z.infer<S>>): Promise<Outcome>;
}

/**
 * An operation node's controller, after RED.nodes.createNode: settings read
 * once per deploy, each message handled by handleOperation.
 */
export function runOperationNode<S extends z.ZodType>(
  RED: NodeAPI,
  node: Node,
  def: NodeDef,
  spec: OperationNodeSpec<S>,
): void {
  const settings = settingsOrError(spec.settings, def, dialogLabels(RED, def.type, spec.fields));
  // said once on deploy, where the flow's author is looking; each message then fails with it
  if (settings instanceof MediaSpacesError) node.error(`${settings.message}; ${UNTIL_FIXED.messages}`);
  handleOperation(RED, node, {
    context: spec.context,
    area: spec.area,
    serverId: def.server,
    // not async: handleOperation catches a throw here like a rejection, and a promise less per message
    perform(msg, client, signal, progress) {
      if (settings instanceof MediaSpacesError) throw settings;
      return spec.perform(msg, { RED, node, settings, client, signal, progress });
    },
  });
}

/**
 * The input and close handling every operation node shares:
 * - each message ends in exactly one
 *   outcome: its messages sent and `done()`, or `done(err)` with `msg.error`
 *   set; never `node.error` as well, and nothing thrown or rejected escapes;
 * - the status shows requests in flight, then the last result;
 * - close aborts every request in flight at once, so a redeploy never waits
 *   for the runtime's close timeout. Messages cut off that way are dropped,
 *   as the core delay node drops its queue: their flow no longer exists.
 */
function handleOperation(RED: NodeAPI, node: Node, spec: OperationSpec): void {
  // one controller for the node, not one per message: only close aborts, and a controller per
  // message was the largest share of the node's own CPU per request
  const closing = new AbortController();
  setMaxListeners(0, closing.signal);
  const status = new RequestStatus(node);
  const progress = (text: string) => {
    if (!closed) status.progress(text);
  };
  let closed = false;

  // every path of run() ends in exactly one of: the messages sent and done(), or done(err)
  const run = async (msg: NodeMessage, send: SendFunction, done: DoneFunction) => {
    let outcome: Outcome;
    try {
      outcome = await spec.perform(msg, clientFor(RED, spec.serverId, spec.area), closing.signal, progress);
    } catch (error) {
      if (!closed) reportFailure(msg, done, error);
      return;
    }
    if (closed) return;
    try {
      if (outcome.messages.length === 1) send(outcome.messages[0]);
      else if (outcome.messages.length > 1) send([outcome.messages]);
    } catch (error) {
      reportFailure(msg, done, error);
      return;
    }
    status.succeeded(outcome.summary);
    done();
  };

  const reportFailure = (msg: NodeMessage, done: DoneFunction, error: unknown) => {
    const cause = asMediaSpacesError(error, spec.context);
    status.failed(cause);
    failMessage(node, msg, cause.toJSON(), done);
  };

  node.on('input', (msg, send, done) => {
    status.started();
    // last line of defence: nothing may leave run() as an unhandled rejection
    run(msg, send, done).catch(() => undefined);
  });

  node.on('close', (_removed, done) => {
    closed = true;
    closing.abort();
    status.clear();
    done();
  });
}

/** The usual single-message outcome: the response body on msg.payload, its status on msg.statusCode. */
export function respond(msg: NodeMessage, response: ApiResponse<unknown>, summary: string): Outcome {
  msg.payload = response.data;
  msg.statusCode = response.status;
  return { messages: [msg], summary };
}

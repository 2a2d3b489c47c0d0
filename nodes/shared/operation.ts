import { setMaxListeners } from 'node:events';
import type { MediaSpacesClient } from '../../lib/client';
import type { ApiResponse } from '../../lib/transport';
import { asMediaSpacesError, failMessage } from './failure';
import type { Node, NodeAPI, NodeMessage } from './node-red-types';
import { RequestStatus } from './request-status';
import { type Area, clientFor } from './server-client';

/** What one input message turned into. */
export interface Outcome {
  /** Messages for the single output, in order (several in split mode, none is fine). */
  messages: NodeMessage[];
  /** The short result shown in the green status, e.g. "12 workflows". */
  summary: string;
}

export interface OperationSpec {
  /** Names the operation in messages about unexpected failures, e.g. "Submit job". */
  context: string;
  /** Which credential of the config node the operation needs. */
  area: Area;
  /** The config node id from the node's `server` property. */
  serverId: unknown;
  perform(msg: NodeMessage, client: MediaSpacesClient, signal: AbortSignal): Promise<Outcome>;
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
export function handleOperation(RED: NodeAPI, node: Node, spec: OperationSpec): void {
  // one controller for the node, not one per message: only close aborts, and a controller per
  // message was the largest share of the node's own CPU per request
  const closing = new AbortController();
  setMaxListeners(0, closing.signal);
  const status = new RequestStatus(node);
  let closed = false;

  node.on('input', (msg, send, done) => {
    status.started();
    let settled = false;

    // every path ends here or in succeed(), once
    const fail = (error: unknown) => {
      if (settled || closed) return;
      settled = true;
      reportFailure(error);
    };

    const reportFailure = (error: unknown) => {
      const cause = asMediaSpacesError(error, spec.context);
      status.failed(cause);
      failMessage(node, msg, cause.toJSON(), done);
    };

    const succeed = (outcome: Outcome) => {
      if (settled || closed) return;
      settled = true;
      try {
        if (outcome.messages.length === 1) send(outcome.messages[0]);
        else if (outcome.messages.length > 1) send([outcome.messages]);
      } catch (error) {
        reportFailure(error);
        return;
      }
      status.succeeded(outcome.summary);
      done();
    };

    Promise.resolve()
      .then(() => spec.perform(msg, clientFor(RED, spec.serverId, spec.area), closing.signal))
      .then(succeed, fail)
      // last line of defence: nothing may leave this chain as an unhandled rejection
      .catch(() => undefined);
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

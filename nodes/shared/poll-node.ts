import { MediaSpacesError } from '../../lib/errors';
import { WatchError } from '../../lib/watch';
import { asMediaSpacesError, type ErrorDetails, failMessage } from './failure';
import type { DoneFunction, Node, NodeContext, NodeMessage, NodeStatus, Outputs, SendFunction } from './node-red-types';
import type { StatusBoard } from './status-board';

/**
 * What the three polling nodes (follow job, wait for workflow, watch
 * workflows) share at run time: their message outputs, failures, status
 * texts and closing.
 */

type Send = (out: Outputs) => void;

export type PollNode = Node & {
  context(): NodeContext;
  send(out: Outputs | NodeMessage): void;
};

/** The live side of an input message: how to answer it. Absent after a restart. */
export interface Handle {
  msg: NodeMessage;
  send: Send;
  done: DoneFunction;
}

export function handleOf(msg: NodeMessage, send: SendFunction, done: DoneFunction): Handle {
  // Node-RED's send takes one entry per output, each a message, a list of messages or null
  return { msg, send: send as Send, done };
}

/** Ends one message with an error: done(err) for a live input, node.error for a resumed one. */
export function failWith(node: Node, msg: NodeMessage, error: unknown, done?: DoneFunction): void {
  failMessage(node, msg, errorDetails(error), done);
}

/** msg.error for any failure: the library error record, or the watch outcome with its details. */
function errorDetails(error: unknown): ErrorDetails {
  if (error instanceof WatchError) return { ...error.toJSON(), fieldErrors: {} };
  return asMediaSpacesError(error, 'Watch').toJSON();
}

/** The status badge's short name of an error. */
export function errorLabel(error: unknown): string {
  if (error instanceof WatchError) return error.code;
  if (error instanceof MediaSpacesError) {
    return error.status === undefined ? error.code : `${error.status} ${error.code}`;
  }
  return 'error';
}

function seconds(ms: number): string {
  return ms < 1000 ? `${Math.round(ms)} ms` : `${Math.round(ms / 100) / 10} s`;
}

/** The badge of a transient error: its code and when the next attempt comes. */
export function retryStatus(error: unknown, context: string, delayMs: number, prefix = ''): NodeStatus {
  const text = `${errorLabel(asMediaSpacesError(error, context))}, retry in ${seconds(delayMs)}`;
  return { fill: 'red', shape: 'ring', text: `${prefix}${text}` };
}

export function errorStatus(error: unknown): NodeStatus {
  return { fill: 'red', shape: 'ring', text: errorLabel(error) };
}

/** A closer of a polling node: `removed` when the node is deleted rather than redeployed. */
type Closer = (removed: boolean) => Promise<void> | void;

/** On close: the badge cleared, then every closer run; done once all have settled. */
export function closeWith(node: Node, status: StatusBoard, closer: Closer): void {
  node.on('close', (removed, done) => {
    status.close();
    Promise.resolve()
      .then(() => closer(removed))
      .then(
        () => done(),
        () => done(),
      );
  });
}

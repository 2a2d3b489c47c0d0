import type { MediaSpacesClient } from '../../lib/client';
import { type WorkflowChange, WorkflowWatcher } from '../../lib/watch';
import { asMediaSpacesError } from '../shared/failure';
import type { DoneFunction, NodeAPI, NodeDef, NodeMessage, NodeStatus, SendFunction } from '../shared/node-red-types';
import { closeWith, errorLabel, failWith, handleOf, type PollNode, retryStatus } from '../shared/poll-node';
import { pollTiming } from '../shared/poll-settings';
import { clientFor } from '../shared/server-client';
import { dialogLabels, settingsWithWarnings } from '../shared/settings';
import { StatusBoard } from '../shared/status-board';
import { FIELDS } from './fields';
import { type WatchWorkflowsSettings, watchWorkflowsSettings } from './settings';

const CONTEXT = 'Watch workflows';

/**
 * Polls the workflow list from deploy on and sends one message per change
 * on output 1; an input polls at once and is answered on output 2 with the
 * whole list and its changes.
 */
class WatchWorkflowsController {
  private readonly watcher: WorkflowWatcher;
  private closed = false;

  constructor(
    private readonly node: PollNode,
    settings: WatchWorkflowsSettings,
    private readonly status: StatusBoard,
    client: () => MediaSpacesClient,
  ) {
    this.watcher = new WorkflowWatcher({
      ...pollTiming(settings),
      emitInitial: settings.emitInitial,
      list: (signal) => client().listAllWorkflows({ status: settings.statusFilter, signal }),
      onChanges: (changes) => node.send([changes.map(changeMessage), null]),
      onPoll: (result) => status.set(pollStatus(result.workflows.length, result.changes.length)),
      onError: (error, info) => this.pollFailed(error, info.transient, info.errors, info.retryInMs),
    });
    this.watcher.start();
  }

  input(msg: NodeMessage, send: SendFunction, done: DoneFunction): void {
    const handle = handleOf(msg, send, done);
    this.watcher.pollNow().then(
      (result) => {
        if (this.closed) return;
        msg.payload = result.workflows;
        msg.changes = result.changes;
        msg.statusCode = 200;
        handle.send([null, msg]);
        done();
      },
      (error) => {
        if (this.closed) return;
        const failure = asMediaSpacesError(error, CONTEXT);
        this.status.set({ fill: 'red', shape: 'ring', text: errorLabel(failure) });
        failWith(this.node, msg, failure, done);
      },
    );
  }

  close(): Promise<void> | void {
    this.closed = true;
    return this.watcher.close();
  }

  /** A timer poll failed: a transient error is retried; any other stops polling until the next input. */
  private pollFailed(error: unknown, transient: boolean, errors: number, retryInMs: number | undefined): void {
    const failure = asMediaSpacesError(error, CONTEXT);
    if (transient) {
      this.status.set(retryStatus(failure, CONTEXT, retryInMs ?? 0));
      if (errors === 1) this.node.warn(`${CONTEXT}: ${failure.message}; retrying`);
      return;
    }
    this.status.set({ fill: 'red', shape: 'ring', text: `${errorLabel(failure)}, stopped` });
    failWith(this.node, { topic: 'error', payload: null }, failure);
  }
}

function changeMessage(change: WorkflowChange): NodeMessage {
  const msg: NodeMessage = { topic: change.type, payload: change.workflow, workflow_id: change.workflow.id };
  if (change.previous !== undefined) msg.previous = change.previous;
  return msg;
}

function pollStatus(count: number, changes: number): NodeStatus {
  const changed = changes > 0 ? `, ${changes} change${changes === 1 ? '' : 's'}` : '';
  return { fill: 'green', shape: 'dot', text: `${count} workflow${count === 1 ? '' : 's'}${changed}` };
}

/** The node's runtime, from its deploy on. */
export function start(RED: NodeAPI, node: PollNode, def: NodeDef): void {
  const warn = (text: string) => node.warn(text);
  const settings = settingsWithWarnings(watchWorkflowsSettings, def, dialogLabels(RED, def.type, FIELDS), warn);
  const status = new StatusBoard(node);
  const controller = new WatchWorkflowsController(node, settings, status, () => clientFor(RED, def.server, 'workflow'));
  node.on('input', (msg, send, done) => controller.input(msg, send, done));
  closeWith(node, status, () => controller.close());
}

import type { MediaSpacesClient } from '../../lib/client';
import { MediaSpacesError } from '../../lib/errors';
import { WorkflowActiveWaiter } from '../../lib/watch';
import { resolveMessageInputs } from '../shared/inputs';
import type { DoneFunction, NodeAPI, NodeDef, NodeMessage, NodeStatus, SendFunction } from '../shared/node-red-types';
import {
  closeWith,
  errorStatus,
  failWith,
  type Handle,
  handleOf,
  type PollNode,
  retryStatus,
} from '../shared/poll-node';
import { pollTiming } from '../shared/poll-settings';
import { clientFor } from '../shared/server-client';
import { dialogLabels, settingsWithWarnings } from '../shared/settings';
import { StatusBoard } from '../shared/status-board';
import { FIELDS } from './fields';
import { WAIT_INPUTS, type WaitWorkflowSettings, waitWorkflowSettings } from './settings';

/**
 * Holds each input until its workflow is active, then passes it on. Every
 * waiting message shares one read of the workflow list per interval
 * (lib/watch's WorkflowActiveWaiter).
 */
class WaitWorkflowController {
  private readonly waiter: WorkflowActiveWaiter<Handle>;

  constructor(
    private readonly RED: NodeAPI,
    private readonly node: PollNode,
    private readonly settings: WaitWorkflowSettings,
    private readonly status: StatusBoard,
    client: () => MediaSpacesClient,
  ) {
    this.waiter = new WorkflowActiveWaiter<Handle>({
      ...pollTiming(settings),
      timeoutMs: settings.timeout,
      list: (signal) => client().listAllWorkflows({ signal }),
      onActive: (workflow, h) => {
        h.msg.workflow = workflow;
        h.msg.workflow_id = workflow.id;
        h.send([h.msg]);
        h.done();
        this.showWaiting({ fill: 'green', shape: 'dot', text: `active: ${workflow.name ?? workflow.id}` });
      },
      onFail: (error, h) => {
        this.showWaiting(errorStatus(error));
        failWith(this.node, h.msg, error, h.done);
      },
      onRetry: (error, delayMs) => status.set(retryStatus(error, 'Wait for workflow', delayMs)),
    });
  }

  input(msg: NodeMessage, send: SendFunction, done: DoneFunction): void {
    try {
      const inputs = resolveMessageInputs(this.RED, this.node, msg, this.settings, WAIT_INPUTS);
      const workflow = workflowRef(inputs, this.settings.workflow);
      this.waiter.wait({ workflow, timeoutMs: inputs.timeout, handle: handleOf(msg, send, done) });
      this.showWaiting();
    } catch (error) {
      this.status.set(errorStatus(error));
      failWith(this.node, msg, error, done);
    }
  }

  close(): Promise<void> | void {
    return this.waiter.close();
  }

  /** The number of waiting messages while there are any, else the last outcome. */
  private showWaiting(outcome?: NodeStatus): void {
    const n = this.waiter.size;
    this.status.set(n > 0 ? { fill: 'blue', shape: 'dot', text: `waiting (${n})` } : (outcome ?? {}));
  }
}

/** msg.workflow_id (id or name), msg.workflow_name, else the node's workflow setting. */
function workflowRef(inputs: { workflowId?: string; workflowName?: string }, setting: string): string {
  const named = inputs.workflowId ?? inputs.workflowName;
  if (named !== undefined) return named;
  if (setting !== '') return setting;
  throw MediaSpacesError.invalidInput('No workflow to wait for: set msg.workflow_id, or the workflow in the node', {
    workflow_id: 'is required',
  });
}

/** The node's runtime, from its deploy on. */
export function start(RED: NodeAPI, node: PollNode, def: NodeDef): void {
  const warn = (text: string) => node.warn(text);
  const settings = settingsWithWarnings(waitWorkflowSettings, def, dialogLabels(RED, def.type, FIELDS), warn);
  const status = new StatusBoard(node);
  const controller = new WaitWorkflowController(RED, node, settings, status, () =>
    clientFor(RED, def.server, 'workflow'),
  );
  node.on('input', (msg, send, done) => controller.input(msg, send, done));
  closeWith(node, status, () => controller.close());
}

import { resolveInputs } from '../shared/inputs';
import type { Node, NodeAPI, NodeDef, NodeMessage } from '../shared/node-red-types';
import { type OperationContext, type Outcome, runOperationNode } from '../shared/operation';
import { FIELDS } from './fields';
import { LIST_INPUTS, ListWorkflowsSettings } from './settings';
import { splitMessages } from './split-parts';

/** The node's runtime, from its deploy on. */
export function start(RED: NodeAPI, node: Node, def: NodeDef): void {
  runOperationNode(RED, node, def, {
    context: 'List workflows',
    area: 'workflow',
    settings: ListWorkflowsSettings,
    fields: FIELDS,
    perform: listWorkflows,
  });
}

/** One message's list: one array (all pages), one page with its continuation token, or one message per workflow. */
export async function listWorkflows(
  msg: NodeMessage,
  { RED, node, settings, client, signal }: OperationContext<ListWorkflowsSettings>,
): Promise<Outcome> {
  const { statusFilter: status, maxResults, pageToken } = await resolveInputs(RED, node, msg, settings, LIST_INPUTS);
  if (settings.mode === 'page') {
    const response = await client.listWorkflows({ status, maxResults, pageToken, signal });
    const { workflows, next_page_token } = response.data;
    msg.payload = { workflows, next_page_token: next_page_token ?? null };
    msg.statusCode = response.status;
    return { messages: [msg], summary: `${count(workflows.length)}${next_page_token ? ', more' : ''}` };
  }
  const workflows = await client.listAllWorkflows({ status, maxResults, signal });
  if (settings.mode === 'split') {
    const messages = splitMessages(RED, msg, workflows);
    for (const m of messages) m.statusCode = 200;
    return { messages, summary: count(workflows.length) };
  }
  // every page answered 2xx; listAllWorkflows keeps no per-page status, and the list answers 200
  msg.payload = workflows;
  msg.statusCode = 200;
  return { messages: [msg], summary: count(workflows.length) };
}

function count(n: number): string {
  return n === 1 ? '1 workflow' : `${n} workflows`;
}

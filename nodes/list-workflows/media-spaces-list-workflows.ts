import { MediaSpacesError } from '../../lib/errors';
import { given, invalid, wholeNumber } from '../shared/message-fields';
import type { Node, NodeAPI, NodeDef, NodeMessage } from '../shared/node-red-types';
import { handleOperation, type Outcome } from '../shared/operation';
import { splitMessages } from '../shared/split-parts';

/**
 * media-spaces-list-workflows: the space's workflows, as one array (all
 * pages), one page with its continuation token (for a loop in the flow), or
 * one message per workflow (for a join node).
 */
const MODES = ['all', 'page', 'split'] as const;
type Mode = (typeof MODES)[number];

export = function register(RED: NodeAPI): void {
  function ListWorkflowsNode(this: Node, def: NodeDef): void {
    RED.nodes.createNode(this, def);
    const mode: Mode = (MODES as readonly unknown[]).includes(def.mode) ? (def.mode as Mode) : 'all';

    handleOperation(RED, this, {
      context: 'List workflows',
      area: 'workflow',
      serverId: def.server,
      async perform(msg, client, signal): Promise<Outcome> {
        const { status, maxResults, pageToken } = readOptions(def, msg);
        if (mode === 'page') {
          const response = await client.listWorkflows({ status, maxResults, pageToken, signal });
          const { workflows, next_page_token } = response.data;
          msg.payload = { workflows, next_page_token: next_page_token ?? null };
          msg.statusCode = response.status;
          return { messages: [msg], summary: `${count(workflows.length)}${next_page_token ? ', more' : ''}` };
        }
        const workflows = await client.listAllWorkflows({ status, maxResults, signal });
        if (mode === 'split') {
          const messages = splitMessages(RED, msg, workflows);
          for (const m of messages) m.statusCode = 200;
          return { messages, summary: count(workflows.length) };
        }
        // every page answered 2xx; listAllWorkflows keeps no per-page status, and the list answers 200
        msg.payload = workflows;
        msg.statusCode = 200;
        return { messages: [msg], summary: count(workflows.length) };
      },
    });
  }

  RED.nodes.registerType('media-spaces-list-workflows', ListWorkflowsNode);
};

/**
 * Node settings, overridden by msg.status, msg.max_results and msg.page_token. The status setting is
 * `statusFilter`: the editor keeps a node's runtime status in `status`.
 */
function readOptions(def: NodeDef, msg: NodeMessage) {
  let status: string | undefined;
  if (given(msg, 'status')) {
    if (typeof msg.status !== 'string') {
      throw invalid('msg.status', 'must be one of active, archived, deleted, idle (or "" for all)', msg.status);
    }
    status = msg.status;
  } else if (typeof def.statusFilter === 'string' && def.statusFilter !== '') {
    status = def.statusFilter;
  }

  let maxResults: number | undefined;
  if (given(msg, 'max_results')) maxResults = wholeNumber('msg.max_results', msg.max_results);
  else if (def.maxResults !== undefined && def.maxResults !== '') {
    maxResults = wholeNumber('max_results (node setting)', def.maxResults);
  }

  let pageToken: string | undefined;
  if (given(msg, 'page_token') && msg.page_token !== null) {
    if (typeof msg.page_token !== 'string') throw invalid('msg.page_token', 'must be text', msg.page_token);
    pageToken = msg.page_token;
  }
  if (maxResults !== undefined && (maxResults < 1 || maxResults > 100)) {
    throw MediaSpacesError.invalidInput(`max_results must be a whole number from 1 to 100, got ${maxResults}`, {
      max_results: 'must be between 1 and 100',
    });
  }
  return { status, maxResults, pageToken };
}

function count(n: number): string {
  return n === 1 ? '1 workflow' : `${n} workflows`;
}

import { UUID_PATTERN, WORKFLOW_STATUSES, type WorkflowStatus } from '../schemas';
import type { OperationContext } from './operation';
import { decodePageToken, encodePageToken } from './page-token';
import { fail, quote, type Reply } from './reply';

const DEFAULT_PAGE_SIZE = 50;
const MAX_RESULTS_RULE = 'max_results must be between 1 and 100';

/** GET /{space_id}/workflows: one page, in fixture order, optionally filtered by status. */
export function listWorkflows(c: OperationContext): Reply {
  const errors: Record<string, string> = {};
  let size = DEFAULT_PAGE_SIZE;
  const maxResults = c.query.get('max_results');
  if (maxResults !== null) {
    const n = /^\d{1,3}$/.test(maxResults) ? Number(maxResults) : Number.NaN;
    if (n >= 1 && n <= 100) size = n;
    else errors.max_results = MAX_RESULTS_RULE;
  }
  const status = c.query.get('status');
  if (status !== null && !(WORKFLOW_STATUSES as readonly string[]).includes(status)) {
    errors.status = `status must be one of ${WORKFLOW_STATUSES.join(', ')}`;
  }
  const list = c.space.ordered[status && !errors.status ? (status as WorkflowStatus) : 'all'];

  let offset = 0;
  const token = c.query.get('page_token');
  // An empty token is what a naive client sends for "first page".
  if (token) {
    const decoded = decodePageToken(token, c.space.id, status ?? '', list.length);
    if ('error' in decoded) errors.page_token = decoded.error;
    else offset = decoded.offset;
  }
  const problems = Object.keys(errors);
  if (problems.length > 0) {
    const detail = problems.length === 1 ? errors[problems[0]] : `invalid query parameters: ${problems.join(', ')}`;
    return fail(400, detail, errors);
  }

  const end = Math.min(offset + size, list.length);
  const parts: string[] = [];
  for (let i = offset; i < end; i++) parts.push(list[i].listJson);
  // the last page leaves next_page_token out: the description does not declare it nullable
  const next =
    end < list.length ? `,"next_page_token":${JSON.stringify(encodePageToken(c.space.id, status ?? '', end))}` : '';
  return { status: 200, json: `{"workflows":[${parts.join(',')}]${next}}` };
}

/** GET /{space_id}/workflows/{workflow_id} (extension): the workflow and its declared inputs. */
export function getWorkflow(c: OperationContext): Reply {
  const found = findWorkflow(c, c.params[1]);
  if ('status' in found) return found;
  return { status: 200, json: found.workflow.detailJson };
}

export function findWorkflow(c: OperationContext, workflowId: string) {
  if (!UUID_PATTERN.test(workflowId)) {
    return fail(400, `workflow_id must be a GUID (8-4-4-4-12 hex digits), got ${quote(workflowId)}`);
  }
  const workflow = c.space.workflows.get(workflowId.toLowerCase());
  if (!workflow) return fail(404, `workflow ${workflowId} not found in space ${c.space.id}`);
  return { workflow };
}

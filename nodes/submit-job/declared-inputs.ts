import type { MediaSpacesClient } from '../../lib/client';
import { MediaSpacesError } from '../../lib/errors';
import { isPlainObject } from '../../lib/guards';
import type { WorkflowInputs } from '../../lib/schemas';

const TTL_MS = 5 * 60_000;
/** Answers meaning "this service does not offer the workflow read": worth remembering. */
const UNSUPPORTED = new Set([404, 405, 501]);

/**
 * The inputs a workflow declares, read once per workflow and kept for five
 * minutes. Short-form values ({variables: {Count: 5}}) carry no typecode; the
 * declaration supplies it, so a wrong value is reported by name before
 * anything is sent. Reading a workflow is an extension of the service: where
 * it is missing the submission goes ahead with typecodes inferred from the
 * values, and the service has the last word.
 */
export class DeclaredInputs {
  private readonly cache = new Map<string, { expires: number; inputs: WorkflowInputs | undefined }>();

  /** The remembered declaration; a promise only when the workflow has to be read (once per five minutes). */
  get(
    client: MediaSpacesClient,
    workflowId: string,
    signal: AbortSignal,
  ): WorkflowInputs | undefined | Promise<WorkflowInputs | undefined> {
    const hit = this.cache.get(workflowId);
    if (hit && hit.expires > Date.now()) return hit.inputs;
    return this.read(client, workflowId, signal);
  }

  private async read(
    client: MediaSpacesClient,
    workflowId: string,
    signal: AbortSignal,
  ): Promise<WorkflowInputs | undefined> {
    try {
      const { data } = await client.getWorkflow(workflowId, { signal });
      this.remember(workflowId, data.inputs);
      return data.inputs;
    } catch (error) {
      if (error instanceof MediaSpacesError && error.code === 'aborted') throw error;
      if (error instanceof MediaSpacesError && error.status !== undefined && UNSUPPORTED.has(error.status)) {
        this.remember(workflowId, undefined);
      }
      // anything else (401, network) will show again, and be reported, on the submission itself
      return undefined;
    }
  }

  private remember(workflowId: string, inputs: WorkflowInputs | undefined): void {
    if (this.cache.size > 500) this.cache.clear();
    this.cache.set(workflowId, { expires: Date.now() + TTL_MS, inputs });
  }
}

/** Whether a request (either form) has variables or labels whose typecodes the declaration could supply. */
export function hasTypedInputs(request: unknown): boolean {
  if (!isPlainObject(request)) return false;
  if (request.variables !== undefined || request.labels !== undefined) return true;
  const input = isPlainObject(request.usage) ? request.usage.input : undefined;
  return isPlainObject(input) && (input.variables !== undefined || input.labels !== undefined);
}

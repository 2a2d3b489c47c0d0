import type { WorkflowInputs } from '../../../lib/schemas';
import { postAdmin } from './admin';
import { knownInputs } from './input-values';
import { serverBody } from './server-body';

/** The declared inputs of the workflows a dialog shows, asked of the runtime once each. */
export interface DeclaredInputs {
  /** the workflow's declared inputs, or null where the service does not describe them */
  get(workflow: string): JQuery.Promise<WorkflowInputs | null>;
  /** another server: ask again */
  forget(): void;
}

/**
 * Reads through the chosen config node (`server()` is its id); `failed` hears why a read failed
 * (a 404: the service does not describe inputs, the workflow read being an extension), `read` that
 * one succeeded (before anything waiting for it hears its inputs).
 */
export function declaredInputsLoader(
  server: () => unknown,
  failed: (xhr: JQuery.jqXHR) => void,
  read: () => void = () => undefined,
): DeclaredInputs {
  let cache: Record<string, JQuery.Promise<WorkflowInputs | null>> = {};
  const none = () => $.Deferred<WorkflowInputs | null>().resolve(null).promise();
  return {
    get(workflow) {
      const body = serverBody(server());
      if (!body || !workflow) return none();
      cache[workflow] ??= postAdmin<{ inputs?: WorkflowInputs }>('workflow-inputs', { ...body, workflow }).then(
        (result) => {
          read();
          if (result.inputs) knownInputs[workflow] = result.inputs;
          return result.inputs ?? null;
        },
        (xhr: JQuery.jqXHR) => {
          delete cache[workflow];
          failed(xhr);
          return none();
        },
      );
      return cache[workflow];
    },
    forget() {
      cache = {};
    },
  };
}

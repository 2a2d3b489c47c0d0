import type { MediaSpacesClient } from '../../lib/client';
import { MediaSpacesError } from '../../lib/errors';

/**
 * The config dialog's "test connection": three read-only probes, each
 * answered in words a user can act on. Nothing here changes the space:
 * - list workflows with max_results=1 checks the URL, prefix, key and subscription;
 * - a submission to the nil workflow id checks the key's scope: the service
 *   answers 404 (no such workflow) only after the scope check has passed, and
 *   401 when the key lacks workflow:workflow-management;
 * - deleting an event id that never exists checks the live-capture token the same way.
 */

export const PROBE_WORKFLOW_ID = '00000000-0000-0000-0000-000000000000';
export const PROBE_EVENT_ID = 'media-spaces-connection-probe';

export type ProbeArea = 'workflows' | 'submit' | 'liveCapture';

export interface ProbeResult {
  area: ProbeArea;
  /** true: works; false: broken; null: not tested (nothing to test with). */
  ok: boolean | null;
  status?: number;
  message: string;
}

export interface ProbeReport {
  ok: boolean;
  results: ProbeResult[];
}

export async function probeConnection(
  client: MediaSpacesClient,
  available: { apiKey: boolean; accessToken: boolean; workflowUrl: string; liveCaptureUrl: string },
  signal?: AbortSignal,
): Promise<ProbeReport> {
  const results: ProbeResult[] = [];
  const workflows = await probeWorkflows(client, available, signal);
  results.push(workflows);
  results.push(
    workflows.ok ? await probeSubmitScope(client, signal) : notTested('submit', 'not tested: the workflow list failed'),
  );
  results.push(await probeLiveCapture(client, available, signal));
  return { ok: results.every((r) => r.ok !== false), results };
}

async function probeWorkflows(
  client: MediaSpacesClient,
  available: { apiKey: boolean; workflowUrl: string },
  signal?: AbortSignal,
): Promise<ProbeResult> {
  if (!available.apiKey) return { area: 'workflows', ok: false, message: 'No API key: enter the workflow API key.' };
  try {
    const { status, data } = await client.listWorkflows({ maxResults: 1, signal });
    const some = data.workflows.length > 0 ? 'at least one workflow is visible' : 'the space has no workflows yet';
    return { area: 'workflows', ok: true, status, message: `OK: the API key can list workflows (${some}).` };
  } catch (error) {
    const e = asError(error);
    return {
      area: 'workflows',
      ok: false,
      status: e.status,
      message: explainWorkflowFailure(e, available.workflowUrl),
    };
  }
}

function explainWorkflowFailure(e: MediaSpacesError, url: string): string {
  switch (e.status) {
    case 401:
      return 'Wrong API key: the service refused it (401).';
    case 403:
      return "The organisation's subscription is inactive (403).";
    case 404:
      return `Bad URL: ${url} answered 404 for the workflow list; check the workflow URL and the path prefix (/workflow/v1 or /workflow/api/v1).`;
    case 400:
      return `The service rejected the request (400): check the space id. ${e.message}`;
    default:
      if (e.code === 'tls_error') return `TLS problem with the workflow area. ${e.message}`;
      if (e.code === 'network_error') return `Bad URL: cannot reach the workflow area. ${e.message}`;
      if (e.code === 'timeout') return `No answer from the workflow area in time. ${e.message}`;
      if (e.code === 'invalid_response') return `Bad URL: the address does not answer like the service. ${e.message}`;
      return e.message;
  }
}

async function probeSubmitScope(client: MediaSpacesClient, signal?: AbortSignal): Promise<ProbeResult> {
  try {
    const { status } = await client.submitJob(PROBE_WORKFLOW_ID, {}, { signal });
    // a workflow with the nil id should not exist; if it does, the key evidently may submit
    return { area: 'submit', ok: true, status, message: 'OK: the API key may submit jobs (management scope).' };
  } catch (error) {
    const e = asError(error);
    if (e.status === 404) {
      return { area: 'submit', ok: true, status: 404, message: 'OK: the API key may submit jobs (management scope).' };
    }
    if (e.status === 401) {
      return {
        area: 'submit',
        ok: false,
        status: 401,
        message:
          'Missing scope: the API key can list workflows but not submit jobs; it needs workflow:workflow-management (401).',
      };
    }
    if (e.status === 403) {
      return { area: 'submit', ok: false, status: 403, message: "The organisation's subscription is inactive (403)." };
    }
    return { area: 'submit', ok: false, status: e.status, message: `Could not check the submit scope: ${e.message}` };
  }
}

async function probeLiveCapture(
  client: MediaSpacesClient,
  available: { accessToken: boolean; liveCaptureUrl: string },
  signal?: AbortSignal,
): Promise<ProbeResult> {
  if (!available.accessToken) {
    return notTested('liveCapture', 'not tested: no access token (needed only by create channel and delete event).');
  }
  try {
    const { status } = await client.deleteEvent(PROBE_EVENT_ID, { signal });
    return {
      area: 'liveCapture',
      ok: true,
      status,
      message: `OK: the access token is accepted (an event named ${PROBE_EVENT_ID} existed and was deleted).`,
    };
  } catch (error) {
    const e = asError(error);
    switch (e.status) {
      case 404:
        // a 404 from some other web server would look the same; the service answers with a JSON error body
        if (e.body === null || typeof e.body !== 'object') {
          return {
            area: 'liveCapture',
            ok: false,
            status: 404,
            message: `Bad URL: ${available.liveCaptureUrl} answered 404 without the service's error body; check the live-capture URL.`,
          };
        }
        return { area: 'liveCapture', ok: true, status: 404, message: 'OK: the access token is accepted.' };
      case 401:
        return {
          area: 'liveCapture',
          ok: false,
          status: 401,
          message: 'Wrong access token: the live-capture area refused it (401).',
        };
      case 403:
        return {
          area: 'liveCapture',
          ok: false,
          status: 403,
          message: "The organisation's subscription is inactive (403).",
        };
      default:
        if (e.code === 'tls_error') {
          return { area: 'liveCapture', ok: false, message: `TLS problem with the live-capture area. ${e.message}` };
        }
        if (e.code === 'network_error' || e.code === 'invalid_response') {
          return {
            area: 'liveCapture',
            ok: false,
            message: `Bad URL: cannot reach the live-capture area at ${available.liveCaptureUrl}. ${e.message}`,
          };
        }
        return { area: 'liveCapture', ok: false, status: e.status, message: e.message };
    }
  }
}

function notTested(area: ProbeArea, message: string): ProbeResult {
  return { area, ok: null, message };
}

function asError(error: unknown): MediaSpacesError {
  if (error instanceof MediaSpacesError) return error;
  return new MediaSpacesError({
    code: 'network_error',
    message: error instanceof Error ? error.message : String(error),
  });
}

import { createClient, type MediaSpacesClient, type WorkflowPrefix } from '../../lib/client';
import { checkBaseUrl, UUID_PATTERN, UUID_RULE } from '../../lib/rules';
import { asProbeError, notFoundKind, originOf, serviceReason, transportSentence } from './probe-reasons';

/**
 * The config dialog's "Test connection": read-only probes, one verdict per
 * area, each a sentence that says what to fix. Nothing here changes the space:
 * - list workflows with max_results=1 proves the workflow URL, prefix, space and key;
 * - a submission to the nil workflow id proves the key's scope: the service checks
 *   the credential, the space and the scope before it looks the workflow up, so a
 *   404 naming that workflow means the key may submit, and a 401 means it lacks
 *   workflow:workflow-management. No job is created: no workflow has the nil id;
 * - deleting an event id that never exists proves the live-capture URL and token
 *   the same way (a 404 naming that event).
 * An area is OK only when a call proved it; without a URL or a credential it is
 * "not checked", and each area is probed on its own.
 */

const PROBE_WORKFLOW_ID = '00000000-0000-0000-0000-000000000000';
const PROBE_EVENT_ID = 'media-spaces-connection-probe';

/** What the live-capture probe is, where its answer is quoted: a request that changes nothing. */
const PROBE_NOTE =
  '; the test asks to delete an event id that never exists, a harmless probe: nothing in the space changes';

type ProbeArea = 'workflows' | 'submit' | 'liveCapture';

interface ProbeResult {
  area: ProbeArea;
  /** true: proved to work; false: broken; null: not checked (nothing to check with). */
  ok: boolean | null;
  status?: number;
  message: string;
}

interface ProbeReport {
  ok: boolean;
  results: ProbeResult[];
}

/** The dialog's settings as typed (URLs unchecked), with the credentials it has. */
export interface ProbeSetup {
  workflowUrl: string;
  liveCaptureUrl: string;
  spaceId: string;
  workflowPrefix: WorkflowPrefix;
  timeout: number;
  rejectUnauthorized: boolean;
  apiKey?: string;
  workflowToken?: string;
  workflowTokenExpiresAt?: number;
  accessToken?: string;
  /**
   * Per area, why it has no credential although the dialog asked for the stored
   * one: the settings differ from the deployed ones (stored-credentials.ts).
   * Such an area is not probed: nothing is sent to the address named.
   */
  refused?: { workflow?: string; liveCapture?: string };
}

const PREFIXES = ['/workflow/api/v1', '/workflow/v1', '/livecapture/v1'];

export async function probeConnection(setup: ProbeSetup, signal?: AbortSignal): Promise<ProbeReport> {
  const [workflow, live] = await Promise.all([probeWorkflowArea(setup, signal), probeLiveCapture(setup, signal)]);
  const results = [...workflow, live];
  // ok: nothing failed; an area left unchecked says so in its own line
  return { ok: results.every((r) => r.ok !== false), results };
}

/** Why an area cannot be probed at all, before any request: a missing or malformed setting. */
function setupProblem(url: string, label: string, spaceId: string): string | undefined {
  const checked = checkBaseUrl(url);
  if (!checked.ok) {
    if (checked.problem === 'is required') return `not checked: no ${label}; enter the address of the service.`;
    return `The ${label} ${checked.problem}: enter an address such as http://media.example.com:8787.`;
  }
  const path = checked.url.pathname.replace(/\/+$/, '');
  const prefix = PREFIXES.find((p) => path.toLowerCase().includes(p));
  if (prefix) {
    return `The ${label} already contains the path prefix ${prefix}; the node adds it itself. Set the ${label} to ${checked.url.origin}${path.slice(0, path.toLowerCase().indexOf(prefix))}.`;
  }
  if (spaceId === '') return 'not checked: no Space ID; enter the id of your space.';
  if (!UUID_PATTERN.test(spaceId)) return `not checked: the Space ID ${UUID_RULE}.`;
  return undefined;
}

/** A client for one area's probes, holding only that area's credentials. */
function clientFor(setup: ProbeSetup, url: string, area: 'workflow' | 'liveCapture'): MediaSpacesClient {
  const workflow = area === 'workflow';
  return createClient({
    workflowUrl: url,
    liveCaptureUrl: url,
    spaceId: setup.spaceId,
    workflowPrefix: setup.workflowPrefix,
    timeout: setup.timeout,
    retries: 0,
    rejectUnauthorized: setup.rejectUnauthorized,
    apiKey: (workflow && setup.apiKey) || undefined,
    workflowToken: (workflow && setup.workflowToken) || undefined,
    workflowTokenExpiresAt: workflow && setup.workflowToken ? setup.workflowTokenExpiresAt : undefined,
    accessToken: (!workflow && setup.accessToken) || undefined,
  });
}

async function probeWorkflowArea(setup: ProbeSetup, signal?: AbortSignal): Promise<ProbeResult[]> {
  const problem = setupProblem(setup.workflowUrl, 'Workflow URL', setup.spaceId);
  const credential = setup.workflowToken ? 'sign-in token' : 'API key';
  const skipSubmit = (why: string): ProbeResult => ({ area: 'submit', ok: null, message: `not checked: ${why}.` });
  if (problem) return [verdict('workflows', problem), skipSubmit('the workflow area could not be checked')];
  if (!setup.apiKey && !setup.workflowToken && setup.refused?.workflow) {
    return [verdict('workflows', `not checked: ${setup.refused.workflow}`), skipSubmit('the stored key was not sent')];
  }
  if (!setup.apiKey && !setup.workflowToken) {
    return [
      { area: 'workflows', ok: null, message: 'not checked: no API key; enter the API key or Sign in.' },
      skipSubmit('no API key'),
    ];
  }
  const client = clientFor(setup, setup.workflowUrl, 'workflow');
  try {
    const list = await listProbe(client, setup, credential, signal);
    if (list.ok !== true) return [list, skipSubmit('the workflow list failed first')];
    return [list, await submitProbe(client, setup, credential, signal)];
  } finally {
    await client.close();
  }
}

function verdict(area: ProbeArea, message: string, status?: number): ProbeResult {
  return { area, ok: message.startsWith('not checked') ? null : false, message, ...(status ? { status } : {}) };
}

async function listProbe(
  client: MediaSpacesClient,
  setup: ProbeSetup,
  credential: string,
  signal?: AbortSignal,
): Promise<ProbeResult> {
  try {
    const { status, data } = await client.listWorkflows({ maxResults: 1, signal });
    const some = data.workflows.length > 0 ? 'at least one workflow is visible' : 'the space has no workflows yet';
    return { area: 'workflows', ok: true, status, message: `OK: the ${credential} can list workflows (${some}).` };
  } catch (error) {
    const e = asProbeError(error);
    return verdict('workflows', explain(e, setup, workflowWhere(setup, credential)), e.status);
  }
}

async function submitProbe(
  client: MediaSpacesClient,
  setup: ProbeSetup,
  credential: string,
  signal?: AbortSignal,
): Promise<ProbeResult> {
  const mayYes = `OK: the ${credential} may submit jobs (scope workflow:workflow-management).`;
  try {
    const { status } = await client.submitJob(PROBE_WORKFLOW_ID, {}, { signal });
    return { area: 'submit', ok: true, status, message: mayYes };
  } catch (error) {
    const e = asProbeError(error);
    // 400/422 come after the scope check too: the request was looked at, so the key may submit
    const scopePassed =
      (e.status === 404 && notFoundKind(e, setup.spaceId, PROBE_WORKFLOW_ID) === 'item') ||
      e.status === 400 ||
      e.status === 422;
    if (scopePassed) return { area: 'submit', ok: true, status: e.status, message: mayYes };
    if (e.status === 401 && e.code !== 'token_expired') {
      return verdict(
        'submit',
        `Missing scope: the ${credential} can list workflows but not submit jobs; it needs workflow:workflow-management. Use a management key (HTTP 401; the service says: ${serviceReason(e) ?? 'not authorised'}).`,
        401,
      );
    }
    return verdict('submit', explain(e, setup, workflowWhere(setup, credential)), e.status);
  }
}

async function probeLiveCapture(setup: ProbeSetup, signal?: AbortSignal): Promise<ProbeResult> {
  const url = setup.liveCaptureUrl || setup.workflowUrl;
  const label = setup.liveCaptureUrl ? 'Live capture URL' : 'Workflow URL (used for live capture)';
  const problem = setupProblem(url, label, setup.spaceId);
  if (problem) return verdict('liveCapture', problem);
  if (!setup.accessToken && setup.refused?.liveCapture) {
    return verdict('liveCapture', `not checked: ${setup.refused.liveCapture}`);
  }
  if (!setup.accessToken) {
    return verdict('liveCapture', 'not checked: no access token (only create channel and delete event need one).');
  }
  const client = clientFor(setup, url, 'liveCapture');
  try {
    const { status } = await client.deleteEvent(PROBE_EVENT_ID, { signal });
    return { area: 'liveCapture', ok: true, status, message: 'OK: the access token is accepted.' };
  } catch (error) {
    const e = asProbeError(error);
    if (e.status === 404 && notFoundKind(e, setup.spaceId, PROBE_EVENT_ID) === 'item') {
      return { area: 'liveCapture', ok: true, status: 404, message: 'OK: the access token is accepted.' };
    }
    return verdict(
      'liveCapture',
      explain(e, setup, {
        url,
        urlLabel: label,
        prefix: '/livecapture/v1',
        alsoCheck: '',
        credential: 'access token',
        itemId: PROBE_EVENT_ID,
      }),
      e.status,
    );
  } finally {
    await client.close();
  }
}

function workflowWhere(setup: ProbeSetup, credential: string): Where {
  return {
    url: setup.workflowUrl,
    urlLabel: 'Workflow URL',
    prefix: setup.workflowPrefix,
    alsoCheck: ' and the Path prefix',
    credential,
    itemId: PROBE_WORKFLOW_ID,
  };
}

/** One sentence for a failed probe call: what went wrong and what to change. */
interface Where {
  url: string;
  urlLabel: string;
  /** The path the client puts after the URL, for the "wrong path" sentence. */
  prefix: string;
  /** Where else the path may be wrong, e.g. " and the Path prefix". */
  alsoCheck: string;
  credential: string;
  itemId: string;
}

function explain(e: ReturnType<typeof asProbeError>, setup: ProbeSetup, where: Where): string {
  const { url, urlLabel, prefix, alsoCheck, credential, itemId } = where;
  const origin = originOf(url);
  const transport = transportSentence(e, urlLabel, origin);
  if (transport) return transport;
  // the probe's own request, quoted back by a service ("no route DELETE …/events/media-spaces-connection-probe"),
  // reads like a deletion: it is left out, and the probe said for what it is
  const quoted = serviceReason(e);
  const reason = itemId === PROBE_EVENT_ID && quoted?.includes(itemId) ? withoutProbeRequest(quoted, itemId) : quoted;
  const probe = itemId === PROBE_EVENT_ID && reason !== quoted ? PROBE_NOTE : '';
  const said = ` (HTTP ${e.status}${reason ? `; the service says: ${reason}` : ''}${probe})`;
  if (e.code === 'token_expired') {
    return `The sign-in token has expired${tokenExpiry(setup)}: open the config node and Sign in again.`;
  }
  switch (e.status) {
    case 401:
      if (reason && /does not belong to space/i.test(reason)) {
        return `The ${credential} belongs to another space: check the Space ID, or use the ${credential} of this space${said}.`;
      }
      return `Wrong ${credential}: the service does not accept it${said}. Enter it again.`;
    case 403:
      return `The subscription of this space is inactive (HTTP 403): renew it with the service's provider; the settings themselves are right.`;
    case 404: {
      const kind = notFoundKind(e, setup.spaceId, itemId);
      if (kind === 'space')
        return `Wrong Space ID: the service has no space ${setup.spaceId}${said}. Check the Space ID.`;
      return `Wrong path: ${url.replace(/\/+$/, '')}${prefix}/… is not a Media Spaces address (HTTP 404 for an unknown route${reason ? `; the service says: ${reason}` : ''}${probe}). Check the ${urlLabel} (usually just http(s)://host:port)${alsoCheck}.`;
    }
    case 400:
      return `The service rejected the request${said}. Check the Space ID.`;
    default:
      return e.status === undefined ? e.message : `Unexpected answer${said}.`;
  }
}

/** A request line in a service's answer: "DELETE /…/events/<id>". */
const REQUEST_LINE = /\b(?:GET|POST|PUT|PATCH|DELETE)\s+\S+/g;

/** The service's reason with the probe's request line ("DELETE /…/events/<probe id>") replaced by a plain word. */
function withoutProbeRequest(reason: string, itemId: string): string {
  // one fixed pattern: the id is looked for in each request line it finds, never written into a pattern
  const out = reason.replace(REQUEST_LINE, (line) => (line.includes(itemId) ? 'the test request' : line));
  return out.includes(itemId) ? out.split(itemId).join('the probe id') : out;
}

function tokenExpiry(setup: ProbeSetup): string {
  return setup.workflowTokenExpiresAt ? ` (at ${new Date(setup.workflowTokenExpiresAt).toISOString()})` : '';
}

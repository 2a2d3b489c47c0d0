import { createClient, type MediaSpacesClient } from '../../lib/client';
import { MediaSpacesError } from '../../lib/errors';
import { isPlainObject } from '../../lib/guards';
import type { HttpRequest, HttpResponse, NodeAPI, RequestHandler } from '../shared/node-red-types';
import { READ_PERMISSION, requirePermission, WRITE_PERMISSION } from '../shared/permission';
import { clientFor } from '../shared/server-client';
import { type Credentials, configError, parseConfig, tokenExpiry } from './config-settings';
import { type ProbeSetup, probeConnection } from './connection-probe';
import {
  isStoredCredentialSource,
  refusalSentence,
  type StoredCredentialSource,
  type StoredName,
} from './stored-credentials';

/**
 * Editor endpoints of the config node: "test connection", and the workflow
 * list and declared inputs that fill the submit-job dialog. Each takes either a
 * deployed config node's id (GET ?server=) or the dialog's unsaved fields
 * (POST), because users test and pick workflows before their first deploy.
 *
 * The editor shows stored passwords as this placeholder and never receives
 * the real value; when it comes back (or the field is left out), the stored
 * credential is used, but only with the settings it was deployed with.
 */
const PASSWORD_PLACEHOLDER = '__PWRD__';
/** Editor probes answer quickly or not at all: no retries, a short timeout. */
const EDITOR_TIMEOUT_MS = 10_000;

export function registerAdminRoutes(RED: NodeAPI): void {
  const read = requirePermission(RED, READ_PERMISSION);
  const write = requirePermission(RED, WRITE_PERMISSION);

  // always 200 with a verdict per area: a wrong setting is an answer, not an HTTP error
  RED.httpAdmin.post(
    '/media-spaces/test-connection',
    write,
    answer((req) => probeConnection(probeSetup(RED, req.body))),
  );

  RED.httpAdmin.get(
    '/media-spaces/workflows',
    read,
    answer((req) => listWorkflows(deployedClient(RED, req.query.server))),
  );
  RED.httpAdmin.post(
    '/media-spaces/workflows',
    write,
    answer((req) => withDialogClient(RED, req.body, listWorkflows)),
  );

  registerWorkflowPageRoute(RED, write);

  RED.httpAdmin.get(
    '/media-spaces/workflow-inputs',
    read,
    answer((req) => workflowInputs(deployedClient(RED, req.query.server), req.query.workflow)),
  );
  RED.httpAdmin.post(
    '/media-spaces/workflow-inputs',
    write,
    answer((req) =>
      withDialogClient(RED, req.body, (client) =>
        workflowInputs(client, isPlainObject(req.body) ? req.body.workflow : undefined),
      ),
    ),
  );
}

/** Every workflow of the space, all pages, reduced to what a dropdown shows. */
async function listWorkflows(
  client: MediaSpacesClient,
): Promise<Array<{ id: string; name?: string; status?: string }>> {
  const all = await client.listAllWorkflows({ maxResults: 100 });
  return all.map((w) => ({ id: w.id, name: w.name, status: w.status }));
}

/**
 * One page of the space's workflows for the editor's workflow picker, which
 * loads a space of thousands page by page in the background (active ones
 * first) instead of waiting for one answer holding them all.
 */
function registerWorkflowPageRoute(RED: NodeAPI, write: RequestHandler): void {
  RED.httpAdmin.post(
    '/media-spaces/workflow-page',
    write,
    answer((req) =>
      withDialogClient(RED, req.body, async (client) => {
        const body = isPlainObject(req.body) ? req.body : {};
        const { data } = await client.listWorkflows({
          maxResults: 100,
          status: typeof body.status === 'string' ? body.status : undefined,
          pageToken: typeof body.pageToken === 'string' && body.pageToken !== '' ? body.pageToken : undefined,
        });
        return {
          workflows: data.workflows.map((w) => ({ id: w.id, name: w.name, status: w.status })),
          next: data.next_page_token ?? null,
        };
      }),
    ),
  );
}

/** A workflow's declared inputs (an extension of the service); a 404 tells the editor to offer plain JSON. */
async function workflowInputs(client: MediaSpacesClient, workflowId: unknown) {
  const { data } = await client.getWorkflow(typeof workflowId === 'string' ? workflowId : String(workflowId ?? ''));
  return { id: data.id, name: data.name, status: data.status, inputs: data.inputs ?? null };
}

/** The shared client of a deployed config node; an unknown id is a 404 to the editor. */
function deployedClient(RED: NodeAPI, serverId: unknown): MediaSpacesClient {
  try {
    return clientFor(RED, serverId, 'workflow');
  } catch (error) {
    if (error instanceof MediaSpacesError && 'server' in error.fieldErrors) {
      throw new MediaSpacesError({
        status: 404,
        code: 'not_found',
        message: `${error.message}: deploy it, or send its settings in a POST`,
      });
    }
    throw error;
  }
}

/** The credentials a dialog request may use, and why an area has none where a stored one was asked for. */
interface DialogCredentials {
  credentials: Credentials;
  /** Per area with no credential: the stored ones asked for but kept back, the settings differing from the deployed ones. */
  refused: { workflow?: StoredName[]; liveCapture?: StoredName[] };
}

/**
 * The dialog's credentials: typed ones, or the stored ones where it sent the
 * placeholder or nothing, but only those of a deployed config node whose
 * area the dialog's settings reach exactly as deployed (stored-credentials.ts).
 * Elsewhere only typed credentials are used.
 */
function dialogCredentials(RED: NodeAPI, body: Record<string, unknown>): DialogCredentials {
  const { usable, refused } = storedSource(RED, body.id)?.storedCredentialsFor(body) ?? { usable: {}, refused: [] };
  const typedToken = typed(body.workflowToken);
  const pick = (name: StoredName) => typed(body[name]) ?? (asksStored(body[name]) ? usable[name] : undefined);
  const credentials: Credentials = {
    apiKey: pick('apiKey'),
    accessToken: pick('accessToken'),
    workflowToken: pick('workflowToken'),
  };
  if (credentials.workflowToken) {
    // the expiry goes with the token it belongs to
    credentials.workflowTokenExpiresAt = typedToken
      ? typed(body.workflowTokenExpiresAt)
      : usable.workflowTokenExpiresAt;
  }
  const wasAsked = (names: StoredName[]) => refused.filter((n) => names.includes(n) && asksStored(body[n]));
  const result: DialogCredentials = { credentials, refused: {} };
  const workflow = wasAsked(['apiKey', 'workflowToken']);
  if (!credentials.apiKey && !credentials.workflowToken && workflow.length > 0) result.refused.workflow = workflow;
  const live = wasAsked(['accessToken']);
  if (!credentials.accessToken && live.length > 0) result.refused.liveCapture = live;
  return result;
}

/** A deployed media-spaces-config node; any other id (another type, not deployed) has no stored credential here. */
function storedSource(RED: NodeAPI, id: unknown): StoredCredentialSource | undefined {
  if (typeof id !== 'string' || id === '') return undefined;
  const node = RED.nodes.getNode(id);
  return node?.type === 'media-spaces-config' && isStoredCredentialSource(node) ? node : undefined;
}

/** What "Test connection" tries: the dialog's settings as typed, even where they are wrong. */
function probeSetup(RED: NodeAPI, body: unknown): ProbeSetup {
  if (!isPlainObject(body)) throw MediaSpacesError.invalidInput('the request body must be a JSON object');
  // zod loads when the dialog first asks, not at Node-RED start
  const { readConfigSettings } = require('./settings') as typeof import('./settings');
  const { settings } = readConfigSettings(body);
  const { credentials, refused } = dialogCredentials(RED, body);
  const test = 'test another address';
  return {
    ...settings,
    timeout: Math.min(settings.timeout, EDITOR_TIMEOUT_MS),
    apiKey: credentials.apiKey,
    accessToken: credentials.accessToken,
    workflowToken: credentials.workflowToken,
    workflowTokenExpiresAt: tokenExpiry(credentials.workflowTokenExpiresAt),
    refused: {
      workflow: refused.workflow && refusalSentence('workflow', refused.workflow, test),
      liveCapture: refused.liveCapture && refusalSentence('liveCapture', refused.liveCapture, test),
    },
  };
}

/**
 * A short-lived client for the dialog's unsaved settings, for the workflow
 * area only (these routes list and read workflows): it holds no access token.
 */
function dialogClient(RED: NodeAPI, body: unknown) {
  if (!isPlainObject(body)) throw MediaSpacesError.invalidInput('the request body must be a JSON object');
  const { credentials, refused } = dialogCredentials(RED, body);
  if (refused.workflow) {
    const sentence = refusalSentence('workflow', refused.workflow, 'use another address');
    // sent nowhere: the stored key is not for these settings, and there is no typed one
    throw MediaSpacesError.invalidInput(sentence[0].toUpperCase() + sentence.slice(1), {
      [refused.workflow[0]]: 'is only sent to the deployed settings',
    });
  }
  const parsed = parseConfig(body, { ...credentials, accessToken: undefined });
  if (Object.keys(parsed.problems).length > 0) throw configError('(dialog)', parsed.problems);
  const client = createClient({
    ...parsed.config,
    timeout: Math.min(parsed.config.timeout ?? EDITOR_TIMEOUT_MS, EDITOR_TIMEOUT_MS),
    retries: 0,
  });
  return { client, parsed };
}

async function withDialogClient<T>(
  RED: NodeAPI,
  body: unknown,
  use: (client: MediaSpacesClient) => Promise<T>,
): Promise<T> {
  const { client } = dialogClient(RED, body);
  try {
    return await use(client);
  } finally {
    await client.close();
  }
}

/** A credential typed in the dialog (not the placeholder, not empty). */
function typed(value: unknown): string | undefined {
  return typeof value === 'string' && value !== '' && value !== PASSWORD_PLACEHOLDER ? value : undefined;
}

/** The dialog left the stored credential in place: the placeholder, or the field not sent at all. */
function asksStored(value: unknown): boolean {
  return value === undefined || value === PASSWORD_PLACEHOLDER;
}

/**
 * Runs a handler and always answers: 200 with its result, otherwise the
 * error record (never a stack, never a credential) with a status the editor
 * can tell apart: 400 bad settings, 404 not found, 502 the service failed.
 */
function answer(handler: (req: HttpRequest) => Promise<unknown>): RequestHandler {
  return (req: HttpRequest, res: HttpResponse) => {
    Promise.resolve()
      .then(() => handler(req))
      .then(
        (result) => res.status(200).json(result),
        (error: unknown) => {
          const e =
            error instanceof MediaSpacesError
              ? error
              : new MediaSpacesError({
                  code: 'invalid_input',
                  message: error instanceof Error ? error.message : String(error),
                });
          res.status(httpStatusFor(e)).json({ error: e.toJSON() });
        },
      )
      .catch(() => undefined);
  };
}

function httpStatusFor(e: MediaSpacesError): number {
  if (e.code === 'invalid_input') return 400;
  if (e.status === 404) return 404;
  if (e.code === 'timeout') return 504;
  return 502;
}

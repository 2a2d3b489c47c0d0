import { inspect } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClient, type MediaSpacesClient } from '../../lib/client';
import { codeForStatus, errorFromResponse, isMediaSpacesError, MediaSpacesError } from '../../lib/errors';
import { json, type Stub, startStub } from '../support/stub-server';

const SPACE = '5c6e2a40-1b2c-4d5e-8f90-123456789abc';
const WF = '3f2504e0-4f89-41d3-9a0c-0305e82c3301';

describe('errorFromResponse', () => {
  it('reads the ErrorResponse shape {code, message}', () => {
    const body = { code: 400, message: 'workflow_id is not a valid GUID' };
    const err = errorFromResponse(400, body, 'Submit job');
    expect(err).toBeInstanceOf(MediaSpacesError);
    expect(err).toBeInstanceOf(Error);
    expect(err.name).toBe('MediaSpacesError');
    expect(err.status).toBe(400);
    expect(err.code).toBe('invalid_request');
    expect(err.message).toBe('workflow_id is not a valid GUID (HTTP 400 from Submit job)');
    expect(err.fieldErrors).toEqual({});
    expect(err.traceId).toBeUndefined();
    expect(err.body).toEqual(body);
  });

  it('names the status once when the reason already says it', () => {
    const said = errorFromResponse(503, { code: 503, message: 'injected fault: HTTP 503' }, 'Create channel');
    expect(said.message).toBe('injected fault: HTTP 503 (from Create channel)');
    // another status, or a number that only starts the same, is not the status said
    expect(errorFromResponse(503, { code: 503, message: 'upstream HTTP 502' }, 'X').message).toBe(
      'upstream HTTP 502 (HTTP 503 from X)',
    );
    expect(errorFromResponse(503, { code: 503, message: 'HTTP 5030 errors' }, 'X').message).toBe(
      'HTTP 5030 errors (HTTP 503 from X)',
    );
  });

  it('reads the error body {error_message}', () => {
    const err = errorFromResponse(404, { error_message: 'Workflow not found' }, 'Submit job');
    expect(err.status).toBe(404);
    expect(err.code).toBe('not_found');
    expect(err.message).toBe('Workflow not found (HTTP 404 from Submit job)');
    expect(err.fieldErrors).toEqual({});
  });

  it('reads the validation body {errors: {field: message}} into fieldErrors', () => {
    const err = errorFromResponse(
      422,
      { errors: { 'variables.Start': 'is required', source_id: 'unknown source' } },
      'Submit job',
    );
    expect(err.code).toBe('invalid_options');
    expect(err.fieldErrors).toEqual({ 'variables.Start': 'is required', source_id: 'unknown source' });
    expect(err.message).toBe('variables.Start: is required; source_id: unknown source (HTTP 422 from Submit job)');
  });

  it('quotes the first clause of a field error that names its own subject, reason first (an archived workflow)', () => {
    const problem = 'workflow "HDCAM ingest" is archived; jobs can be submitted only to active workflows';
    const err = errorFromResponse(422, { errors: { workflow_id: problem } }, 'Submit job');
    expect(err.message).toBe('workflow "HDCAM ingest" is archived (HTTP 422 from Submit job)');
    expect(err.fieldErrors).toEqual({ workflow_id: problem });
  });

  it('prefers error_message as the message when a body also carries an errors map', () => {
    const err = errorFromResponse(400, { error_message: 'Invalid channel', errors: { name: 'too long' } }, 'Create');
    expect(err.message).toBe('Invalid channel; fields at fault: name: too long (HTTP 400 from Create)');
    expect(err.fieldErrors).toEqual({ name: 'too long' });
  });

  it('reads the problem body with errors[].pointer, detail and trace_id', () => {
    const body = {
      title: 'One or more validation errors occurred.',
      status: 400,
      trace_id: '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01',
      type: 'https://tools.ietf.org/html/rfc9110#section-15.5.1',
      detail: 'max_results must be between 1 and 100',
      instance: `/workflow/v1/${SPACE}/workflows`,
      errors: [{ pointer: 'max_results', type: 'invalid_value', detail: 'must be between 1 and 100' }],
    };
    const err = errorFromResponse(400, body, 'List workflows');
    expect(err.status).toBe(400);
    expect(err.code).toBe('invalid_request');
    expect(err.traceId).toBe(body.trace_id);
    expect(err.fieldErrors).toEqual({ max_results: 'must be between 1 and 100' });
    expect(err.message).toBe('max_results must be between 1 and 100 (HTTP 400 from List workflows)');
  });

  it('falls back to the title, and to the type of an errors item without pointer', () => {
    const err = errorFromResponse(
      500,
      { title: 'Internal Server Error', status: 500, errors: [{ type: 'database' }, { detail: 'x' }] },
      'List workflows',
    );
    expect(err.code).toBe('server_error');
    expect(err.message).toBe(
      'Internal Server Error; fields at fault: database: database; (request): x (HTTP 500 from List workflows)',
    );
    expect(err.fieldErrors).toEqual({ database: 'database', '(request)': 'x' });
  });

  it('reads a plain-text body, trimmed and cut to 200 characters', () => {
    expect(errorFromResponse(502, '  Bad Gateway\n', 'Get job').message).toBe('Bad Gateway (HTTP 502 from Get job)');
    const long = errorFromResponse(500, `<html>${'x'.repeat(500)}</html>`, 'Get job');
    expect(long.message).toBe(`<html>${'x'.repeat(194)} (HTTP 500 from Get job)`);
    expect(long.code).toBe('server_error');
  });

  it('uses the status text alone for an empty or unreadable body', () => {
    expect(errorFromResponse(503, undefined, 'Delete event').message).toBe(
      'service unavailable (HTTP 503 from Delete event)',
    );
    expect(errorFromResponse(403, { unrelated: true }, 'List workflows').message).toBe(
      "the organisation's subscription is inactive (HTTP 403 from List workflows)",
    );
    expect(errorFromResponse(418, '', 'X').message).toBe('X failed: HTTP 418');
    expect(errorFromResponse(418, null, 'X').code).toBe('http_error');
  });

  it('maps every status of the description to its code', () => {
    expect(codeForStatus(400)).toBe('invalid_request');
    expect(codeForStatus(401)).toBe('unauthorized');
    expect(codeForStatus(403)).toBe('subscription_inactive');
    expect(codeForStatus(404)).toBe('not_found');
    expect(codeForStatus(409)).toBe('conflict');
    expect(codeForStatus(422)).toBe('invalid_options');
    expect(codeForStatus(429)).toBe('rate_limited');
    for (const s of [500, 502, 503, 504, 599]) expect(codeForStatus(s)).toBe('server_error');
    for (const s of [302, 405, 410, 418]) expect(codeForStatus(s)).toBe('http_error');
  });
});

describe('MediaSpacesError', () => {
  it('serialises to plain data without stack, cause or body', () => {
    const cause = new Error('socket hang up');
    const err = new MediaSpacesError({
      status: 400,
      code: 'invalid_request',
      message: 'bad',
      fieldErrors: { a: 'b' },
      traceId: 't-1',
      body: { internal: 'detail' },
      cause,
    });
    expect(err.cause).toBe(cause);
    const data = err.toJSON();
    expect(data).toEqual({
      name: 'MediaSpacesError',
      status: 400,
      code: 'invalid_request',
      message: 'bad',
      fieldErrors: { a: 'b' },
      traceId: 't-1',
    });
    expect(Object.keys(data)).not.toContain('stack');
    expect(Object.keys(data)).not.toContain('cause');
    expect(JSON.parse(JSON.stringify(err))).toEqual(data);
    data.fieldErrors.a = 'changed';
    expect(err.fieldErrors.a).toBe('b');
  });

  it('leaves status and traceId out of toJSON when unknown', () => {
    const err = MediaSpacesError.invalidInput('nope', { x: 'bad' });
    expect(err.toJSON()).toEqual({
      name: 'MediaSpacesError',
      code: 'invalid_input',
      message: 'nope',
      fieldErrors: { x: 'bad' },
    });
    expect(err.cause).toBeUndefined();
    expect(isMediaSpacesError(err)).toBe(true);
    expect(isMediaSpacesError(new Error('x'))).toBe(false);
    expect(isMediaSpacesError({ code: 'invalid_input' })).toBe(false);
  });
});

describe('credentials never leak from errors of real failed calls', () => {
  const API_KEY = 'super-secret-key-123';
  const TOKEN = 'super-secret-token-456';
  let stub: Stub;
  let client: MediaSpacesClient;

  beforeAll(async () => {
    stub = await startStub((req, res) => {
      if (req.url.includes('/hang')) return; // never answers
      if (req.url.endsWith('/events/bad-json')) {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end('{"not json');
        return;
      }
      if (req.url.includes('/channels')) {
        json(res, 401, { error_message: 'access token rejected' });
        return;
      }
      json(res, 401, {
        title: 'Unauthorized',
        status: 401,
        trace_id: 'trace-401',
        detail: 'the key lacks the scope workflow:workflow-management',
        instance: req.url,
      });
    });
    client = createClient({
      workflowUrl: stub.url,
      liveCaptureUrl: stub.url,
      spaceId: SPACE,
      apiKey: API_KEY,
      accessToken: TOKEN,
      retries: 0,
      timeout: 300,
    });
  });

  afterAll(async () => {
    await client.close();
    await stub.close();
  });

  function expectNoSecret(err: unknown): void {
    expect(isMediaSpacesError(err)).toBe(true);
    const e = err as MediaSpacesError;
    const renderings = [
      e.message,
      String(e),
      e.stack ?? '',
      JSON.stringify(e),
      JSON.stringify(e.toJSON()),
      JSON.stringify(e.body ?? null),
      inspect(e, { depth: 10 }),
      inspect(e, { depth: 10, showHidden: true }),
      inspect(e.toJSON(), { depth: 10 }),
    ];
    for (const text of renderings) {
      expect(text).not.toContain(API_KEY);
      expect(text).not.toContain(TOKEN);
    }
  }

  async function failure(p: Promise<unknown>): Promise<MediaSpacesError> {
    const err = await p.then(
      () => {
        throw new Error('expected the call to fail');
      },
      (e: unknown) => e,
    );
    expectNoSecret(err);
    return err as MediaSpacesError;
  }

  it('401 of the workflow area (problem body)', async () => {
    const err = await failure(client.submitJob(WF, { job_name: 'x' }));
    expect(err.status).toBe(401);
    expect(err.code).toBe('unauthorized');
    expect(err.traceId).toBe('trace-401');
    // the key did reach the server, in the Authorization header only
    const last = stub.requests.at(-1)!;
    expect(last.headers.authorization).toBe(`Bearer ${API_KEY}`);
    expect(last.url).not.toContain(API_KEY);
    expect(last.body).not.toContain(API_KEY);
  });

  it('401 of the live-capture area', async () => {
    const err = await failure(client.createChannel({ name: 'A' }));
    expect(err.code).toBe('unauthorized');
    expect(err.message).toContain('access token rejected');
    expect(stub.requests.at(-1)!.headers.authorization).toBe(`Bearer ${TOKEN}`);
  });

  it('a timeout', async () => {
    const err = await failure(client.getJob(WF, 'hang'));
    expect(err.code).toBe('timeout');
  });

  it('an abort', async () => {
    const controller = new AbortController();
    const p = client.getJob(WF, 'hang', { signal: controller.signal });
    setTimeout(() => controller.abort(), 20);
    const err = await failure(p);
    expect(err.code).toBe('aborted');
  });

  it('an unreachable service', async () => {
    const closed = await startStub();
    const url = closed.url;
    await closed.close();
    const c = createClient({ workflowUrl: url, spaceId: SPACE, apiKey: API_KEY, retries: 0 });
    try {
      const err = await failure(c.listWorkflows());
      expect(err.code).toBe('network_error');
      expect(err.message).toContain(url);
    } finally {
      await c.close();
    }
  });

  it('a 2xx body that is not JSON', async () => {
    const err = await failure(client.deleteEvent('bad-json'));
    expect(err.code).toBe('invalid_response');
    expect(err.status).toBe(200);
  });

  it('a base URL that carries user:password is never echoed', async () => {
    const c = createClient({
      workflowUrl: `http://user:${API_KEY}@127.0.0.1:1`,
      spaceId: SPACE,
      apiKey: API_KEY,
      retries: 0,
      connectTimeout: 200,
    });
    try {
      await failure(c.listWorkflows());
    } finally {
      await c.close();
    }
  });

  it('a bad config value quoted in an invalid_input error is not the key', async () => {
    const c = createClient({ workflowUrl: 'not a url', spaceId: SPACE, apiKey: API_KEY });
    try {
      const err = await failure(c.listWorkflows());
      expect(err.code).toBe('invalid_input');
      expect(err.fieldErrors).toEqual({ workflowUrl: 'is not a URL' });
    } finally {
      await c.close();
    }
  });
});

describe('the client itself never shows its credentials', () => {
  it('hides the API key and access token from JSON.stringify, util.inspect and string conversion', async () => {
    const client = createClient({
      workflowUrl: 'http://127.0.0.1:9',
      spaceId: SPACE,
      apiKey: 'client-secret-api-key',
      accessToken: 'client-secret-access-token',
    });
    try {
      const shown = [JSON.stringify(client), inspect(client, { depth: 10, showHidden: true }), String(client)];
      for (const text of shown) {
        expect(text).not.toContain('client-secret-api-key');
        expect(text).not.toContain('client-secret-access-token');
      }
      expect(JSON.parse(shown[0])).toMatchObject({ spaceId: SPACE, apiKey: '[redacted]', accessToken: '[redacted]' });
    } finally {
      await client.close();
    }
  });
});

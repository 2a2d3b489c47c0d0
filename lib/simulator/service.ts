import type { IncomingMessage, ServerResponse } from 'node:http';
import { authorize } from './auth';
import { refuseContentType } from './content-type';
import { errorBody } from './error-shapes';
import type { FaultRegistry, MatchedFaults } from './faults';
import type { ApiKeyScope } from './fixture-schema';
import { readBody, send, sendTruncated } from './http-io';
import { canonicalJson, type IdempotencyStore } from './idempotency';
import { getJob, submitJob } from './job-routes';
import { createChannel, deleteEvent, getChannel, stopChannel } from './livecapture-routes';
import { type JsonBody, type OperationContext, parseJsonText } from './operation';
import { fail, type Reply } from './reply';
import type { RawLogEntry, RequestLog } from './request-log';
import { matchRoute, type RouteMatch, type RouteName } from './router';
import type { SimulatorState, SpaceRuntime } from './state';
import { getWorkflow, listWorkflows } from './workflow-routes';

/** What the request pipeline needs from the running simulator. */
export interface ServiceContext {
  readonly state: SimulatorState;
  readonly faults: FaultRegistry;
  readonly log: RequestLog;
  readonly idempotency: IdempotencyStore;
  now(): number;
  /** A real-time wait that close() can cancel. */
  sleep(ms: number): Promise<void>;
}

interface Operation {
  run(c: OperationContext): Reply;
  /** The scope an API key needs (workflow area only). */
  scope?: ApiKeyScope;
  /** Reads a JSON request body, so its Content-Type must say JSON (415 otherwise). */
  body?: true;
  /**
   * Present on POSTs that honour Idempotency-Key: what must match for a replay.
   * It is the raw text; `equivalent` compares two of them canonically (sorted
   * keys), which is only needed when a key comes back with different text.
   */
  fingerprint?(c: { params: string[]; text: string }): string;
  equivalent?(stored: string, incoming: string): boolean;
}

/** Sorted keys for JSON, the parse error otherwise: a retry that reorders fields is the same request. */
const canonicalBody = (text: string): string => {
  const body = parseJsonText(text);
  return body.ok ? canonicalJson(body.value) : `!${body.reason}`;
};

/** `<length>:<workflow id><body>`: the id is a decoded path segment and may hold any character. */
const workflowFingerprint = (workflowId: string, text: string): string => `${workflowId.length}:${workflowId}${text}`;

const sameSubmission = (a: string, b: string): boolean => {
  const canonical = (f: string) => {
    const colon = f.indexOf(':');
    const end = colon + 1 + Number(f.slice(0, colon));
    return `${f.slice(colon + 1, end)} ${canonicalBody(f.slice(end))}`;
  };
  return canonical(a) === canonical(b);
};

const OPERATIONS: Record<RouteName, Operation> = {
  list: { run: listWorkflows, scope: 'workflow:access' },
  workflow: { run: getWorkflow, scope: 'workflow:access' },
  // The workflow is part of the fingerprint: one key reused for another workflow is a different request.
  submit: {
    run: submitJob,
    scope: 'workflow:workflow-management',
    body: true,
    fingerprint: (c) => workflowFingerprint(c.params[1].toLowerCase(), c.text),
    equivalent: sameSubmission,
  },
  job: { run: getJob, scope: 'workflow:access' },
  create_channel: {
    run: createChannel,
    fingerprint: (c) => c.text,
    equivalent: (a, b) => canonicalBody(a) === canonicalBody(b),
    body: true,
  },
  channel: { run: getChannel },
  stop_channel: { run: stopChannel },
  delete_event: { run: deleteEvent },
};

interface Outgoing {
  status: number;
  body: string | undefined;
  headers: Record<string, string>;
}

const NO_FAULTS: MatchedFaults = {};
const NO_HEADERS: Record<string, string> = Object.freeze({});
/** Shared by every request without a query; operations only read their query. */
const NO_QUERY: URLSearchParams = new URLSearchParams();
const MAX_IDEMPOTENCY_KEY = 255;

/**
 * Serves one request of the workflow or live-capture area. The pipeline:
 *   route (404/405) -> body (413) -> faults chosen (and counted)
 *   -> `before` drop/status/truncate -> authorisation -> Content-Type (415)
 *   -> Idempotency-Key
 *   (replay / 409 in flight / 422 different body) -> `before` latency
 *   -> the operation -> `after` latency/status/drop/truncate -> log.
 * The key is reserved before the latency so that a request held by injected
 * latency is "in flight" for a concurrent retry.
 */
export async function serveRequest(
  ctx: ServiceContext,
  req: IncomingMessage,
  res: ServerResponse,
  path: string,
  rawQuery: string,
): Promise<void> {
  const method = req.method ?? 'GET';
  const match = matchRoute(path);
  const rawKey = req.headers['idempotency-key'];
  const entry: RawLogEntry = {
    at: ctx.now(),
    method,
    path,
    rawQuery,
    route: match?.route ?? 'unknown',
    status: null,
    idempotencyKey: typeof rawKey === 'string' ? rawKey : null,
    authorizationPresent: req.headers.authorization !== undefined,
    fault: undefined,
    replayed: false,
  };
  try {
    await pipeline(ctx, req, res, match, path, rawQuery, entry);
  } catch {
    // Never let a request take the server down; answer 500 if the client can still hear it.
    entry.status = 500;
    send(res, 500, JSON.stringify(errorBody(match?.route, 500, 'internal error of the simulator', undefined, path)));
  } finally {
    ctx.log.add(entry);
  }
}

async function pipeline(
  ctx: ServiceContext,
  req: IncomingMessage,
  res: ServerResponse,
  match: RouteMatch | undefined,
  path: string,
  rawQuery: string,
  entry: RawLogEntry,
): Promise<void> {
  const method = entry.method;
  const finish = (out: Outgoing) => {
    entry.status = out.status;
    send(res, out.status, out.body, out.headers);
  };
  if (!match) {
    finish(rendered(undefined, fail(404, `no such route: ${method} ${path}`), path));
    return;
  }
  const route = match.route;
  if (method !== match.method) {
    const out = rendered(route, fail(405, `${method} is not allowed here; use ${match.method}`), path);
    out.headers.allow = match.method;
    finish(out);
    return;
  }

  const read = await readBody(req);
  if (!read.ok) {
    if (read.reason === 'aborted') return;
    const out = rendered(route, fail(413, 'the request body is larger than 5 MB'), path);
    // An undrained body leaves the connection unusable.
    if (!read.drained) out.headers.connection = 'close';
    finish(out);
    return;
  }

  const faults = ctx.faults.size > 0 ? ctx.faults.take(route) : NO_FAULTS;
  const use = (kind: keyof MatchedFaults, phase: 'before' | 'after') => {
    const f = faults[kind];
    if (!f || f.phase !== phase) return undefined;
    entry.fault = entry.fault === undefined ? kind : `${entry.fault},${kind}`;
    return f;
  };

  if (use('drop', 'before')) {
    req.socket.destroy();
    return;
  }
  let out: Outgoing | undefined;
  const early = use('status', 'before') ?? use('truncate', 'before');
  if (early) out = faultResponse(route, early.status, early.retry_after, path);

  let space: SpaceRuntime | undefined;
  if (!out) {
    const auth = authorize(
      ctx.state,
      match.area,
      OPERATIONS[route].scope,
      req.headers.authorization,
      match.params[0],
      ctx.now(),
    );
    if ('status' in auth) out = rendered(route, auth, path);
    else space = auth.space;
  }

  let text: string | undefined;
  const bodyText = () => {
    text ??= read.body && read.body.length > 0 ? read.body.toString('utf8') : '';
    return text;
  };
  let json: JsonBody | undefined;
  const body = () => {
    json ??= parseJsonText(bodyText());
    return json;
  };
  const op = OPERATIONS[route];
  if (!out && space && op.body && read.body && read.body.length > 0) {
    const refused = refuseContentType(req.headers['content-type']);
    if (refused) out = rendered(route, fail(415, refused), path);
  }
  let idempotencyScope: string | undefined;
  if (!out && space && op.fingerprint && entry.idempotencyKey !== null) {
    const key = entry.idempotencyKey;
    if (key.length === 0 || key.length > MAX_IDEMPOTENCY_KEY) {
      out = rendered(
        route,
        fail(422, 'invalid Idempotency-Key', { 'Idempotency-Key': `must be 1 to ${MAX_IDEMPOTENCY_KEY} characters` }),
        path,
      );
    } else {
      const scope = `${space.id} ${route} ${key}`;
      const fingerprint = op.fingerprint({ params: match.params, text: bodyText() });
      const outcome = ctx.idempotency.begin(scope, fingerprint, op.equivalent);
      if (outcome.kind === 'new') idempotencyScope = scope;
      else if (outcome.kind === 'replay') {
        entry.replayed = true;
        const r = outcome.response;
        out = { status: r.status, body: r.body, headers: { ...r.headers, 'idempotent-replayed': 'true' } };
      } else if (outcome.kind === 'in_flight') {
        out = rendered(route, fail(409, 'a request with this Idempotency-Key is still in progress; retry later'), path);
      } else {
        out = rendered(
          route,
          fail(422, 'Idempotency-Key reused with a different request', {
            'Idempotency-Key': 'was already used with a different request; use a new key for a new request',
          }),
          path,
        );
      }
    }
  }

  const latency = use('latency', 'before');
  if (latency) await ctx.sleep(latency.latency_ms);

  if (!out && space) {
    const c: OperationContext = {
      space,
      params: match.params,
      query: rawQuery === '' ? NO_QUERY : new URLSearchParams(rawQuery),
      now: ctx.now(),
      json: body,
    };
    let reply: Reply;
    try {
      reply = op.run(c);
    } catch {
      reply = fail(500, 'internal error of the simulator');
    }
    out = rendered(route, reply, path);
    if (idempotencyScope) {
      // A 5xx is not a result: forget the key so that a retry runs again.
      if (out.status >= 500) ctx.idempotency.release(idempotencyScope);
      else
        ctx.idempotency.complete(idempotencyScope, {
          status: out.status,
          body: out.body,
          // most answers add no header: one shared empty set instead of one per stored key
          headers: Object.keys(out.headers).length > 0 ? { ...out.headers } : NO_HEADERS,
        });
    }
  }
  if (!out) out = rendered(route, fail(500, 'internal error of the simulator'), path);

  const lateLatency = use('latency', 'after');
  if (lateLatency) await ctx.sleep(lateLatency.latency_ms);
  const lateStatus = use('status', 'after');
  if (lateStatus) out = faultResponse(route, lateStatus.status, lateStatus.retry_after, path);

  const truncating = early?.kind === 'truncate' || use('truncate', 'after') !== undefined;
  // Dropped after handling: the operation ran (state changed) but the client gets no answer.
  // A body-less answer (204) has nothing to cut, so truncating it drops it too.
  if (use('drop', 'after') || (truncating && out.body === undefined)) {
    req.socket.destroy();
    return;
  }
  entry.status = out.status;
  if (truncating && out.body !== undefined) sendTruncated(res, out.status, out.body, out.headers);
  else send(res, out.status, out.body, out.headers);
}

function rendered(route: RouteName | undefined, reply: Reply, instance: string): Outgoing {
  if ('error' in reply) {
    const body = errorBody(route, reply.status, reply.error.message, reply.error.fields, instance);
    return { status: reply.status, body: JSON.stringify(body), headers: { ...reply.headers } };
  }
  return { status: reply.status, body: reply.json, headers: { ...reply.headers } };
}

function faultResponse(
  route: RouteName,
  status: number,
  retryAfter: number | string | undefined,
  instance: string,
): Outgoing {
  const out = rendered(route, fail(status, `injected fault: HTTP ${status}`), instance);
  if (retryAfter !== undefined) out.headers['retry-after'] = String(retryAfter);
  return out;
}

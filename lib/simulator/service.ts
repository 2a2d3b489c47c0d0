import type { IncomingMessage, ServerResponse } from 'node:http';
import { authorize } from './auth';
import type { ChannelFailures } from './channel-failures';
import { refuseContentType } from './content-type';
import { errorBody } from './error-shapes';
import type { Fault, FaultRegistry, MatchedFaults } from './faults';
import type { ApiKeyScope } from './fixture-schema';
import {
  BODY_LIMIT_BYTES,
  type BodyBudget,
  type BodyResult,
  BUSY_RETRY_AFTER_SECONDS,
  readBody,
  send,
  sendTruncated,
} from './http-io';
import { canonicalJson, type IdempotencyStore } from './idempotency';
import { getJob, submitJob } from './job-routes';
import { createChannel, deleteEvent, getChannel, stopChannel } from './livecapture-routes';
import { type JsonBody, nestingRefusal, type OperationContext, parseJsonText } from './operation';
import { fail, type Reply } from './reply';
import type { RawLogEntry, RequestLog } from './request-log';
import { matchRoute, type RouteMatch, type RouteName } from './router';
import type { SimulatorState, SpaceRuntime } from './state';
import { getWorkflow, listWorkflows } from './workflow-routes';

/** What the request pipeline needs from the running simulator. */
export interface ServiceContext {
  readonly state: SimulatorState;
  readonly faults: FaultRegistry;
  readonly channelFailures: ChannelFailures;
  readonly log: RequestLog;
  readonly idempotency: IdempotencyStore;
  /** Bytes of request bodies held at once, across requests. */
  readonly bodies: BodyBudget;
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
  // The stop extension honours Idempotency-Key like the other POSTs: a stop sent again after a client's
  // restart is answered from the first one (or 409 while that one is still held). The channel is part of
  // the fingerprint: one key reused for another channel is a different request.
  stop_channel: { run: stopChannel, fingerprint: (c) => `${c.params[1].toLowerCase()} ${c.text}` },
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
 *   route (404/405) -> body (413; 503 past the body budget) -> faults chosen (and counted)
 *   -> `before` drop/status/truncate -> authorisation -> Content-Type (415)
 *   -> nesting depth (400, answered by the operation) -> Idempotency-Key
 *   (replay / 409 in flight / 422 different body) -> `before` latency
 *   -> the operation -> `after` latency/status/drop/truncate -> log.
 * The key is reserved before the latency so that a request held by injected
 * latency is "in flight" for a concurrent retry.
 */
export function serveRequest(
  ctx: ServiceContext,
  req: IncomingMessage,
  res: ServerResponse,
  path: string,
  rawQuery: string,
): void {
  const rawKey = req.headers['idempotency-key'];
  const match = matchRoute(path);
  const entry: RawLogEntry = {
    at: ctx.now(),
    method: req.method ?? 'GET',
    path,
    rawQuery,
    route: match?.route ?? 'unknown',
    status: null,
    idempotencyKey: typeof rawKey === 'string' ? rawKey : null,
    authorizationPresent: req.headers.authorization !== undefined,
    fault: undefined,
    replayed: false,
  };
  new Exchange(ctx, req, res, match, entry).start();
}

/**
 * One request on its way through the pipeline. Each step runs synchronously
 * from the last unless a latency fault holds the request, so a request
 * without faults costs no promise (together with the schema-free submission
 * check, about a tenth of the simulator's CPU per submission under load).
 */
class Exchange {
  private faults: MatchedFaults = NO_FAULTS;
  private early: Fault | undefined;
  private out: Outgoing | undefined;
  private space: SpaceRuntime | undefined;
  private idempotencyScope: string | undefined;
  private body: Buffer | undefined;
  private text: string | undefined;
  private json: JsonBody | undefined;
  private ended = false;

  constructor(
    private readonly ctx: ServiceContext,
    private readonly req: IncomingMessage,
    private readonly res: ServerResponse,
    private readonly match: RouteMatch | undefined,
    private readonly entry: RawLogEntry,
  ) {}

  start(): void {
    this.step(() => {
      const { match, entry } = this;
      if (!match) {
        this.respond(rendered(undefined, fail(404, `no such route: ${entry.method} ${entry.path}`), entry.path));
        return;
      }
      if (entry.method !== match.method) {
        const out = rendered(
          match.route,
          fail(405, `${entry.method} is not allowed here; use ${match.method}`),
          entry.path,
        );
        out.headers.allow = match.method;
        this.respond(out);
        return;
      }
      readBody(this.req, this.res, this.ctx.bodies, BODY_LIMIT_BYTES, (read) =>
        this.step(() => this.afterBody(match, read)),
      );
    });
  }

  /** Faults, authorisation, Content-Type and the Idempotency-Key: everything that may answer before the operation. */
  private afterBody(match: RouteMatch, read: BodyResult): void {
    const { ctx, entry } = this;
    const route = match.route;
    if (!read.ok) {
      if (read.reason === 'aborted') {
        this.end();
        return;
      }
      const out =
        read.reason === 'busy'
          ? busyResponse(route, entry.path)
          : rendered(route, fail(413, 'the request body is larger than 5 MB'), entry.path);
      // An undrained body leaves the connection unusable. The rest of a refused body (5 MB at most)
      // is read and thrown away, so the client hears the 503 instead of a reset mid-upload.
      if (read.reason === 'too_large' && !read.drained) out.headers.connection = 'close';
      this.respond(out);
      return;
    }
    this.body = read.body;
    if (ctx.faults.size > 0) this.faults = ctx.faults.take(route, match.area, ctx.now());
    if (this.use('drop', 'before')) {
      this.drop();
      return;
    }
    this.early = this.use('status', 'before') ?? this.use('truncate', 'before');
    if (this.early) this.out = faultResponse(route, this.early.status, this.early.retry_after, entry.path);

    const op = OPERATIONS[route];
    if (!this.out) {
      const auth = authorize(
        ctx.state,
        match.area,
        op.scope,
        this.req.headers.authorization,
        match.params[0],
        ctx.now(),
      );
      if ('status' in auth) this.out = rendered(route, auth, entry.path);
      else this.space = auth.space;
    }
    if (!this.out && this.space && op.body && this.body && this.body.length > 0) {
      const refused = refuseContentType(this.req.headers['content-type']);
      if (refused) this.out = rendered(route, fail(415, refused), entry.path);
    }
    // Too deep a body is refused before its key is reserved or JSON.parse builds it; the operation
    // answers it as it answers any unreadable body, in its own error shape.
    if (!this.out && this.space && op.body) this.json = nestingRefusal(this.bodyText());
    if (!this.out && this.space && op.fingerprint && entry.idempotencyKey !== null && this.json === undefined) {
      this.out = this.reserveKey(this.space, match, op, entry.idempotencyKey);
    }
    const latency = this.use('latency', 'before');
    if (latency) this.hold(latency.latency_ms, () => this.operate(match, op));
    else this.operate(match, op);
  }

  /** Undefined when the key is new (and now reserved); otherwise the answer to send instead of running. */
  private reserveKey(space: SpaceRuntime, match: RouteMatch, op: Operation, key: string): Outgoing | undefined {
    const { route } = match;
    const path = this.entry.path;
    if (key.length === 0 || key.length > MAX_IDEMPOTENCY_KEY) {
      return rendered(
        route,
        fail(422, 'invalid Idempotency-Key', { 'Idempotency-Key': `must be 1 to ${MAX_IDEMPOTENCY_KEY} characters` }),
        path,
      );
    }
    const scope = `${space.id} ${route} ${key}`;
    const fingerprint = op.fingerprint?.({ params: match.params, text: this.bodyText() }) ?? '';
    const outcome = this.ctx.idempotency.begin(scope, fingerprint, op.equivalent);
    if (outcome.kind === 'new') {
      this.idempotencyScope = scope;
      return undefined;
    }
    if (outcome.kind === 'replay') {
      this.entry.replayed = true;
      const r = outcome.response;
      return { status: r.status, body: r.body, headers: { ...r.headers, 'idempotent-replayed': 'true' } };
    }
    if (outcome.kind === 'in_flight') {
      return rendered(route, fail(409, 'a request with this Idempotency-Key is still in progress; retry later'), path);
    }
    return rendered(
      route,
      fail(422, 'Idempotency-Key reused with a different request', {
        'Idempotency-Key': 'was already used with a different request; use a new key for a new request',
      }),
      path,
    );
  }

  private operate(match: RouteMatch, op: Operation): void {
    const { ctx, entry } = this;
    const route = match.route;
    if (!this.out && this.space) {
      const c: OperationContext = {
        space: this.space,
        params: match.params,
        query: entry.rawQuery === '' ? NO_QUERY : new URLSearchParams(entry.rawQuery),
        now: ctx.now(),
        json: () => {
          this.json ??= parseJsonText(this.bodyText());
          return this.json;
        },
        channelFailures: ctx.channelFailures,
        warmUpMs: ctx.state.warmUpMs,
      };
      let reply: Reply;
      try {
        reply = op.run(c);
      } catch {
        reply = INTERNAL_ERROR;
      }
      const out = rendered(route, reply, entry.path);
      this.out = out;
      const scope = this.idempotencyScope;
      if (scope) {
        // A 5xx is not a result: forget the key so that a retry runs again.
        if (out.status >= 500) ctx.idempotency.release(scope);
        else
          ctx.idempotency.complete(scope, {
            status: out.status,
            body: out.body,
            // most answers add no header: one shared empty set instead of one per stored key
            headers: Object.keys(out.headers).length > 0 ? { ...out.headers } : NO_HEADERS,
          });
      }
    }
    const lateLatency = this.use('latency', 'after');
    if (lateLatency) this.hold(lateLatency.latency_ms, () => this.deliver(route));
    else this.deliver(route);
  }

  /** The `after` faults, then the answer. */
  private deliver(route: RouteName): void {
    const path = this.entry.path;
    let out = this.out ?? rendered(route, INTERNAL_ERROR, path);
    const lateStatus = this.use('status', 'after');
    if (lateStatus) out = faultResponse(route, lateStatus.status, lateStatus.retry_after, path);
    const truncating = this.early?.kind === 'truncate' || this.use('truncate', 'after') !== undefined;
    // Dropped after handling: the operation ran (state changed) but the client gets no answer.
    // A body-less answer (204) has nothing to cut, so truncating it drops it too.
    if (this.use('drop', 'after') || (truncating && out.body === undefined)) {
      this.drop();
      return;
    }
    if (truncating && out.body !== undefined) {
      this.entry.status = out.status;
      sendTruncated(this.res, out.status, out.body, out.headers);
      this.end();
      return;
    }
    this.respond(out);
  }

  private use(kind: keyof MatchedFaults, phase: 'before' | 'after'): Fault | undefined {
    const f = this.faults[kind];
    if (!f || f.phase !== phase) return undefined;
    const entry = this.entry;
    entry.fault = entry.fault === undefined ? kind : `${entry.fault},${kind}`;
    return f;
  }

  private bodyText(): string {
    this.text ??= this.body && this.body.length > 0 ? this.body.toString('utf8') : '';
    return this.text;
  }

  private hold(ms: number, next: () => void): void {
    this.ctx.sleep(ms).then(() => this.step(next));
  }

  private respond(out: Outgoing): void {
    this.entry.status = out.status;
    send(this.res, out.status, out.body, out.headers);
    this.end();
  }

  private drop(): void {
    this.req.socket.destroy();
    this.end();
  }

  /** Logs the request, once, however it ended. */
  private end(): void {
    if (this.ended) return;
    this.ended = true;
    this.ctx.log.add(this.entry);
  }

  /** Never lets a request take the server down: any throw answers 500 if the client can still hear it. */
  private step(run: () => void): void {
    try {
      run();
    } catch {
      if (!this.ended) this.respond(rendered(this.match?.route, INTERNAL_ERROR, this.entry.path));
    }
  }
}

const INTERNAL_ERROR = fail(500, 'internal error of the simulator');

function rendered(route: RouteName | undefined, reply: Reply, instance: string): Outgoing {
  if ('error' in reply) {
    const body = errorBody(route, reply.status, reply.error.message, reply.error.fields, instance);
    return { status: reply.status, body: JSON.stringify(body), headers: { ...reply.headers } };
  }
  return { status: reply.status, body: reply.json, headers: { ...reply.headers } };
}

/** Past the body budget: the request is not read, and may be sent again in a moment. */
function busyResponse(route: RouteName, instance: string): Outgoing {
  const out = rendered(
    route,
    fail(503, 'the simulator is holding too many request bodies at once; send this one again shortly'),
    instance,
  );
  out.headers['retry-after'] = String(BUSY_RETRY_AFTER_SECONDS);
  return out;
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

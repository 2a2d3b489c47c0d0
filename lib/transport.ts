import type { IncomingHttpHeaders } from 'node:http';
import type { Dispatcher } from 'undici';
import { errorFromResponse, MediaSpacesError } from './errors';
import { type RequestEvent, requestEvents } from './request-events';
import {
  type AttemptOutcome,
  decideRetry,
  FIRST_ATTEMPT,
  parseRetryAfter,
  type RetryPolicy,
  retryPlan,
  sleep,
} from './retry';
import { ServiceClock, type ServiceClockReading } from './service-clock';

interface TransportOptions {
  /** Whole-attempt timeout in ms (connect, headers and body). */
  timeoutMs: number;
  connectTimeoutMs: number;
  retry: RetryPolicy;
  /** TLS certificate verification; on unless a user turns it off. */
  rejectUnauthorized: boolean;
  userAgent: string;
  /** Use this dispatcher instead of an own keep-alive Agent (the caller then owns it). */
  dispatcher?: Dispatcher;
}

export interface HttpRequest {
  method: 'GET' | 'POST' | 'DELETE';
  url: string;
  /** Bearer credential; sent in the Authorization header and nowhere else. */
  credential: string | undefined;
  body?: unknown;
  idempotencyKey?: string;
  signal?: AbortSignal;
  /** Retries of this request, instead of the transport's policy (see CallOptions.retries). */
  retries?: number;
  /**
   * Epoch ms: retryable failures are tried again, with backoff capped at retry.ts's DEADLINE_MAX_STEP_MS,
   * for as long as the next attempt would start before it, instead of a number of retries.
   */
  deadline?: number;
  /** Told of each failed attempt that will be tried again, before the wait. */
  onRetry?: (info: RetryNotice) => void;
  /** Names the operation in error messages, e.g. "Submit job". */
  context: string;
}

/** A failed attempt that is about to be tried again. */
export interface RetryNotice {
  /** The attempt that failed, 1 for the first. */
  attempt: number;
  error: MediaSpacesError;
  /** How long the client waits before the next attempt. */
  delayMs: number;
}

export interface ApiResponse<T> {
  status: number;
  data: T;
  /** Attempts made, 1 when the first one succeeded. */
  attempts: number;
  /** True when the service replayed the first response for this Idempotency-Key. */
  replayed: boolean;
  /**
   * DELETE only: an earlier attempt may have been carried out but its answer was lost (timeout,
   * dropped connection, cut-off body, a gateway's 502/503/504), and the retry found nothing to
   * delete (404). The resource is gone, most likely by that earlier attempt, so the call succeeds;
   * `status` is the 404.
   */
  alreadyGone?: true;
}

type Undici = typeof import('undici');
let undici: Undici | undefined;

/**
 * undici, loaded on first use rather than with this module: it is the
 * heaviest dependency (about 150 ms and 18 MB of a cold start), and Node-RED
 * loads every installed node file at startup, used in a flow or not
 * (bench/README.md, "cold load").
 */
function loadUndici(): Undici {
  undici ??= require('undici') as Undici;
  return undici;
}

interface RawResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: unknown;
}

/**
 * HTTP for the client: one keep-alive undici Agent, a timeout and an abort
 * signal on every attempt, and retries that never repeat a POST unless it
 * carries an Idempotency-Key.
 */
export class Transport {
  private readonly dispatcher: Dispatcher;
  private readonly ownsDispatcher: boolean;
  private closed = false;
  /** One controller per running attempt or backoff wait, so that close() can abort them all. */
  private readonly inflight = new Set<{ abort(reason?: unknown): void }>();
  /** The attempts listening to each caller's signal: one listener per signal, not one per attempt. */
  private readonly bySignal = new WeakMap<AbortSignal, Set<Exchange>>();
  /** The service's clock as each origin's answers stamp it (at most two origins: the two areas). */
  private readonly clocks = new Map<string, ServiceClock>();

  constructor(private readonly options: TransportOptions) {
    this.ownsDispatcher = options.dispatcher === undefined;
    this.dispatcher =
      options.dispatcher ??
      new (loadUndici().Agent)({
        keepAliveTimeout: 10_000,
        keepAliveMaxTimeout: 60_000,
        connections: 64,
        pipelining: 1,
        // no timers of undici's own: attempt() times the whole attempt (headers and body included);
        // undici's would be one more timer object per request, held until its next sweep
        headersTimeout: 0,
        bodyTimeout: 0,
        connect: { timeout: options.connectTimeoutMs, rejectUnauthorized: options.rejectUnauthorized },
      });
  }

  async send<T>(req: HttpRequest, parse: (body: unknown) => T): Promise<ApiResponse<T>> {
    const plan = retryPlan(req, this.options.retry, this.options.timeoutMs);
    let state = FIRST_ATTEMPT;
    /** An earlier attempt may have reached the service and been carried out, though its answer was lost. */
    let maybeCarriedOut = false;
    for (let attempts = 1; ; attempts++) {
      if (this.closed)
        throw new MediaSpacesError({ code: 'aborted', message: `${req.context} aborted: client closed` });
      const watched = requestEvents.hasSubscribers;
      const sentAt = watched ? performance.now() : 0;
      let raw: RawResponse | MediaSpacesError;
      const sentWall = Date.now();
      try {
        raw = await this.attempt(req);
      } catch (error) {
        raw = failedAttempt(error);
      }
      if (!(raw instanceof MediaSpacesError)) this.clockOf(req.url).observe(sentWall, Date.now(), raw.headers.date);
      if (watched) publishRequest(req, raw, performance.now() - sentAt, attempts);
      if (!(raw instanceof MediaSpacesError) && raw.status >= 200 && raw.status < 300) {
        const replayed = raw.headers['idempotent-replayed'] === 'true';
        return { status: raw.status, data: this.parseSuccess(raw, parse, req.context), attempts, replayed };
      }
      // a retried DELETE that finds nothing to delete after an answer was lost: the lost attempt deleted it
      if (!(raw instanceof MediaSpacesError) && raw.status === 404 && req.method === 'DELETE' && maybeCarriedOut) {
        const data = this.parseSuccess({ ...raw, body: undefined }, parse, req.context);
        return { status: raw.status, data, attempts, replayed: false, alreadyGone: true };
      }
      const { error, outcome } = raw instanceof MediaSpacesError ? errorOutcome(raw) : responseOutcome(raw, req);
      const decision = decideRetry(plan, state, outcome, Date.now());
      if (!decision.retry) throw error;
      maybeCarriedOut ||= answerMayBeLost(error, outcome);
      if (decision.spendsRetry) req.onRetry?.({ attempt: attempts, error, delayMs: decision.delayMs });
      await this.pause(decision.delayMs, req);
      state = decision.next;
    }
  }

  /** How far the service's clock at `url`'s origin is from this host's, once its answers settle it. */
  serviceClock(url: string): ServiceClockReading | undefined {
    // requests go to URL.origin (lowercase host, no default port, no credentials): so does the lookup
    let origin: string;
    try {
      origin = new URL(url.trim()).origin;
    } catch {
      return undefined;
    }
    return this.clocks.get(origin)?.reading();
  }

  private clockOf(url: string): ServiceClock {
    const { origin } = splitUrl(url);
    let clock = this.clocks.get(origin);
    if (!clock) {
      // requests are built on URL.origin (no credentials), so the published origin carries none
      clock = new ServiceClock(origin);
      this.clocks.set(origin, clock);
    }
    return clock;
  }

  private async pause(ms: number, req: HttpRequest): Promise<void> {
    const local = new AbortController();
    this.inflight.add(local);
    try {
      await sleep(ms, req.signal ? AbortSignal.any([req.signal, local.signal]) : local.signal);
    } catch {
      const closedNow = this.closed && !req.signal?.aborted;
      throw new MediaSpacesError({
        code: 'aborted',
        message: `${req.context} aborted${closedNow ? ': client closed' : ''}`,
      });
    } finally {
      this.inflight.delete(local);
    }
  }

  private parseSuccess<T>(raw: RawResponse, parse: (body: unknown) => T, context: string): T {
    try {
      return parse(raw.body);
    } catch (error) {
      throw new MediaSpacesError({
        status: raw.status,
        code: 'invalid_response',
        message: `${context}: the service answered ${raw.status} with a body that does not match the description (${
          error instanceof Error ? error.message.slice(0, 300) : String(error)
        })`,
        cause: error,
        body: raw.body,
      });
    }
  }

  private async attempt(req: HttpRequest): Promise<RawResponse> {
    // One exchange object per attempt carries every reason to stop it: the caller's signal,
    // the whole-attempt timeout and close(). Two things keep the client's own work per request
    // small (bench/README.md, "per-message overhead"):
    // - no AbortSignal per attempt (on Node 20 each costs microseconds to create and to listen
    //   to; AbortSignal.any() and AbortSignal.timeout() more), only a listener on the caller's;
    // - undici's dispatch() with a handler that collects the (small, JSON) body, instead of
    //   request(), which wraps every response in a Readable stream and parses the URL again.
    const exchange = new Exchange();
    this.inflight.add(exchange);
    const outer = req.signal;
    if (outer) {
      if (outer.aborted) exchange.abort(outer.reason);
      else this.listen(outer, exchange);
    }
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      exchange.abort(new DOMException(`${req.context} timed out`, 'TimeoutError'));
    }, this.options.timeoutMs);
    const headers: Record<string, string> = { accept: 'application/json', 'user-agent': this.options.userAgent };
    if (req.credential) headers.authorization = `Bearer ${req.credential}`;
    if (req.idempotencyKey) headers['idempotency-key'] = req.idempotencyKey;
    let payload: string | undefined;
    if (req.body !== undefined) {
      payload = JSON.stringify(req.body);
      headers['content-type'] = 'application/json';
    }
    try {
      if (!exchange.aborted) {
        const { origin, path } = splitUrl(req.url);
        this.dispatcher.dispatch({ origin, path, method: req.method, headers, body: payload }, exchange);
      }
      const res = await exchange.response;
      return { status: res.status, headers: res.headers, body: parseBody(res.text, res.status, req.context) };
    } catch (error) {
      if (error instanceof MediaSpacesError) throw error;
      throw this.describeFailure(error, req, timedOut);
    } finally {
      clearTimeout(timer);
      if (outer) this.bySignal.get(outer)?.delete(exchange);
      this.inflight.delete(exchange);
    }
  }

  /** `exchange` stops when `signal` aborts; the signal gets one listener for all its attempts. */
  private listen(signal: AbortSignal, exchange: Exchange): void {
    let exchanges = this.bySignal.get(signal);
    if (!exchanges) {
      const set = new Set<Exchange>();
      exchanges = set;
      this.bySignal.set(signal, set);
      signal.addEventListener(
        'abort',
        () => {
          for (const e of set) e.abort(signal.reason);
          set.clear();
        },
        { once: true },
      );
    }
    exchanges.add(exchange);
  }

  private describeFailure(error: unknown, req: HttpRequest, timedOut: boolean): MediaSpacesError {
    if (req.signal?.aborted) {
      return new MediaSpacesError({ code: 'aborted', message: `${req.context} aborted`, cause: error });
    }
    const name = (error as { name?: string; code?: string } | null)?.name;
    const code = (error as { code?: string } | null)?.code;
    if (
      timedOut ||
      name === 'TimeoutError' ||
      code === 'UND_ERR_HEADERS_TIMEOUT' ||
      code === 'UND_ERR_BODY_TIMEOUT' ||
      code === 'UND_ERR_CONNECT_TIMEOUT'
    ) {
      return new MediaSpacesError({
        code: 'timeout',
        message: `${req.context} timed out after ${this.options.timeoutMs} ms`,
        cause: error,
      });
    }
    if (this.closed) {
      return new MediaSpacesError({ code: 'aborted', message: `${req.context} aborted: client closed`, cause: error });
    }
    const reason = error instanceof Error ? error.message : String(error);
    const tls = tlsProblem(code);
    if (tls) {
      // not retried: a certificate the client does not trust stays untrusted a second later
      return new MediaSpacesError({
        code: 'tls_error',
        message:
          tls === 'certificate'
            ? `${req.context} failed: the TLS certificate of ${originOf(req.url)} is not trusted (${code}: ${reason}); ` +
              'use a certificate from a trusted authority (or add its CA with NODE_EXTRA_CA_CERTS), or, for a ' +
              "test server only, turn off the config node's certificate verification"
            : `${req.context} failed: the TLS handshake with ${originOf(req.url)} failed (${code}: ${reason}); ` +
              'check that the URL points to an https service',
        cause: error,
      });
    }
    return new MediaSpacesError({
      code: 'network_error',
      message: `${req.context} failed: cannot reach ${originOf(req.url)} (${code ?? reason})`,
      cause: error,
    });
  }

  /** Aborts in-flight requests and releases the keep-alive sockets. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    for (const controller of this.inflight) controller.abort();
    this.inflight.clear();
    if (this.ownsDispatcher) await this.dispatcher.destroy().catch(() => undefined);
  }
}

/**
 * One request and its response, as an undici dispatch handler: collects the
 * status, headers and whole body, and settles `response` once, on the first
 * of: the body's end, an error, or abort() (which also stops the request,
 * whether it is already on a socket or still queued for one).
 */
class Exchange implements Dispatcher.DispatchHandler {
  readonly response: Promise<{ status: number; headers: IncomingHttpHeaders; text: string }>;
  aborted = false;
  private reason: Error | undefined;
  private controller: Dispatcher.DispatchController | undefined;
  private status = 0;
  private headers: IncomingHttpHeaders = {};
  private chunks: Buffer[] = [];
  private settled = false;
  private resolve!: (r: { status: number; headers: IncomingHttpHeaders; text: string }) => void;
  private reject!: (error: unknown) => void;

  constructor() {
    this.response = new Promise((resolve, reject) => {
      this.resolve = resolve;
      this.reject = reject;
    });
  }

  abort(reason?: unknown): void {
    if (this.aborted) return;
    this.aborted = true;
    this.reason = reason instanceof Error ? reason : new DOMException('This operation was aborted', 'AbortError');
    this.controller?.abort(this.reason);
    this.fail(this.reason);
  }

  onRequestStart(controller: Dispatcher.DispatchController): void {
    this.controller = controller;
    if (this.reason) controller.abort(this.reason);
  }

  onResponseStart(_controller: Dispatcher.DispatchController, statusCode: number, headers: IncomingHttpHeaders): void {
    // 1xx informational responses come before the real one
    if (statusCode < 200) return;
    this.status = statusCode;
    this.headers = headers;
  }

  onResponseData(_controller: Dispatcher.DispatchController, chunk: Buffer): void {
    this.chunks.push(chunk);
  }

  onResponseEnd(): void {
    if (this.settled) return;
    this.settled = true;
    const { chunks } = this;
    const text = chunks.length === 0 ? '' : (chunks.length === 1 ? chunks[0] : Buffer.concat(chunks)).toString('utf8');
    this.resolve({ status: this.status, headers: this.headers, text });
  }

  onResponseError(_controller: Dispatcher.DispatchController, error: Error): void {
    this.fail(error);
  }

  private fail(error: unknown): void {
    if (this.settled) return;
    this.settled = true;
    this.chunks = [];
    this.reject(error);
  }
}

function publishRequest(req: HttpRequest, raw: RawResponse | MediaSpacesError, duration: number, attempt: number) {
  const event: RequestEvent = { operation: req.context, method: req.method, duration, attempt };
  if (raw instanceof MediaSpacesError) {
    event.error = raw.code;
    // a 2xx whose body was not JSON is an answer with a status, and an error
    if (raw.status !== undefined) event.status = raw.status;
  } else event.status = raw.status;
  requestEvents.publish(event);
}

/** What a failed attempt threw, as its outcome: the attempt throws library errors only, anything else is a bug. */
function failedAttempt(error: unknown): MediaSpacesError {
  if (error instanceof MediaSpacesError) return error;
  throw error;
}

function errorOutcome(error: MediaSpacesError): { error: MediaSpacesError; outcome: AttemptOutcome } {
  return { error, outcome: { kind: 'error', code: error.code } };
}

function responseOutcome(raw: RawResponse, req: HttpRequest): { error: MediaSpacesError; outcome: AttemptOutcome } {
  const error = errorFromResponse(raw.status, raw.body, req.context, [req.credential], raw.headers);
  const retryAfterMs = parseRetryAfter(raw.headers['retry-after']);
  const replayed = raw.headers['idempotent-replayed'] === 'true';
  return { error, outcome: { kind: 'response', status: raw.status, retryAfterMs, replayed } };
}

/**
 * Whether the service may have acted on an attempt whose answer the client never got: a timeout
 * or dropped connection after the request left, or a gateway's 502/503/504, which does not say
 * whether the service behind it acted (429 says it did not).
 */
function answerMayBeLost(error: MediaSpacesError, outcome: AttemptOutcome): boolean {
  return outcome.kind === 'error' ? mayHaveReachedService(error) : outcome.status >= 502;
}

/** Failures that happen before a request can have reached the service: nothing was carried out. */
const NOT_SENT_CODES = new Set([
  'ECONNREFUSED',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'UND_ERR_CONNECT_TIMEOUT',
]);

/** Whether a timeout or network error may have come after the service received (and acted on) the request. */
function mayHaveReachedService(error: MediaSpacesError): boolean {
  const code = (error.cause as { code?: unknown } | undefined)?.code;
  return !(typeof code === 'string' && NOT_SENT_CODES.has(code));
}

/**
 * Whether a connection error code is a TLS failure: the server's certificate
 * failed verification (OpenSSL's verify codes, Node's host name check), or
 * the handshake itself failed (e.g. https to a plain http port).
 */
function tlsProblem(code: string | undefined): 'certificate' | 'handshake' | undefined {
  if (typeof code !== 'string') return undefined;
  if (
    /CERT|SELF_SIGNED|UNABLE_TO_(GET|VERIFY|DECRYPT|DECODE)|HOSTNAME_MISMATCH|ALTNAME|INVALID_CA|PATH_LENGTH_EXCEEDED/.test(
      code,
    )
  ) {
    return 'certificate';
  }
  if (/^ERR_SSL_|^ERR_TLS_|^EPROTO$/.test(code)) return 'handshake';
  return undefined;
}

/** `http://host:port/path?query` as undici's dispatch options want it. */
function splitUrl(url: string): { origin: string; path: string } {
  const slash = url.indexOf('/', url.indexOf('://') + 3);
  return slash < 0 ? { origin: url, path: '/' } : { origin: url.slice(0, slash), path: url.slice(slash) };
}

function parseBody(text: string, status: number, context: string): unknown {
  if (text.trim() === '') return undefined;
  try {
    return JSON.parse(text);
  } catch (error) {
    if (status >= 200 && status < 300) {
      throw new MediaSpacesError({
        status,
        code: 'invalid_response',
        message: `${context}: the service answered ${status} with a body that is not JSON`,
        cause: error,
      });
    }
    return text;
  }
}

function originOf(url: string): string {
  try {
    return new URL(url).origin;
  } catch {
    return 'the service';
  }
}

import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { ADMIN_PREFIX, type AdminTarget, serveAdmin } from './admin';
import { ChannelFailureSpec, type ChannelFailureSpecInput, ChannelFailures } from './channel-failures';
import { SimClock } from './clock';
import { FaultRegistry, FaultSpec, type FaultSpecInput } from './faults';
import { loadFixture } from './fixture';
import type { ApiKeyScope, Fixture, FixtureDocument } from './fixture-schema';
import { BODY_BUDGET_BYTES, BodyBudget, send, splitTarget } from './http-io';
import { IdempotencyStore } from './idempotency';
import { OAUTH_PATH, serveOAuth } from './oauth';
import { RequestLog, type RequestLogEntry } from './request-log';
import { type ServiceContext, serveRequest } from './service';
import { SimulatorState } from './state';

export interface SimulatorOptions {
  /** Default 0: any free port. */
  port?: number;
  /** Default 127.0.0.1: the simulator has no real security and belongs on loopback. */
  host?: string;
  /** A YAML file path or an already parsed document; default the demo fixture. */
  fixture?: string | FixtureDocument;
  /** When true, time moves only through advance(); otherwise it follows the wall clock (plus any advance). */
  manualClock?: boolean;
  /** Simulated time at start (ms since the epoch or an ISO date); default now. */
  startTime?: number | string;
  /** ms a client has to send a request's headers before it gets 408 and the connection closes; default 15 s. */
  headersTimeout?: number;
  /** ms a client has to send a whole request (headers and body); default 60 s. */
  requestTimeout?: number;
  /** Bytes of request bodies held at once across requests, past which a request gets 503; default 64 MiB. */
  bodyBufferLimit?: number;
}

const DEFAULT_HEADERS_TIMEOUT_MS = 15_000;
const DEFAULT_REQUEST_TIMEOUT_MS = 60_000;

export interface SpaceInfo {
  space_id: string;
  subscription: 'active' | 'inactive';
  /** One key per scope level (the first of that scope in the fixture), null when the fixture has none. */
  api_keys: { admin: string | null; management: string | null; access: string | null };
  access_token: string | null;
}

/** The object `media-spaces-sim --json` prints as its first line. */
export interface SimulatorInfo {
  workflow_url: string;
  livecapture_url: string;
  admin_url: string;
  /** The OAuth 2.0 implicit flow's authorization endpoint ({base_url}/auth/oauth2). */
  authorization_url: string;
  spaces: SpaceInfo[];
}

export interface Simulator {
  /** {base_url}: append /workflow/v1 or /workflow/api/v1. */
  readonly workflowUrl: string;
  /** {livecapture_base_url}: append /livecapture/v1. */
  readonly liveCaptureUrl: string;
  readonly adminUrl: string;
  info(): SimulatorInfo;
  advance(ms: number): void;
  now(): number;
  reset(): void;
  requests(): RequestLogEntry[];
  counts(): { jobs: number; channels: number; events: number };
  /** In-process twin of POST /__admin/faults; returns the fault id. */
  addFault(spec: FaultSpecInput): string;
  clearFaults(): void;
  /** In-process twin of POST /__admin/channel-failures; returns the failure id, throws when refused. */
  addChannelFailure(spec: ChannelFailureSpecInput): string;
  /** Bytes of request bodies the simulator holds right now (read, or answered, but not yet closed). */
  bufferedBodyBytes(): number;
  close(): Promise<void>;
}

const SCOPE_FIELD: Record<ApiKeyScope, keyof SpaceInfo['api_keys']> = {
  'workflow:admin': 'admin',
  'workflow:workflow-management': 'management',
  'workflow:access': 'access',
};

class RunningSimulator implements Simulator, AdminTarget, ServiceContext {
  readonly state: SimulatorState;
  readonly faults = new FaultRegistry();
  readonly channelFailures = new ChannelFailures();
  readonly log = new RequestLog();
  readonly idempotency = new IdempotencyStore();
  readonly bodies: BodyBudget;
  readonly clock: SimClock;
  readonly manualClock: boolean;
  private readonly server: http.Server;
  private readonly sleepers = new Map<NodeJS.Timeout, () => void>();
  private baseUrl = '';
  private closed = false;

  constructor(fixture: Fixture, opts: SimulatorOptions) {
    this.state = new SimulatorState(fixture);
    this.manualClock = opts.manualClock === true;
    this.clock = new SimClock(this.manualClock, parseStartTime(opts.startTime));
    this.bodies = new BodyBudget(positive(opts.bodyBufferLimit ?? BODY_BUDGET_BYTES, 'bodyBufferLimit'));
    const headersTimeout = positive(opts.headersTimeout ?? DEFAULT_HEADERS_TIMEOUT_MS, 'headersTimeout');
    const requestTimeout = positive(opts.requestTimeout ?? DEFAULT_REQUEST_TIMEOUT_MS, 'requestTimeout');
    if (headersTimeout > requestTimeout) throw new RangeError('headersTimeout must not be longer than requestTimeout');
    // Node's own handling of bad requests stays in place (no 'clientError' listener): 400, 431, or 408
    // for a client too slow with its headers or body, and the socket is destroyed. Ending it
    // instead left a client dripping header bytes connected for good.
    this.server = http.createServer(
      {
        noDelay: true,
        headersTimeout,
        requestTimeout,
        // how often those timeouts are checked (Node's default, 30 s, would let them run half a minute over)
        connectionsCheckingInterval: Math.min(1_000, Math.max(10, Math.floor(headersTimeout / 4))),
      },
      (req, res) => this.dispatch(req, res),
    );
    // Longer than clients' usual idle timeouts (undici: 4 s), so pooled connections are reused, not raced.
    this.server.keepAliveTimeout = 30_000;
  }

  get workflowUrl(): string {
    return this.baseUrl;
  }
  get liveCaptureUrl(): string {
    return this.baseUrl;
  }
  get adminUrl(): string {
    return `${this.baseUrl}${ADMIN_PREFIX}`;
  }

  async listen(port: number, host: string): Promise<void> {
    await new Promise<void>((resolve, reject) => {
      const onError = (err: Error) => reject(err);
      this.server.once('error', onError);
      this.server.listen(port, host, () => {
        this.server.off('error', onError);
        resolve();
      });
    });
    const address = this.server.address() as AddressInfo;
    this.baseUrl = `http://${urlHost(host)}:${address.port}`;
  }

  private dispatch(req: http.IncomingMessage, res: http.ServerResponse): void {
    // the service's clock, as an origin server's Date header gives it (Node's own would be the host's)
    res.setHeader('date', new Date(this.clock.now()).toUTCString());
    const target = splitTarget(req.url);
    if (!target) {
      send(res, 400, JSON.stringify({ error_message: 'malformed request target' }));
      return;
    }
    const { path, rawQuery } = target;
    const internalError = () => send(res, 500, JSON.stringify({ error_message: 'internal error of the simulator' }));
    if (path !== ADMIN_PREFIX && !path.startsWith(`${ADMIN_PREFIX}/`) && path !== OAUTH_PATH) {
      // synchronous, so that the usual request costs no promise; a throw must still not reach node:http
      try {
        serveRequest(this, req, res, path, rawQuery);
      } catch {
        internalError();
      }
      return;
    }
    const work = path === OAUTH_PATH ? serveOAuth(this, req, res, rawQuery) : serveAdmin(this, req, res, path);
    work.catch(internalError);
  }

  info(): SimulatorInfo {
    return {
      workflow_url: this.workflowUrl,
      livecapture_url: this.liveCaptureUrl,
      admin_url: this.adminUrl,
      authorization_url: `${this.baseUrl}${OAUTH_PATH}`,
      spaces: this.state.spaceList.map((space) => {
        const api_keys: SpaceInfo['api_keys'] = { admin: null, management: null, access: null };
        for (const k of space.apiKeys) api_keys[SCOPE_FIELD[k.scope]] ??= k.key;
        return {
          space_id: space.id,
          subscription: space.subscription,
          api_keys,
          access_token: space.accessTokens[0] ?? null,
        };
      }),
    };
  }

  now(): number {
    return this.clock.now();
  }

  advance(ms: number): void {
    this.clock.advance(ms);
  }

  /** Back to the fixture: jobs, channels, events, idempotency keys, faults and the log go; the clock rewinds. */
  reset(): void {
    this.clock.reset();
    this.state.reset();
    this.idempotency.clear();
    this.faults.clear();
    this.channelFailures.reset();
    this.log.clear();
  }

  requests(): RequestLogEntry[] {
    return this.log.entries();
  }

  counts(): { jobs: number; channels: number; events: number } {
    return this.state.counts(this.now());
  }

  addFault(spec: FaultSpecInput): string {
    const parsed = FaultSpec.safeParse(spec);
    if (!parsed.success) throw invalid('fault', parsed.error.issues);
    return this.faults.add(parsed.data, this.now()).id;
  }

  clearFaults(): void {
    this.faults.clear();
  }

  addChannelFailure(spec: ChannelFailureSpecInput): string {
    const parsed = ChannelFailureSpec.safeParse(spec);
    if (!parsed.success) throw invalid('channel failure', parsed.error.issues);
    const armed = this.channelFailures.arm(parsed.data, this.state, this.now());
    if (!armed.ok) throw new Error(armed.message);
    return armed.id;
  }

  bufferedBodyBytes(): number {
    return this.bodies.bytes;
  }

  sleep(ms: number): Promise<void> {
    if (this.closed) return new Promise(() => {});
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.sleepers.delete(timer);
        resolve();
      }, ms);
      this.sleepers.set(timer, resolve);
    });
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    // Requests held by injected latency are abandoned: their sockets are destroyed below.
    for (const timer of this.sleepers.keys()) clearTimeout(timer);
    this.sleepers.clear();
    const done = new Promise<void>((resolve) => this.server.close(() => resolve()));
    this.server.closeAllConnections();
    await done;
  }
}

function invalid(what: string, issues: ReadonlyArray<{ path: PropertyKey[]; message: string }>): TypeError {
  return new TypeError(
    `invalid ${what}: ${issues.map((i) => `${i.path.map(String).join('.')}: ${i.message}`).join('; ')}`,
  );
}

function positive(value: number, name: string): number {
  if (!Number.isFinite(value) || value <= 0) throw new RangeError(`${name} must be a positive number, got ${value}`);
  return value;
}

function parseStartTime(value: number | string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const ms = typeof value === 'number' ? value : Date.parse(value);
  if (!Number.isFinite(ms)) throw new RangeError(`startTime is not a valid time: ${String(value)}`);
  return ms;
}

/** The host clients should use: a wildcard bind is reached through loopback; IPv6 needs brackets. */
function urlHost(host: string): string {
  if (host === '0.0.0.0' || host === '') return '127.0.0.1';
  if (host === '::') return '[::1]';
  return host.includes(':') ? `[${host}]` : host;
}

export async function startSimulator(opts: SimulatorOptions = {}): Promise<Simulator> {
  const fixture = loadFixture(opts.fixture);
  const sim = new RunningSimulator(fixture, opts);
  await sim.listen(opts.port ?? 0, opts.host ?? '127.0.0.1');
  return sim;
}

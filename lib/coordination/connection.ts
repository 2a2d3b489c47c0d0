import { createHash } from 'node:crypto';
import { EventEmitter } from 'node:events';
import { CoordinationError, type CoordinationErrorCode, describeRedisError } from './errors';
import { reportCoordinationFailure } from './failure-events';
import { parseRedisUrl, type RedisEndpoint } from './url';

export type ConnectionState = 'connecting' | 'connected' | 'error' | 'closed';

export interface ConnectionStatus {
  state: ConnectionState;
  /** Why the last attempt failed, naming the server; set in state `error`. */
  error?: string;
  errorCode?: CoordinationErrorCode;
}

export interface RedisConnectionOptions {
  /** `redis://host:port` or `rediss://host:port` (TLS). */
  url: string;
  username?: string;
  password?: string;
  /** Time allowed to open the socket, and for a command to wait for the first connection (default 2000). */
  connectTimeoutMs?: number;
  /** Time allowed for each command's answer (default 2000). */
  commandTimeoutMs?: number;
  /** Ceiling of the reconnect backoff (default 5000). */
  maxReconnectDelayMs?: number;
  /** Shown by CLIENT LIST on the Redis side. */
  clientName?: string;
}

export interface LuaScript {
  name: string;
  source: string;
  sha1: string;
}

export function luaScript(name: string, source: string): LuaScript {
  return { name, source, sha1: createHash('sha1').update(source).digest('hex') };
}

/** The part of a node-redis client this connection uses. */
interface RawClient {
  on(event: 'error', listener: (err: Error) => void): unknown;
  on(event: 'ready' | 'end', listener: () => void): unknown;
  connect(): Promise<unknown>;
  sendCommand(args: string[], options?: { timeout?: number }): Promise<unknown>;
  destroy(): void;
  readonly isReady: boolean;
}

const DEFAULT_CONNECT_TIMEOUT_MS = 2000;
const DEFAULT_COMMAND_TIMEOUT_MS = 2000;
const DEFAULT_MAX_RECONNECT_DELAY_MS = 5000;

/**
 * One connection to Redis that never throws out of its own machinery: every
 * failure becomes a status (for node status badges and the log) and a
 * CoordinationError on the command that hit it. Commands fail fast while
 * disconnected, instead of queueing until Redis returns, so a schedule can
 * decide at once to skip or act alone. Reconnects with capped backoff until
 * closed. node-redis is loaded on the first connect, so a flow that uses no
 * coordination never loads it.
 */
export class RedisConnection {
  readonly endpoint: RedisEndpoint;
  readonly #options: RedisConnectionOptions;
  readonly #connectTimeoutMs: number;
  readonly #commandTimeoutMs: number;
  readonly #maxDelayMs: number;
  readonly #events = new EventEmitter();
  #status: ConnectionStatus = { state: 'connecting' };
  #client: RawClient | undefined;
  #starting: Promise<void> | undefined;
  #closed = false;

  /** Throws CoordinationError `invalid_config` for a malformed url; nothing else throws. */
  constructor(options: RedisConnectionOptions) {
    this.endpoint = parseRedisUrl(options.url);
    this.#options = options;
    this.#connectTimeoutMs = positive(options.connectTimeoutMs, DEFAULT_CONNECT_TIMEOUT_MS);
    this.#commandTimeoutMs = positive(options.commandTimeoutMs, DEFAULT_COMMAND_TIMEOUT_MS);
    this.#maxDelayMs = positive(options.maxReconnectDelayMs, DEFAULT_MAX_RECONNECT_DELAY_MS);
    // every command racing for the first connection waits on this emitter; they are bounded by the callers
    this.#events.setMaxListeners(0);
  }

  get status(): ConnectionStatus {
    return { ...this.#status };
  }

  /** Called on every change of state or error text (not on every retry); returns an unsubscribe function. */
  onStatus(listener: (status: ConnectionStatus) => void): () => void {
    this.#events.on('status', listener);
    return () => this.#events.off('status', listener);
  }

  /** Starts connecting in the background (idempotent). Commands call it too. */
  connect(): void {
    if (this.#closed || this.#starting) return;
    this.#starting = this.#start();
  }

  /** Resolves when connected; rejects with the reason after `timeoutMs` or on close. */
  async whenReady(timeoutMs = this.#connectTimeoutMs): Promise<void> {
    this.connect();
    if (this.#status.state === 'connected') return;
    await this.#waitFor((s) => s.state === 'connected' || s.state === 'closed', timeoutMs);
    if (this.status.state !== 'connected') throw this.#unavailableError();
  }

  /** Sends one command; fails fast with a CoordinationError when Redis cannot be used right now. */
  send(args: string[]): Promise<unknown> {
    return this.#counted(this.#send(args), args[0] ?? '');
  }

  /** EVALSHA, falling back to EVAL once when Redis lost its script cache (restart, SCRIPT FLUSH). */
  evalScript(script: LuaScript, keys: string[], args: string[]): Promise<unknown> {
    return this.#counted(this.#evalScript(script, keys, args), 'EVALSHA');
  }

  /** A failed command is published for the metrics (lib/coordination/failure-events). */
  #counted(pending: Promise<unknown>, command: string): Promise<unknown> {
    return pending.catch((error: unknown) => {
      if (error instanceof CoordinationError) reportCoordinationFailure(error, command);
      throw error;
    });
  }

  async #send(args: string[]): Promise<unknown> {
    const client = await this.#readyClient();
    try {
      return await this.#answered(client.sendCommand(args, { timeout: this.#commandTimeoutMs }));
    } catch (err) {
      throw this.#describe(err);
    }
  }

  async #evalScript(script: LuaScript, keys: string[], args: string[]): Promise<unknown> {
    const client = await this.#readyClient();
    const tail = [String(keys.length), ...keys, ...args];
    try {
      return await this.#answered(
        client.sendCommand(['EVALSHA', script.sha1, ...tail], { timeout: this.#commandTimeoutMs }),
      );
    } catch (err) {
      if (!(err instanceof Error) || !/^NOSCRIPT/.test(err.message)) throw this.#describe(err);
    }
    try {
      return await this.#answered(
        client.sendCommand(['EVAL', script.source, ...tail], { timeout: this.#commandTimeoutMs }),
      );
    } catch (err) {
      throw this.#describe(err);
    }
  }

  /** Drops the connection at once; pending commands fail with `closed`. Safe to call twice. */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    await this.#starting?.catch(() => undefined);
    const client = this.#client;
    this.#client = undefined;
    try {
      client?.destroy();
    } catch {
      // already closed by node-redis itself: nothing left to release
    }
    this.#setStatus({ state: 'closed' });
    this.#events.removeAllListeners();
  }

  async #start(): Promise<void> {
    let redis: typeof import('@redis/client');
    try {
      redis = await import('@redis/client');
    } catch (err) {
      this.#setStatus({
        state: 'error',
        error: `the Redis client could not be loaded: ${String(err)}`,
        errorCode: 'unavailable',
      });
      return;
    }
    if (this.#closed) return;
    const { tls, host, port, database } = this.endpoint;
    const client: RawClient = redis.createClient({
      socket: tls
        ? { host, port, tls: true, connectTimeout: this.#connectTimeoutMs, reconnectStrategy: (n) => this.#backoff(n) }
        : { host, port, connectTimeout: this.#connectTimeoutMs, reconnectStrategy: (n) => this.#backoff(n) },
      username: this.#options.username || undefined,
      password: this.#options.password || undefined,
      database,
      name: this.#options.clientName,
      disableOfflineQueue: true,
    });
    this.#client = client;
    // without an 'error' listener an EventEmitter throws, which would crash the host process
    client.on('error', (err) => {
      if (this.#closed) return;
      const described = this.#describe(err);
      this.#setStatus({ state: 'error', error: described.message, errorCode: described.code });
    });
    client.on('ready', () => {
      if (!this.#closed) this.#setStatus({ state: 'connected' });
    });
    // connect() settles only once connected; it rejects only if closed meanwhile, already reported
    client.connect().catch(() => undefined);
  }

  /**
   * node-redis times a command out only while it waits to be written; once
   * sent, a hung server would keep it forever. A late answer is dropped: a
   * claim it won runs out with its lease and another instance takes over.
   */
  #answered<T>(pending: Promise<T>): Promise<T> {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () => reject(new CoordinationError('timeout', `Redis at ${this.endpoint.display} did not answer in time`)),
        this.#commandTimeoutMs,
      );
    });
    pending.catch(() => undefined);
    return Promise.race([pending, timeout]).finally(() => clearTimeout(timer));
  }

  #backoff(retries: number): number {
    const base = Math.min(100 * 2 ** Math.min(retries, 16), this.#maxDelayMs);
    return Math.round(base / 2 + Math.random() * (base / 2));
  }

  async #readyClient(): Promise<RawClient> {
    if (this.#closed) throw new CoordinationError('closed', `the connection to ${this.endpoint.display} is closed`);
    this.connect();
    // only the very first connection is waited for (e.g. a slot firing right after deploy); once a
    // connection failed, commands fail fast so that the caller applies its policy without delay
    if (this.#status.state === 'connecting') {
      await this.#waitFor((s) => s.state !== 'connecting', this.#connectTimeoutMs);
    }
    const client = this.#client;
    if (this.status.state !== 'connected' || !client?.isReady) throw this.#unavailableError();
    return client;
  }

  #unavailableError(): CoordinationError {
    const { state, error, errorCode } = this.#status;
    if (state === 'closed')
      return new CoordinationError('closed', `the connection to ${this.endpoint.display} is closed`);
    if (error) return new CoordinationError(errorCode ?? 'unavailable', error);
    return new CoordinationError(
      'unavailable',
      `Redis at ${this.endpoint.display} is not connected yet (no answer within ${this.#connectTimeoutMs} ms)`,
    );
  }

  #describe(err: unknown): CoordinationError {
    if (this.#closed)
      return new CoordinationError('closed', `the connection to ${this.endpoint.display} is closed`, err);
    return describeRedisError(err, this.endpoint.display, this.#connectTimeoutMs);
  }

  #setStatus(next: ConnectionStatus): void {
    const now = this.#status;
    if (now.state === next.state && now.error === next.error) return;
    this.#status = next;
    this.#events.emit('status', { ...next });
  }

  #waitFor(done: (s: ConnectionStatus) => boolean, timeoutMs: number): Promise<void> {
    if (done(this.#status)) return Promise.resolve();
    return new Promise((resolve) => {
      const finish = () => {
        clearTimeout(timer);
        this.#events.off('status', check);
        resolve();
      };
      const check = (s: ConnectionStatus) => {
        if (done(s)) finish();
      };
      const timer = setTimeout(finish, timeoutMs);
      this.#events.on('status', check);
    });
  }
}

function positive(value: number | undefined, fallback: number): number {
  return typeof value === 'number' && Number.isFinite(value) && value > 0 ? value : fallback;
}

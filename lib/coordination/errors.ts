import { MediaSpacesBaseError } from '../base-error';

/**
 * Every failure of the coordination library is a CoordinationError with a
 * short code, so a schedule can tell "Redis is unreachable: apply the
 * skip/alone policy" from "the settings are wrong: fix the config node".
 */
export type CoordinationErrorCode =
  | 'invalid_config' // the url, prefix or a duration is unusable; retrying will not help
  | 'invalid_input' // a schedule id, slot, phase or job id the caller passed is unusable
  | 'unavailable' // not connected to Redis (refused, unreachable, reconnecting)
  | 'auth' // Redis rejected the username or password, or wants one
  | 'timeout' // a command got no answer in time
  | 'closed' // the coordinator was closed (node close, redeploy)
  | 'redis'; // Redis answered with an error (e.g. a script error, out of memory)

export class CoordinationError extends MediaSpacesBaseError<CoordinationErrorCode> {
  constructor(code: CoordinationErrorCode, message: string, cause?: unknown) {
    super('CoordinationError', code, message, cause);
  }

  /** True where Redis cannot be used right now, so the caller's unreachable-policy applies. */
  get unreachable(): boolean {
    return this.code === 'unavailable' || this.code === 'auth' || this.code === 'timeout';
  }
}

/** Redis out of use for now (a timeout, a reconnect): worth another try, unlike refused credentials. */
export function isTransientCoordinationError(err: unknown): boolean {
  return err instanceof CoordinationError && (err.code === 'timeout' || err.code === 'unavailable');
}

function errorCode(err: unknown): string | undefined {
  if (typeof err !== 'object' || err === null) return undefined;
  const code = (err as { code?: unknown }).code;
  return typeof code === 'string' ? code : undefined;
}

function errorName(err: unknown): string {
  return err instanceof Error ? err.constructor.name || err.name : '';
}

function errorText(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

/**
 * Turns what node-redis or the socket reports into one sentence naming the
 * problem and the server. `where` is the url without credentials.
 */
export function describeRedisError(err: unknown, where: string, connectTimeoutMs: number): CoordinationError {
  if (err instanceof CoordinationError) return err;
  const code = errorCode(err);
  const text = errorText(err);
  const name = errorName(err);
  if (/^WRONGPASS/.test(text)) return new CoordinationError('auth', `Redis rejected the username or password`, err);
  // Redis refuses long commands from clients that have not authenticated, before it says NOAUTH
  if (/^NOAUTH|unauthenticated/.test(text)) {
    return new CoordinationError('auth', `Redis at ${where} requires a password: enter it in the credentials`, err);
  }
  if (/^NOPERM/.test(text)) {
    return new CoordinationError('auth', `Redis user lacks a permission the coordination needs: ${text}`, err);
  }
  if (code === 'ECONNREFUSED')
    return new CoordinationError('unavailable', `Redis at ${where} refused the connection`, err);
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN') {
    return new CoordinationError('unavailable', `Redis at ${where}: host not found (DNS)`, err);
  }
  if (code === 'EHOSTUNREACH' || code === 'ENETUNREACH') {
    return new CoordinationError('unavailable', `Redis at ${where} is unreachable (${code})`, err);
  }
  if (code === 'ECONNRESET' || code === 'EPIPE' || name === 'SocketClosedUnexpectedlyError') {
    return new CoordinationError('unavailable', `Redis at ${where} closed the connection`, err);
  }
  if (name === 'ConnectionTimeoutError') {
    return new CoordinationError(
      'unavailable',
      `Redis at ${where} did not accept a connection within ${connectTimeoutMs} ms`,
      err,
    );
  }
  if (name === 'ClientOfflineError')
    return new CoordinationError('unavailable', `Redis at ${where} is not connected`, err);
  if (name === 'ClientClosedError') return new CoordinationError('closed', `the connection to ${where} is closed`, err);
  if (name === 'TimeoutError') return new CoordinationError('timeout', `Redis at ${where} did not answer in time`, err);
  if (code?.startsWith('ERR_SSL') || code?.includes('CERT') || /SSL|TLS|certificate/i.test(text)) {
    return new CoordinationError('unavailable', `TLS handshake with ${where} failed: ${code ?? text}`, err);
  }
  if (name === 'ErrorReply' || name === 'SimpleError') {
    return new CoordinationError('redis', `Redis at ${where} answered: ${text}`, err);
  }
  return new CoordinationError('unavailable', `Redis at ${where}: ${text}`, err);
}

import { MediaSpacesBaseError } from './base-error';
import { schemas } from './schemas-lazy';

/**
 * Short codes carried by every MediaSpacesError. HTTP statuses map to the
 * meanings the description gives them; the rest are client-side failures.
 */
export const ERROR_CODES = [
  'invalid_request', // 400
  'unauthorized', // 401
  'token_expired', // 401 for an OAuth access token past its expiry, or one the client knows has expired
  'subscription_inactive', // 403
  'not_found', // 404
  'conflict', // 409
  'invalid_options', // 422
  'rate_limited', // 429
  'server_error', // 5xx
  'http_error', // any other non-2xx
  'invalid_input', // rejected before sending
  'invalid_response', // 2xx whose body is not what the description says
  'timeout',
  'aborted',
  'network_error',
  'tls_error', // the server's certificate failed verification, or the TLS handshake failed
  'missed', // a schedule's window that recorded nothing (its start never succeeded, or it was paused or skipped)
  'interrupted', // a schedule's recording that stopped before its window's end (a replacement is being created)
  'internal', // an unexpected failure: a bug or a runtime's quirk, neither the service's nor the input's
] as const;

export type ErrorCode = (typeof ERROR_CODES)[number];

const KNOWN_CODES = new Set<string>(ERROR_CODES);

export function isErrorCode(value: unknown): value is ErrorCode {
  return typeof value === 'string' && KNOWN_CODES.has(value);
}

export interface MediaSpacesErrorInit {
  status?: number;
  code: ErrorCode;
  message: string;
  fieldErrors?: Record<string, string>;
  traceId?: string;
  body?: unknown;
  cause?: unknown;
}

/** The error of every call to the service, and of input checked before sending. */
export class MediaSpacesError extends MediaSpacesBaseError<ErrorCode> {
  readonly status: number | undefined;
  readonly fieldErrors: Record<string, string>;
  readonly traceId: string | undefined;
  /** The parsed error body, kept for diagnostics; never contains request headers. */
  readonly body: unknown;

  constructor(init: MediaSpacesErrorInit) {
    super('MediaSpacesError', init.code, init.message, init.cause);
    this.status = init.status;
    // an own copy: field names come from user input, and a builder may use a prototype-free map
    this.fieldErrors = { ...init.fieldErrors };
    this.traceId = init.traceId;
    this.body = init.body;
  }

  /** Plain data for `msg.error` and logs: no stack, no cause, no secrets. */
  override toJSON(): {
    name: string;
    status?: number;
    code: ErrorCode;
    message: string;
    fieldErrors: Record<string, string>;
    traceId?: string;
  } {
    return {
      name: this.name,
      ...(this.status === undefined ? {} : { status: this.status }),
      code: this.code,
      message: this.message,
      fieldErrors: { ...this.fieldErrors },
      ...(this.traceId === undefined ? {} : { traceId: this.traceId }),
    };
  }

  static invalidInput(message: string, fieldErrors: Record<string, string> = {}): MediaSpacesError {
    return new MediaSpacesError({ code: 'invalid_input', message, fieldErrors });
  }
}

/**
 * Field errors as message text, `field: problem; ...`, naming the first `max` and counting the
 * rest: a list of thousands of bad entries gives one readable line; fieldErrors keeps them all.
 */
export function listFieldErrors(fieldErrors: Record<string, string>, max = 5): string {
  const entries = Object.entries(fieldErrors);
  const shown = entries
    .slice(0, max)
    .map(([k, v]) => `${k}: ${v}`)
    .join('; ');
  return entries.length > max ? `${shown}; and ${entries.length - max} more` : shown;
}

export { isLibraryError, MediaSpacesBaseError } from './base-error';
export { quoteShort } from './quote';

export function isMediaSpacesError(value: unknown): value is MediaSpacesError {
  return value instanceof MediaSpacesError;
}

export function codeForStatus(status: number): ErrorCode {
  if (status === 400) return 'invalid_request';
  if (status === 401) return 'unauthorized';
  if (status === 403) return 'subscription_inactive';
  if (status === 404) return 'not_found';
  if (status === 409) return 'conflict';
  if (status === 422) return 'invalid_options';
  if (status === 429) return 'rate_limited';
  if (status >= 500) return 'server_error';
  return 'http_error';
}

const STATUS_TEXT: Record<number, string> = {
  400: 'invalid request',
  401: 'not authorised: wrong key or token, or the key lacks the required scope',
  403: "the organisation's subscription is inactive",
  404: 'not found',
  409: 'conflict',
  422: 'invalid options',
  429: 'too many requests',
  500: 'internal error of the service',
  502: 'bad gateway',
  503: 'service unavailable',
  504: 'gateway timeout',
};

/**
 * Builds the error for a non-2xx response from any of the four error shapes
 * of the description: `{code,message}`, `{error_message}`,
 * `{errors:{field:msg}}` and problem details.
 */
export function errorFromResponse(
  status: number,
  body: unknown,
  context: string,
  secrets: readonly (string | undefined)[] = [],
  headers: Record<string, string | string[] | undefined> = {},
): MediaSpacesError {
  // a service may quote the credential it was sent ("unknown API key abc..."); it never leaves in an error
  body = redactSecrets(body, secrets);
  const code = codeForStatus(status);
  const statusText = STATUS_TEXT[status];
  let detail: string | undefined;
  let fieldErrors: Record<string, string> = {};
  let traceId: string | undefined;

  const isProblem =
    body !== null &&
    typeof body === 'object' &&
    !Array.isArray(body) &&
    ('title' in body || 'detail' in body || 'trace_id' in body || 'instance' in body);
  if (isProblem) {
    // each member on its own: a null `instance` (or any other odd member) must not cost the detail or trace id
    const p = body as Record<string, unknown>;
    const text = (v: unknown) => (typeof v === 'string' && v !== '' ? v : undefined);
    detail = text(p.detail) ?? text(p.title);
    traceId = text(p.trace_id);
    for (const raw of Array.isArray(p.errors) ? p.errors : []) {
      if (raw === null || typeof raw !== 'object') continue;
      const item = raw as Record<string, unknown>;
      const key = text(item.pointer) ?? text(item.type) ?? '(request)';
      fieldErrors[key] = text(item.detail) ?? text(item.type) ?? 'invalid';
    }
  } else {
    const { ErrorMessageShape, ErrorResponseShape, ValidationShape } = schemas();
    const shape1 = ErrorResponseShape.safeParse(body);
    const shape2 = ErrorMessageShape.safeParse(body);
    const shape3 = ValidationShape.safeParse(body);
    if (shape1.success) detail = shape1.data.message;
    if (shape2.success) detail = shape2.data.error_message;
    if (shape3.success) {
      fieldErrors = { ...shape3.data.errors };
    }
    if (typeof body === 'string' && body.trim() !== '') detail = body.trim().slice(0, 200);
  }

  if (status === 401 && saysTokenExpired(headers['www-authenticate'], detail)) {
    return new MediaSpacesError({
      status,
      code: 'token_expired',
      message: `the access token has expired; sign in again to get a new one (HTTP 401 from ${context})`,
      fieldErrors,
      traceId,
      body,
    });
  }
  // reason first, where a collapsed Debug entry or a narrow column still shows it; the service's own
  // reason says more than the status's meaning, which stands in when it gives none
  const reason = serviceReason(detail, fieldErrors) ?? statusText;
  const message = reason ? `${reason} (${statusFrom(reason, status)}${context})` : `${context} failed: HTTP ${status}`;
  return new MediaSpacesError({ status, code, message, fieldErrors, traceId, body });
}

/**
 * "HTTP 503 from ", or only "from " when the reason already says "HTTP 503" (a reason such as
 * "injected fault: HTTP 503" read "injected fault: HTTP 503 (HTTP 503 from Create channel)").
 */
function statusFrom(reason: string, status: number): string {
  const said = [...reason.matchAll(/\bHTTP (\d{3})\b/g)].some((m) => Number(m[1]) === status);
  return said ? 'from ' : `HTTP ${status} from `;
}

/**
 * The service's reason and the fields at fault it does not name already:
 * "Invalid channel; fields at fault: name: too long".
 */
function serviceReason(detail: string | undefined, fieldErrors: Record<string, string>): string | undefined {
  const unnamed = Object.fromEntries(Object.entries(fieldErrors).filter(([f]) => !detail?.includes(f)));
  const listed = Object.keys(unnamed).length > 0 ? listFieldErrors(unnamed) : '';
  if (!detail) return listed ? plainFieldErrors(fieldErrors) : undefined;
  return listed ? `${detail}; fields at fault: ${listed}` : detail;
}

/**
 * A validation body's errors as the reason: a message that already names its field
 * ("workflow_id": "workflow \"HDCAM ingest\" is archived; jobs can be ...") is quoted alone, up to
 * its first clause, so the sentence fits where Node-RED cuts strings (80 characters in the Debug
 * sidebar); the whole text stays in fieldErrors.
 */
function plainFieldErrors(fieldErrors: Record<string, string>): string {
  const entries = Object.entries(fieldErrors);
  if (entries.length === 1) {
    const [field, problem] = entries[0] as [string, string];
    const subject = field.split(/[_./\s]/)[0]?.toLowerCase() ?? '';
    if (subject.length > 2 && problem.toLowerCase().startsWith(subject)) return problem.split('; ')[0] ?? problem;
  }
  return listFieldErrors(fieldErrors);
}

/**
 * RFC 6750 section 3.1: an expired token is answered with `WWW-Authenticate: Bearer
 * error="invalid_token"` and a description; services that send only a body say so in words.
 */
function saysTokenExpired(challenge: string | string[] | undefined, detail: string | undefined): boolean {
  const header = Array.isArray(challenge) ? challenge.join(', ') : (challenge ?? '');
  if (/error\s*=\s*"?invalid_token"?/i.test(header) && /expired/i.test(header)) return true;
  return detail !== undefined && /\btoken\b[^.;]*\bexpired\b/i.test(detail);
}

/** The error for a token the client already knows has expired: nothing is sent. */
export function tokenExpiredError(context: string, expiresAt: number): MediaSpacesError {
  return new MediaSpacesError({
    code: 'token_expired',
    message: `${context} not sent: the workflow access token expired at ${new Date(expiresAt).toISOString()}; sign in again to get a new one`,
  });
}

export const REDACTED = '[redacted]';

/**
 * `value` with every occurrence of each secret (in strings, object keys and
 * values, at any depth) replaced by "[redacted]". Secrets shorter than 4
 * characters are left alone: replacing them would mangle ordinary text and
 * protect nothing.
 */
export function redactSecrets<T>(value: T, secrets: readonly (string | undefined)[]): T {
  const list = secrets.filter((s): s is string => typeof s === 'string' && s.length >= 4);
  if (list.length === 0) return value;
  const text = (s: string) => list.reduce((out, secret) => out.split(secret).join(REDACTED), s);
  const walk = (v: unknown, depth: number): unknown => {
    if (typeof v === 'string') return text(v);
    if (v === null || typeof v !== 'object' || depth > 20) return v;
    if (Array.isArray(v)) return v.map((item) => walk(item, depth + 1));
    const out: Record<string, unknown> = {};
    for (const [k, item] of Object.entries(v)) out[text(k)] = walk(item, depth + 1);
    return out;
  };
  return walk(value, 0) as T;
}

import { isLibraryError, type MediaSpacesBaseError } from '../../lib/base-error';
import { CoordinationError, type CoordinationErrorCode } from '../../lib/coordination/errors';
import { type ErrorCode, isErrorCode, MediaSpacesError } from '../../lib/errors';
import type { WatchErrorCode } from '../../lib/watch/errors';
import type { Node, NodeMessage } from './node-red-types';

/**
 * What `msg.error` holds after a failure: `MediaSpacesError.toJSON()`, or a
 * polling node's outcome (a failed job, a deleted workflow) with its details.
 */
export type ErrorDetails = Omit<ReturnType<MediaSpacesError['toJSON']>, 'code'> & {
  code: ErrorCode | WatchErrorCode;
  [detail: string]: unknown;
};

/**
 * What a Redis coordination failure is to a Catch node: a Redis out of reach is the network's
 * failure, a refused login the credentials', a closed coordinator a redeploy's abort, an error
 * Redis answered the server's; only unusable settings or ids are bad input.
 */
const COORDINATION_CODES: Record<CoordinationErrorCode, ErrorCode> = {
  invalid_config: 'invalid_input',
  invalid_input: 'invalid_input',
  unavailable: 'network_error',
  auth: 'unauthorized',
  timeout: 'timeout',
  closed: 'aborted',
  redis: 'server_error',
};

/** The code of another library family's error: its own mapping, else the same name, else refused input. */
function libraryCode(error: MediaSpacesBaseError): ErrorCode {
  if (error instanceof CoordinationError) return COORDINATION_CODES[error.code] ?? 'internal';
  // the others (a cron, a duration, a schedule's YAML, a fixture) are input the library refused
  return isErrorCode(error.code) ? error.code : 'invalid_input';
}

/**
 * Any thrown value as a MediaSpacesError. Another family of the library keeps its sentence, and
 * gets the code that says what failed (libraryCode). Anything that is not a library error is a
 * surprise (a bug, a runtime quirk, an odd value that slipped through): `internal`, with a clear
 * message instead of escaping.
 */
export function asMediaSpacesError(error: unknown, context: string): MediaSpacesError {
  if (error instanceof MediaSpacesError) return error.code === 'token_expired' ? signInExpired(error, context) : error;
  if (error instanceof Error && error.name === 'AbortError') {
    return new MediaSpacesError({ code: 'aborted', message: `${context} aborted` });
  }
  if (isLibraryError(error)) {
    return new MediaSpacesError({ code: libraryCode(error), message: `${context} failed: ${error.message}` });
  }
  const reason = error instanceof Error ? error.message : safeString(error);
  return new MediaSpacesError({ code: 'internal', message: `${context} failed: ${reason}` });
}

/**
 * An expired sign-in told as what the operator does about it: the library knows the token,
 * the node knows where it came from (the config node's "Sign in").
 */
function signInExpired(error: MediaSpacesError, context: string): MediaSpacesError {
  const at = /expired at (\S+?);/.exec(error.message)?.[1];
  return new MediaSpacesError({
    status: error.status,
    code: 'token_expired',
    message: `the sign-in token ${at ? `expired at ${at}` : 'has expired'} (${context}); open the config node and Sign in again`,
    fieldErrors: error.fieldErrors,
    traceId: error.traceId,
  });
}

/**
 * `cause` of the Error handed to Node-RED: the error record as data for Catch nodes, and a
 * short text where Node-RED turns the cause into a string (the Debug sidebar's view of an
 * uncaught error did `cause + ""`, which gave "[object Object]").
 */
function failureRecord(details: ErrorDetails): ErrorDetails {
  const fields = Object.keys(details.fieldErrors ?? {});
  const status = details.status === undefined ? '' : ` (HTTP ${details.status})`;
  const text = `${details.code}${status}${fields.length > 0 ? `; fields: ${fields.slice(0, 5).join(', ')}` : ''}`;
  // not enumerable: Catch nodes and JSON see the record's fields only
  return Object.defineProperty({ ...details }, 'toString', { value: () => text, enumerable: false });
}

/**
 * What is handed to `done(err)`: the sentence itself, as a String object carrying the record.
 *
 * Without a Catch node, Node-RED shows what the node reported in the Debug sidebar: an Error
 * appears there as a collapsed object whose message is cut after a few words, a string as the
 * whole sentence on one line. With a Catch node, Node-RED builds `msg.error` itself and copies
 * only `toString()` (as `message`), and the own `code`, `stack` and `cause` (Flow.handleError),
 * so `cause` carries the whole error record ({status, code, message, fieldErrors, traceId}). The
 * same fields are also own properties, for anything that reads the reported value directly.
 * Never the library error itself: its `cause` may hold transport internals. No stack: the failure
 * is the service's or the input's, not a bug. The class name is what the Debug sidebar shows as
 * the entry's type ("msg : MediaSpacesFailure"); a name with "Error" in it would be shown as an
 * error object again.
 */
class MediaSpacesFailure extends String {
  /** what Node-RED's done(err) is typed to take: an Error's name and message */
  readonly name = 'MediaSpacesError';
  readonly message: string;
  readonly code: string;
  readonly status: number | undefined;
  readonly fieldErrors: Record<string, string>;
  readonly traceId: string | undefined;
  readonly cause: ErrorDetails;

  constructor(details: ErrorDetails) {
    super(details.message);
    this.message = details.message;
    this.code = details.code;
    this.status = details.status;
    this.fieldErrors = details.fieldErrors;
    this.traceId = details.traceId;
    this.cause = failureRecord(details);
  }
}

/**
 * Marks the message as failed before `done(err)`: `msg.error` carries the
 * error record (the runtime hands it to Catch nodes as `msg._error`), and
 * `msg.statusCode` the HTTP status, or nothing when no response came, so a
 * status code left by an earlier node cannot mislead a switch.
 */
function markFailed(msg: NodeMessage, details: ErrorDetails): void {
  const previous = msg.error;
  // keep the runtime's loop detection working when a Catch feeds back into us
  const source =
    previous !== null && typeof previous === 'object' && 'source' in previous
      ? (previous as { source: unknown }).source
      : undefined;
  msg.error = source === undefined ? { ...details } : { ...details, source };
  if (details.status === undefined) delete msg.statusCode;
  else msg.statusCode = details.status;
}

/**
 * Ends one message with an error that Catch nodes see: `msg.error` set, then `done(err)`, or
 * `node.error(err, msg)` for a message whose `done` is gone (one resumed after a restart).
 */
export function failMessage(
  node: Node,
  msg: NodeMessage,
  details: ErrorDetails,
  done?: (err: MediaSpacesFailure) => void,
): void {
  try {
    if (msg !== null && typeof msg === 'object') markFailed(msg, details);
  } catch {
    // a frozen or exotic message cannot take msg.error; the error is still reported
  }
  const failure = new MediaSpacesFailure(details);
  deliverFailure(
    msg,
    () => (done ? done(failure) : node.error(failure, msg)),
    () => node.error(failure),
  );
}

function safeString(value: unknown): string {
  try {
    return String(value);
  } catch {
    return 'unknown error';
  }
}

/**
 * Nesting Node-RED can copy with room to spare: it copies a failed message for each Catch node,
 * recursively, and a message nested thousands of levels deep overflows the stack there.
 */
const MAX_COPY_DEPTH = 1_000;

/**
 * Hands a failure to Node-RED (`report`: done(err) or node.error(err, msg)) so that it reaches
 * Catch nodes even when the runtime cannot copy the message: if `report` throws (the copy
 * overflowed the stack), properties nested too deeply to copy are replaced by a note and it is
 * tried once more; if that throws too, `lastResort` reports the error without the message.
 * Without this such a message would end in nothing at all.
 */
function deliverFailure(msg: NodeMessage, report: () => void, lastResort: () => void): void {
  try {
    report();
    return;
  } catch {
    // the runtime could not hand the message to Catch nodes
  }
  try {
    if (msg !== null && typeof msg === 'object') replaceDeepProperties(msg);
    report();
  } catch {
    lastResort();
  }
}

function replaceDeepProperties(msg: NodeMessage): void {
  for (const key of Object.keys(msg)) {
    if (key === 'error' || key === '_msgid') continue;
    if (nestedDeeperThan(msg[key], MAX_COPY_DEPTH)) {
      msg[key] = `[removed: nested more than ${MAX_COPY_DEPTH} levels deep, too deep to copy]`;
    }
  }
}

/** Whether a value nests objects or lists more than `limit` levels deep (iterative: no recursion). */
function nestedDeeperThan(value: unknown, limit: number): boolean {
  const seen = new Set<object>();
  const stack: Array<[unknown, number]> = [[value, 0]];
  while (stack.length > 0) {
    const [v, depth] = stack.pop() as [unknown, number];
    if (v === null || typeof v !== 'object' || ArrayBuffer.isView(v) || seen.has(v)) continue;
    if (depth >= limit) return true;
    seen.add(v);
    for (const child of Object.values(v)) stack.push([child, depth + 1]);
  }
  return false;
}

import { MediaSpacesError } from '../../lib/errors';
import type { NodeMessage } from './node-red-types';

/** What `msg.error` holds after a failure: `MediaSpacesError.toJSON()`. */
export type ErrorDetails = ReturnType<MediaSpacesError['toJSON']>;

/**
 * Any thrown value as a MediaSpacesError. The library throws nothing else, so
 * anything different is a surprise (a bug, a runtime quirk, an odd value that
 * slipped through); it still gets a clear message instead of escaping.
 */
export function asMediaSpacesError(error: unknown, context: string): MediaSpacesError {
  if (error instanceof MediaSpacesError) return error;
  if (error instanceof Error && error.name === 'AbortError') {
    return new MediaSpacesError({ code: 'aborted', message: `${context} aborted` });
  }
  const reason = error instanceof Error ? error.message : safeString(error);
  return new MediaSpacesError({ code: 'invalid_input', message: `${context} failed: ${reason}` });
}

/**
 * The Error handed to `done(err)`.
 *
 * Node-RED 4 builds the Catch node's `msg.error` itself and copies only
 * `message`, `code`, `stack` and `cause` from the error (Flow.handleError),
 * so `cause` carries the whole error record ({status, code, message,
 * fieldErrors, traceId}). The same fields are also own enumerable properties,
 * for anything that reads the error object directly. Never the library error
 * itself: its `cause` may hold transport internals.
 */
export class OperationFailure extends Error {
  readonly code: string;
  readonly status: number | undefined;
  readonly fieldErrors: Record<string, string>;
  readonly traceId: string | undefined;

  constructor(details: ErrorDetails) {
    super(details.message, { cause: details });
    this.name = 'MediaSpacesError';
    this.code = details.code;
    this.status = details.status;
    this.fieldErrors = details.fieldErrors;
    this.traceId = details.traceId;
  }

  /** Node-RED uses toString() for the Catch node's msg.error.message: the message alone, without "Name: ". */
  override toString(): string {
    return this.message;
  }
}

/**
 * Marks the message as failed before `done(err)`: `msg.error` carries the
 * error record (the runtime hands it to Catch nodes as `msg._error`), and
 * `msg.statusCode` the HTTP status, or nothing when no response came, so a
 * status code left by an earlier node cannot mislead a switch.
 */
export function markFailed(msg: NodeMessage, details: ErrorDetails): void {
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

function safeString(value: unknown): string {
  try {
    return String(value);
  } catch {
    return 'unknown error';
  }
}

import type { SpaceRuntime } from './state';

export type JsonBody = { ok: true; value: unknown } | { ok: false; reason: string };

/** What an operation gets once the request is authorised for a space. */
export interface OperationContext {
  readonly space: SpaceRuntime;
  /** Decoded path parameters, space_id first. */
  readonly params: string[];
  readonly query: URLSearchParams;
  /** The simulated time of the request; one value for the whole request. */
  readonly now: number;
  /** The parsed body (parsed once, shared with the idempotency check). */
  json(): JsonBody;
}

export function parseJsonBody(body: Buffer | undefined): JsonBody {
  return parseJsonText(body && body.length > 0 ? body.toString('utf8') : '');
}

/** The same, from the body already decoded as UTF-8 ('' when there is none). */
export function parseJsonText(text: string): JsonBody {
  if (text.length === 0) return { ok: false, reason: 'the request body is empty; send a JSON object' };
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch (err) {
    return { ok: false, reason: `the request body is not valid JSON: ${(err as Error).message}` };
  }
}

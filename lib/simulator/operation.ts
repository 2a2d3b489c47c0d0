import type { ChannelFailures } from './channel-failures';
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
  /** Failures armed through the admin API for the next channels created. */
  readonly channelFailures: ChannelFailures;
  /** How long a channel created now warms up before it records. */
  readonly warmUpMs: number;
}

export function parseJsonBody(body: Buffer | undefined): JsonBody {
  return parseJsonText(body && body.length > 0 ? body.toString('utf8') : '');
}

/** The deepest nesting of arrays and objects a request body may have; the described bodies need a handful. */
export const MAX_JSON_DEPTH = 64;

/**
 * Why a body nested deeper than MAX_JSON_DEPTH is refused, or undefined. It counts
 * brackets outside strings on the raw text, so a hostile body is refused before
 * JSON.parse builds it (a 5 MB body can hold two million nested arrays).
 */
export function nestingRefusal(text: string): JsonBody | undefined {
  if (text.length <= MAX_JSON_DEPTH) return undefined;
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c) i++;
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x5b || c === 0x7b) {
      if (++depth > MAX_JSON_DEPTH) {
        return { ok: false, reason: `the request body nests arrays and objects deeper than ${MAX_JSON_DEPTH} levels` };
      }
    } else if (c === 0x5d || c === 0x7d) depth--;
  }
  return undefined;
}

/** The same, from the body already decoded as UTF-8 ('' when there is none). */
export function parseJsonText(text: string): JsonBody {
  if (text.length === 0) return { ok: false, reason: 'the request body is empty; send a JSON object' };
  const tooDeep = nestingRefusal(text);
  if (tooDeep) return tooDeep;
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch (err) {
    return { ok: false, reason: `the request body is not valid JSON: ${(err as Error).message}` };
  }
}

import type { IncomingMessage, OutgoingHttpHeaders, ServerResponse } from 'node:http';

const JSON_CONTENT_TYPE = 'application/json; charset=utf-8';
/** Request bodies above this are refused with 413. */
export const BODY_LIMIT_BYTES = 5 * 1024 * 1024;
/**
 * Oversized bodies up to this size are read and discarded before answering,
 * so the client reliably sees the 413 instead of a reset mid-upload; beyond
 * it the connection is closed straight away.
 */
const DRAIN_LIMIT_BYTES = 64 * 1024 * 1024;

/** Splits a request target into path and raw query; undefined when it is unusable. */
export function splitTarget(url: string | undefined): { path: string; rawQuery: string } | undefined {
  let target = url ?? '/';
  if (!target.startsWith('/')) {
    // absolute-form (as sent to proxies); anything else ('*', garbage) is unusable here
    try {
      const u = new URL(target);
      target = u.pathname + u.search;
    } catch {
      return undefined;
    }
  }
  const q = target.indexOf('?');
  return q < 0 ? { path: target, rawQuery: '' } : { path: target.slice(0, q), rawQuery: target.slice(q + 1) };
}

export type BodyResult =
  | { ok: true; body: Buffer | undefined }
  | { ok: false; reason: 'too_large'; drained: boolean }
  | { ok: false; reason: 'busy' }
  | { ok: false; reason: 'aborted' };

/** Bodies buffered at once across all requests, past which a request is answered 503 with this Retry-After. */
export const BODY_BUDGET_BYTES = 64 * 1024 * 1024;
export const BUSY_RETRY_AFTER_SECONDS = 1;

/**
 * The bytes of request bodies held at once, across requests. Each request takes
 * its chunks from it as they arrive and gives them all back when its response
 * closes (sent, aborted, timed out or destroyed), so stalled uploads cannot add
 * up past the budget however many there are.
 */
export class BodyBudget {
  private held = 0;

  constructor(readonly capacity = BODY_BUDGET_BYTES) {}

  get bytes(): number {
    return this.held;
  }

  take(n: number): boolean {
    if (this.held + n > this.capacity) return false;
    this.held += n;
    return true;
  }

  give(n: number): void {
    this.held -= n;
  }
}

/** Reads the whole body, up to the limit. Requests without one resolve at once. */
export function readBodyAsync(
  req: IncomingMessage,
  res: ServerResponse,
  budget: BodyBudget,
  limit = BODY_LIMIT_BYTES,
): Promise<BodyResult> {
  return new Promise((resolve) => readBody(req, res, budget, limit, resolve));
}

/**
 * The same with a callback, called once: synchronously for a request without a
 * body. The request pipeline uses this form, so its usual request needs no promise.
 * The bytes read stay counted in `budget` until `res` closes.
 */
export function readBody(
  req: IncomingMessage,
  res: ServerResponse,
  budget: BodyBudget,
  limit: number,
  done: (result: BodyResult) => void,
): void {
  const length = req.headers['content-length'];
  if (req.headers['transfer-encoding'] === undefined && (length === undefined || length === '0')) {
    done({ ok: true, body: undefined });
    return;
  }
  const announced = length === undefined ? 0 : Number(length);
  if (announced > DRAIN_LIMIT_BYTES) {
    done({ ok: false, reason: 'too_large', drained: false });
    return;
  }
  let chunk0: Buffer | undefined;
  let chunks: Buffer[] | undefined;
  let size = 0;
  let taken = 0;
  let settled = false;
  const settle = (r: BodyResult) => {
    if (!settled) {
      settled = true;
      done(r);
    }
  };
  const drop = () => {
    chunk0 = undefined;
    chunks = undefined;
    budget.give(taken);
    taken = 0;
  };
  res.once('close', drop);
  req.on('data', (chunk: Buffer) => {
    size += chunk.length;
    if (settled) {
      // the rest of a refused body is thrown away, up to a point
      if (size > DRAIN_LIMIT_BYTES) req.socket.destroy();
      return;
    }
    // a body announced too large is read only to be thrown away, so it holds nothing
    if (size > limit || announced > limit) {
      if (taken > 0) drop();
      if (size > DRAIN_LIMIT_BYTES) settle({ ok: false, reason: 'too_large', drained: false });
      return;
    }
    if (!budget.take(chunk.length)) {
      drop();
      settle({ ok: false, reason: 'busy' });
      return;
    }
    taken += chunk.length;
    if (chunk0 === undefined) chunk0 = chunk;
    else if (chunks === undefined) chunks = [chunk0, chunk];
    else chunks.push(chunk);
  });
  req.on('end', () => {
    if (size > limit || announced > limit) {
      settle({ ok: false, reason: 'too_large', drained: true });
      return;
    }
    const body = chunks ? Buffer.concat(chunks) : chunk0;
    // the body holds the bytes now; they stay counted until the response closes
    chunk0 = undefined;
    chunks = undefined;
    settle({ ok: true, body });
  });
  req.on('error', () => settle({ ok: false, reason: 'aborted' }));
  req.on('close', () => settle({ ok: false, reason: 'aborted' }));
}

/** Sends a JSON body (or none, e.g. for 204). Does nothing once the client is gone. */
export function send(
  res: ServerResponse,
  status: number,
  body: string | undefined,
  headers?: Record<string, string>,
): void {
  if (res.headersSent || res.destroyed) return;
  if (body === undefined) {
    res.writeHead(status, headers);
    res.end();
    return;
  }
  const h: OutgoingHttpHeaders = headers ? { ...headers } : {};
  h['content-type'] = JSON_CONTENT_TYPE;
  h['content-length'] = Buffer.byteLength(body);
  res.writeHead(status, h);
  res.end(body);
}

/**
 * Announces the full Content-Length, sends half the body, then cuts the
 * connection: the client sees a response that started fine and broke off.
 */
export function sendTruncated(
  res: ServerResponse,
  status: number,
  body: string,
  headers?: Record<string, string>,
): void {
  if (res.headersSent || res.destroyed) return;
  const bytes = Buffer.from(body);
  const h: OutgoingHttpHeaders = headers ? { ...headers } : {};
  h['content-type'] = JSON_CONTENT_TYPE;
  h['content-length'] = bytes.length;
  res.writeHead(status, h);
  // At least one byte goes out, so the client has really started reading a body.
  res.write(bytes.subarray(0, Math.max(1, Math.floor(bytes.length / 2))), () => res.destroy());
}

import type { IncomingMessage, OutgoingHttpHeaders, ServerResponse } from 'node:http';

export const JSON_CONTENT_TYPE = 'application/json; charset=utf-8';
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
  | { ok: false; reason: 'aborted' };

/** Reads the whole body, up to the limit. Requests without one resolve at once. */
export function readBodyAsync(req: IncomingMessage, limit = BODY_LIMIT_BYTES): Promise<BodyResult> {
  return new Promise((resolve) => readBody(req, limit, resolve));
}

/**
 * The same with a callback, called once: synchronously for a request without a
 * body. The request pipeline uses this form, so its usual request needs no promise.
 */
export function readBody(req: IncomingMessage, limit: number, done: (result: BodyResult) => void): void {
  const length = req.headers['content-length'];
  if (req.headers['transfer-encoding'] === undefined && (length === undefined || length === '0')) {
    done({ ok: true, body: undefined });
    return;
  }
  if (length !== undefined && Number(length) > DRAIN_LIMIT_BYTES) {
    done({ ok: false, reason: 'too_large', drained: false });
    return;
  }
  let chunk0: Buffer | undefined;
  let chunks: Buffer[] | undefined;
  let size = 0;
  let settled = false;
  const settle = (r: BodyResult) => {
    if (!settled) {
      settled = true;
      done(r);
    }
  };
  req.on('data', (chunk: Buffer) => {
    size += chunk.length;
    if (size > limit) {
      if (size > DRAIN_LIMIT_BYTES) settle({ ok: false, reason: 'too_large', drained: false });
    } else if (chunk0 === undefined) chunk0 = chunk;
    else if (chunks === undefined) chunks = [chunk0, chunk];
    else chunks.push(chunk);
  });
  req.on('end', () =>
    settle(
      size > limit
        ? { ok: false, reason: 'too_large', drained: true }
        : { ok: true, body: chunks ? Buffer.concat(chunks) : chunk0 },
    ),
  );
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

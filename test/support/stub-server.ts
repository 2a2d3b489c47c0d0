import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One request as the stub received it. */
export interface StubRequest {
  method: string;
  url: string;
  headers: IncomingMessage['headers'];
  body: string;
  /** Date.now() when the request's body had been read. */
  at: number;
}

export type StubHandler = (req: StubRequest, res: ServerResponse, index: number) => void | Promise<void>;

export interface Stub {
  /** http://127.0.0.1:PORT */
  url: string;
  requests: StubRequest[];
  /** Replaces the handler for the following requests. */
  handle(handler: StubHandler): void;
  close(): Promise<void>;
}

/**
 * A tiny scriptable HTTP server on loopback, for tests of the transport that
 * need exact control over statuses, headers and sockets.
 */
export async function startStub(handler: StubHandler = (_req, res) => json(res, 200, {})): Promise<Stub> {
  let current = handler;
  const requests: StubRequest[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const entry: StubRequest = {
        method: req.method ?? '',
        url: req.url ?? '',
        headers: req.headers,
        body: Buffer.concat(chunks).toString('utf8'),
        at: Date.now(),
      };
      requests.push(entry);
      Promise.resolve(current(entry, res, requests.length - 1)).catch((error) => {
        res.statusCode = 599;
        res.end(String(error));
      });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    handle(next) {
      current = next;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

export function json(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  const text = body === undefined ? '' : JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text), ...headers });
  res.end(text);
}

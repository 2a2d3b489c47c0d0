import net from 'node:net';

/**
 * A client on a bare TCP socket, for what fetch cannot do: send a request a few
 * bytes at a time, stall in the middle of it, or send bytes that are not HTTP.
 */
export interface RawSocket {
  socket: net.Socket;
  /** Everything the server sent so far. */
  received(): string;
  /** Resolves once the connection is closed for good (the server let go of it, or the client). */
  closed: Promise<void>;
  isClosed(): boolean;
  /** Writes `line` every `everyMs` until the connection closes. */
  drip(line: string, everyMs: number): void;
}

export async function openRaw(baseUrl: string): Promise<RawSocket> {
  const { hostname, port } = new URL(baseUrl);
  // like a hostile client, it keeps its own side open when the server ends its side:
  // only a server that destroys the connection gets rid of it
  const socket = net.connect({ port: Number(port), host: hostname, allowHalfOpen: true });
  let text = '';
  let isClosed = false;
  let timer: NodeJS.Timeout | undefined;
  socket.setEncoding('latin1');
  socket.on('data', (d: string) => {
    text += d;
  });
  // a reset from the server is one way of being closed
  socket.on('error', () => {});
  // Once the server has ended its side, keep writing: a server that let go of the
  // connection answers with a reset, which closes it; one that only half-closed it
  // would keep reading, and `closed` would never come.
  socket.on('end', () => {
    if (timer === undefined) timer = setInterval(() => socket.writable && socket.write('\r\n'), 20);
  });
  const closed = new Promise<void>((resolve) =>
    socket.on('close', () => {
      isClosed = true;
      clearInterval(timer);
      resolve();
    }),
  );
  await new Promise<void>((resolve, reject) => {
    socket.once('connect', resolve);
    socket.once('error', reject);
  });
  return {
    socket,
    received: () => text,
    closed,
    isClosed: () => isClosed,
    drip(line, everyMs) {
      timer = setInterval(() => {
        if (socket.writable) socket.write(line);
      }, everyMs);
    },
  };
}

/** The status line's code of what the server sent, or undefined before it answered. */
export function statusOf(raw: RawSocket): number | undefined {
  const m = /^HTTP\/1\.1 (\d{3}) /.exec(raw.received());
  return m ? Number(m[1]) : undefined;
}

/** The JSON body of a complete answer read off a raw socket. */
export function jsonBodyOf(raw: RawSocket): unknown {
  const text = raw.received();
  return JSON.parse(text.slice(text.indexOf('\r\n\r\n') + 4));
}

/** A header of the answer (lower-case name), or undefined. */
export function headerOf(raw: RawSocket, name: string): string | undefined {
  const head = raw.received().split('\r\n\r\n')[0];
  for (const line of head.split('\r\n').slice(1)) {
    const colon = line.indexOf(':');
    if (line.slice(0, colon).toLowerCase() === name) return line.slice(colon + 1).trim();
  }
  return undefined;
}

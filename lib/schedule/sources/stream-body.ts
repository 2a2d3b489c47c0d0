import { pipeline, Readable } from 'node:stream';
import { createGunzip } from 'node:zlib';

const GZIP_MAGIC = [0x1f, 0x8b];

/** Thrown by openBody when the decoded body passes its cap: the caller names the feed and the cap. */
export class BodyTooLarge extends Error {
  readonly code = 'ERR_FEED_TOO_LARGE';
  constructor(readonly maxBytes: number) {
    super(`the feed is larger than ${formatBytes(maxBytes)} once decoded`);
  }
}

/** `16 MB`, `512 KB`: a cap as the messages and the docs say it. */
export function formatBytes(n: number): string {
  return n >= 1024 * 1024 ? `${Math.round(n / (1024 * 1024))} MB` : `${Math.round(n / 1024)} KB`;
}

/**
 * The bytes of a feed, gunzipped when they are gzip (told by the bytes, not
 * by a file name or header, which feeds get wrong both ways), at most
 * `maxBytes` of them once decoded: the cap is counted on what comes out of
 * gunzip, so a small gzip that inflates to gigabytes is stopped at the cap,
 * after reading no more than that. Past the cap the iteration throws
 * BodyTooLarge (and the gunzip stream is destroyed).
 */
export function openBody(input: Readable, maxBytes = Number.POSITIVE_INFINITY): AsyncIterable<Buffer> {
  return (async function* () {
    let decoded = 0;
    const counted = (chunk: Buffer): Buffer => {
      decoded += chunk.length;
      if (decoded > maxBytes) throw new BodyTooLarge(maxBytes);
      return chunk;
    };
    const chunks = input[Symbol.asyncIterator]() as AsyncIterator<Buffer | string>;
    const head: Buffer[] = [];
    let length = 0;
    let done = false;
    // two bytes tell gzip; a stream may hand them over one at a time
    while (length < GZIP_MAGIC.length) {
      const next = await chunks.next();
      if (next.done) {
        done = true;
        break;
      }
      const chunk = Buffer.isBuffer(next.value) ? next.value : Buffer.from(next.value);
      head.push(chunk);
      length += chunk.length;
    }
    const first = Buffer.concat(head);
    const gzip = first.length >= 2 && first[0] === GZIP_MAGIC[0] && first[1] === GZIP_MAGIC[1];
    async function* rest(): AsyncGenerator<Buffer> {
      if (first.length > 0) yield first;
      if (done) return;
      for (let next = await chunks.next(); !next.done; next = await chunks.next()) {
        yield Buffer.isBuffer(next.value) ? next.value : Buffer.from(next.value);
      }
    }
    if (!gzip) {
      for await (const chunk of rest()) yield counted(chunk);
      return;
    }
    const gunzip = pipeline(Readable.from(rest()), createGunzip(), () => {});
    try {
      for await (const chunk of gunzip) yield counted(chunk as Buffer);
    } finally {
      gunzip.destroy();
    }
  })();
}

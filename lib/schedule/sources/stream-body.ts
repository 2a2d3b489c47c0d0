import { pipeline, Readable } from 'node:stream';
import { createGunzip } from 'node:zlib';

const GZIP_MAGIC = [0x1f, 0x8b];

/**
 * The bytes of a feed, gunzipped when they are gzip (told by the bytes, not
 * by a file name or header, which feeds get wrong both ways).
 */
export function openBody(input: Readable): AsyncIterable<Buffer> {
  return (async function* () {
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
      yield* rest();
      return;
    }
    const gunzip = pipeline(Readable.from(rest()), createGunzip(), () => {});
    for await (const chunk of gunzip) yield chunk as Buffer;
  })();
}

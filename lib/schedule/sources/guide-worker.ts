import { existsSync } from 'node:fs';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { Worker } from 'node:worker_threads';
import type { SourceResult } from './occurrence';
import { READ_STOPPED, readerSlot } from './reader-slots';
import { type GuideOptions, readGuide } from './xmltv';

/**
 * A guide reader's heap at the most. A guide is streamed: a read holds the
 * matching programmes in range (50,000 at the most) and a start time per
 * programme, tens of MB for a 200 MB guide; a guide that needs more is broken.
 */
export const GUIDE_WORKER_HEAP_MB = 256;
/**
 * The reader's young generation: V8's default (up to 48 MB on 64-bit) is kept committed once grown, and a
 * streaming read's garbage is short-lived text; 8 MB scavenges more often and holds ~25 MB less resident.
 */
const GUIDE_WORKER_YOUNG_MB = 8;
/** Chunks of the body posted to the reader and not yet taken by it: the backpressure window. */
const IN_FLIGHT = 8;

// The worker reads the chunks it is posted as a stream (gunzip, the byte cap and the
// parser all run in it), and says when it has taken each: the sender posts no more than
// IN_FLIGHT ahead, so a large guide is never queued whole in either thread.
const SCRIPT = `
const { parentPort, workerData } = require('node:worker_threads');
const { Readable } = require('node:stream');
const { readGuide } = require(workerData.module);
const queue = [];
let ended = false;
let failure;
let wake;
parentPort.on('message', (m) => {
  if (m.chunk) queue.push(Buffer.from(m.chunk.buffer, m.chunk.byteOffset, m.chunk.byteLength));
  else if (m.end) ended = true;
  else if (m.fail) failure = new Error(m.fail);
  if (wake) { const w = wake; wake = undefined; w(); }
});
async function* chunks() {
  for (;;) {
    if (queue.length > 0) {
      parentPort.postMessage({ took: 1 });
      yield queue.shift();
    } else if (failure) throw failure;
    else if (ended) return;
    else await new Promise((resolve) => { wake = resolve; });
  }
}
readGuide(Readable.from(chunks(), { objectMode: true, highWaterMark: 2 }), workerData.opts).then(
  (result) => parentPort.postMessage({ result }),
  (error) => parentPort.postMessage({ result: { occurrences: [], problems: [], error: 'The guide cannot be read: ' + error.message + '.' } }),
);
`;

const failed = (error: string): SourceResult => ({ occurrences: [], problems: [], error });

/**
 * readGuide in a worker thread with a bounded heap: a guide that would take
 * more memory than GUIDE_WORKER_HEAP_MB (a gzip bomb of nested elements, a
 * guide of huge texts) runs the worker out of memory and reads as a broken
 * feed, never the runtime; a read longer than `timeoutMs` is stopped. The
 * body is posted to the worker chunk by chunk, with backpressure. At most
 * MAX_READERS feed readers run at once (the time limit starts with the
 * worker). Never rejects. Where the compiled module is not beside this one
 * (the sources run untranspiled, in tests) it reads on the calling thread.
 */
export function readGuideOffThread(
  input: Readable | (() => Readable),
  opts: GuideOptions,
  timeoutMs: number,
  heapMb = GUIDE_WORKER_HEAP_MB,
  signal?: AbortSignal,
): Promise<SourceResult> {
  const compiled = path.join(__dirname, 'xmltv.js');
  // a body given as a way to open it is opened once the reader's turn comes: a file stream opened while it
  // waits would hold a descriptor, and an error of its open would go unheard until then
  const opened = () => (typeof input === 'function' ? input() : input);
  if (!existsSync(compiled)) return readGuide(opened(), opts);
  return readerSlot(signal).then(
    async (release) => {
      let body: Readable | undefined;
      try {
        body = opened();
        return await readInWorker(compiled, body, opts, timeoutMs, heapMb, signal);
      } catch (error) {
        // a worker that could not start (too many threads, no memory left for one)
        body?.destroy();
        return failed(`The guide cannot be read: ${(error as Error).message}.`);
      } finally {
        release();
      }
    },
    () => failed(READ_STOPPED),
  );
}

function readInWorker(
  compiled: string,
  input: Readable,
  opts: GuideOptions,
  timeoutMs: number,
  heapMb: number,
  signal: AbortSignal | undefined,
): Promise<SourceResult> {
  return new Promise((resolve) => {
    if (signal?.aborted) {
      input.destroy();
      resolve(failed(READ_STOPPED));
      return;
    }
    let done = false;
    const stopped = () => finish(failed(READ_STOPPED));
    let inFlight = 0;
    let credit: (() => void) | undefined;
    const release = () => {
      const c = credit;
      credit = undefined;
      c?.();
    };
    const finish = (result: SourceResult) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      signal?.removeEventListener('abort', stopped);
      release();
      input.destroy();
      void worker.terminate();
      resolve(result);
    };
    const worker = new Worker(SCRIPT, {
      eval: true,
      workerData: { module: compiled, opts },
      resourceLimits: { maxOldGenerationSizeMb: heapMb, maxYoungGenerationSizeMb: GUIDE_WORKER_YOUNG_MB },
    });
    const timer = setTimeout(
      () => finish(failed(`The guide took longer than ${Math.round(timeoutMs / 1000)} s to read; it is refused.`)),
      timeoutMs,
    );
    worker.on('message', (m: { took?: number; result?: SourceResult }) => {
      if (m.result) finish(m.result);
      else if (m.took) {
        inFlight--;
        release();
      }
    });
    worker.once('error', (error) =>
      finish(
        failed(
          (error as { code?: string }).code === 'ERR_WORKER_OUT_OF_MEMORY'
            ? `The guide is too large to read: its reader ran out of memory (${heapMb} MB of heap); it is refused.`
            : `The guide cannot be read: ${error.message}.`,
        ),
      ),
    );
    worker.once('exit', () => finish(failed('The guide cannot be read: its reader stopped.')));
    // a redeploy: the worker is ended now rather than when it is done
    signal?.addEventListener('abort', stopped, { once: true });
    void (async () => {
      try {
        for await (const chunk of input) {
          if (done) return;
          const bytes = Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk as string);
          // a chunk that is its whole buffer (a file stream's are) is handed over as it is; one that shares a
          // pooled buffer with others is copied first, as that buffer must not be transferred
          // (Node's pool serves only Buffers under half its size: a pooled one is never its whole buffer)
          const whole =
            bytes.buffer instanceof ArrayBuffer &&
            bytes.byteOffset === 0 &&
            bytes.byteLength === bytes.buffer.byteLength;
          const own = whole ? bytes : new Uint8Array(bytes);
          inFlight++;
          worker.postMessage({ chunk: own }, [own.buffer as ArrayBuffer]);
          while (inFlight >= IN_FLIGHT && !done) await new Promise<void>((resolve) => (credit = resolve));
          if (done) return;
        }
        if (!done) worker.postMessage({ end: true });
      } catch (error) {
        if (!done) worker.postMessage({ fail: error instanceof Error ? error.message : String(error) });
      }
    })();
  });
}

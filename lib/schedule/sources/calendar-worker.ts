import { existsSync } from 'node:fs';
import path from 'node:path';
import { Worker } from 'node:worker_threads';
import type { FeedReader } from './feed';
import type { CalendarOptions } from './ical';
import type { SourceResult } from './occurrence';
import { READ_STOPPED, readerSlot } from './reader-slots';
import { calendarReader } from './readers';

/** A worker's heap at the most: a calendar of the largest size read, parsed, with its occurrences. */
const WORKER_HEAP_MB = 512;

const SCRIPT = `
const { parentPort, workerData } = require('node:worker_threads');
const { expandCalendar } = require(workerData.module);
parentPort.postMessage(expandCalendar(workerData.text, workerData.opts));
`;

const failed = (error: string): SourceResult => ({ occurrences: [], problems: [], error });

/**
 * A calendar feed's reader (see calendarReader) that expands in a worker thread: parsing and expanding a
 * large calendar takes seconds of CPU (16 MB: about 3 s), which must not hold up the event loop that runs
 * the schedules' starts and ends. Bounded in time and heap, at most MAX_READERS feed readers at once (see
 * reader-slots), and the body is read once the reader's turn comes, not before: twenty windows refreshed
 * at one deploy would otherwise hold twenty calendars of up to 16 MB each while two are expanded. Never
 * rejects. Where the compiled module is not beside this one (the sources run untranspiled, in tests) it
 * expands on the calling thread.
 */
export function calendarReaderOffThread(opts: CalendarOptions, timeoutMs: number, signal?: AbortSignal): FeedReader {
  const compiled = path.join(__dirname, 'ical.js');
  if (!existsSync(compiled)) return calendarReader(opts);
  const read = calendarReader(opts, (text, o) => expandInWorker(compiled, text, o, timeoutMs, signal));
  return (open) =>
    readerSlot(signal).then(
      (release) => read(open).finally(release),
      () => failed(READ_STOPPED),
    );
}

function expandInWorker(
  compiled: string,
  text: string,
  opts: CalendarOptions,
  timeoutMs: number,
  signal: AbortSignal | undefined,
): Promise<SourceResult> {
  return new Promise((resolve) => {
    if (signal?.aborted) {
      resolve(failed(READ_STOPPED));
      return;
    }
    let done = false;
    const stopped = () => finish(failed(READ_STOPPED));
    const finish = (result: SourceResult) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      signal?.removeEventListener('abort', stopped);
      void worker.terminate();
      resolve(result);
    };
    let worker: Worker;
    try {
      worker = new Worker(SCRIPT, {
        eval: true,
        workerData: { module: compiled, text, opts },
        resourceLimits: { maxOldGenerationSizeMb: WORKER_HEAP_MB },
      });
    } catch (error) {
      // a worker that could not start (too many threads, no memory left for one)
      resolve(failed(`The calendar cannot be read: ${(error as Error).message}.`));
      return;
    }
    const timer = setTimeout(
      () => finish(failed(`The calendar took longer than ${Math.round(timeoutMs / 1000)} s to read.`)),
      timeoutMs,
    );
    worker.once('message', (result: SourceResult) => finish(result));
    worker.once('error', (error) =>
      finish(
        failed(
          (error as { code?: string }).code === 'ERR_WORKER_OUT_OF_MEMORY'
            ? 'The calendar is too large to read.'
            : `The calendar cannot be read: ${error.message}.`,
        ),
      ),
    );
    worker.once('exit', () => finish(failed('The calendar cannot be read: its reader stopped.')));
    // a redeploy: the worker is ended now rather than when it is done
    signal?.addEventListener('abort', stopped, { once: true });
  });
}

import { existsSync } from 'node:fs';
import path from 'node:path';
import { Worker } from 'node:worker_threads';
import type { CalendarOptions } from './ical';
import type { SourceResult } from './occurrence';
import { readerSlot } from './reader-slots';

/** A worker's heap at the most: a calendar of the largest size read, parsed, with its occurrences. */
const WORKER_HEAP_MB = 512;

const SCRIPT = `
const { parentPort, workerData } = require('node:worker_threads');
const { expandCalendar } = require(workerData.module);
parentPort.postMessage(expandCalendar(workerData.text, workerData.opts));
`;

const failed = (error: string): SourceResult => ({ occurrences: [], problems: [], error });

/**
 * expandCalendar in a worker thread: parsing and expanding a large calendar
 * takes seconds of CPU (16 MB: about 3 s), which must not hold up the event
 * loop that runs the schedules' starts and ends. Bounded in time and heap,
 * at most MAX_READERS feed readers at once (see reader-slots); never
 * rejects. Where the compiled module is not beside this one (the sources
 * run untranspiled, in tests) it expands on the calling thread.
 */
export function expandCalendarOffThread(text: string, opts: CalendarOptions, timeoutMs: number): Promise<SourceResult> {
  const compiled = path.join(__dirname, 'ical.js');
  if (!existsSync(compiled)) {
    const { expandCalendar } = require('./ical') as typeof import('./ical');
    return Promise.resolve(expandCalendar(text, opts));
  }
  return readerSlot().then((release) => expandInWorker(compiled, text, opts, timeoutMs).finally(release));
}

function expandInWorker(
  compiled: string,
  text: string,
  opts: CalendarOptions,
  timeoutMs: number,
): Promise<SourceResult> {
  return new Promise((resolve) => {
    let done = false;
    const finish = (result: SourceResult) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      void worker.terminate();
      resolve(result);
    };
    const worker = new Worker(SCRIPT, {
      eval: true,
      workerData: { module: compiled, text, opts },
      resourceLimits: { maxOldGenerationSizeMb: WORKER_HEAP_MB },
    });
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
  });
}

import { isMainThread, parentPort, Worker } from 'node:worker_threads';
import { type CalendarOptions, expandCalendar } from './ical';
import type { SourceResult } from './occurrence';

/**
 * Expands calendars in a worker thread: ical.js parses and expands a whole text at once (10,000 events take
 * ~400 ms), which on the main thread would hold every schedule's timers that long. One worker serves every
 * feed, one calendar at a time, and ends after IDLE_MS without work (it holds ical.js and a heap: a Raspberry
 * Pi need not keep them between refreshes). Results come back by structured clone (Dates included). Where no
 * compiled worker file exists (the sources run as TypeScript under a test runner), the expansion runs inline.
 */
const IDLE_MS = 30_000;

interface Job {
  id: number;
  resolve(result: SourceResult): void;
}

let worker: Worker | undefined;
let idle: NodeJS.Timeout | undefined;
let nextId = 0;
const jobs = new Map<number, Job>();

export function expandCalendarOffThread(text: string, opts: CalendarOptions): Promise<SourceResult> {
  if (!__filename.endsWith('.js')) return Promise.resolve(expandCalendar(text, opts));
  return new Promise((resolve) => {
    const id = ++nextId;
    jobs.set(id, { id, resolve });
    clearTimeout(idle);
    shared().postMessage({ id, text, opts });
  });
}

function shared(): Worker {
  if (worker) return worker;
  const w = new Worker(__filename);
  // an idle worker never keeps Node-RED from exiting
  w.unref();
  w.on('message', ({ id, result }: { id: number; result: SourceResult }) => {
    jobs.get(id)?.resolve(result);
    jobs.delete(id);
    if (jobs.size === 0) {
      idle = setTimeout(() => void w.terminate(), IDLE_MS);
      idle.unref();
    }
  });
  const fail = (why: string) => {
    if (worker === w) worker = undefined;
    for (const job of jobs.values()) job.resolve({ occurrences: [], problems: [], error: why });
    jobs.clear();
  };
  w.on('error', (error) => fail(`The calendar cannot be read: ${error.message}.`));
  w.on('exit', (code) => fail(`The calendar reader stopped (exit ${code}).`));
  worker = w;
  return w;
}

if (!isMainThread && parentPort) {
  const port = parentPort;
  port.on('message', ({ id, text, opts }: { id: number; text: string; opts: CalendarOptions }) => {
    port.postMessage({ id, result: expandCalendar(text, opts) });
  });
}

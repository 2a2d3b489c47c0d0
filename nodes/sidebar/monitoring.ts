import diagnostics_channel from 'node:diagnostics_channel';
import { METRICS_PERMISSION, READ_PERMISSION, requireAnyPermission, requirePermission } from '../shared/permission';
import type { MonitoringHost } from './monitoring-runtime';

const METRICS_PATH = '/media-spaces/metrics';
const AS_RUN_PATH = '/media-spaces/as-run';

type Runtime = typeof import('./monitoring-runtime');
type Started = ReturnType<Runtime['startMonitoring']>;

/**
 * The channels monitoring reads, by name: the modules that define them
 * (lib/schedule/slot-events, lib/request-events, lib/coordination/failure-events,
 * lib/feed-events, lib/service-clock) are loaded with what they serve, not at Node-RED's start.
 */
export const MONITORED_CHANNELS = [
  'media-spaces:slot',
  'media-spaces:slot-job',
  'media-spaces:request',
  'media-spaces:coordination-failure',
  'media-spaces:feed',
  'media-spaces:schedule-windows',
  'media-spaces:service-clock',
];
const CHANNELS = MONITORED_CHANNELS.map((name) => diagnostics_channel.channel(name));

let started: Started | undefined;
let waiting: ((message: unknown, name: string | symbol) => void) | undefined;
/** the runtime the routes were registered with, for an early start */
let host: MonitoringHost | undefined;
let early: NodeJS.Timeout | undefined;

/**
 * The metrics and the as-run recorder (monitoring-runtime.ts), loaded on the
 * first event published or the first scrape, not at Node-RED's start: a
 * runtime that records nothing and is not scraped loads neither. Once
 * loaded they subscribe themselves and the first event is handed to them.
 */
function start(RED: MonitoringHost): Started {
  if (!started) {
    const runtime = require('./monitoring-runtime') as Runtime;
    started = runtime.startMonitoring(RED);
    if (waiting) for (const c of CHANNELS) c.unsubscribe(waiting);
    waiting = undefined;
  }
  return started;
}

/** The process's as-run log, started now if nothing has started it (the as-run node reads it). */
export function asRunLog(RED: MonitoringHost): Started['recorder'] {
  return start(RED).recorder;
}

/**
 * Starts monitoring a second from now, unless an event or a scrape starts it first: called when a
 * schedule is deployed, whose first slot would otherwise load it. That slot may be one of fifty
 * opening at the same second, and loading the metrics and the as-run log (a few milliseconds)
 * then delays the channel requests of the others.
 */
export function startMonitoringSoon(): void {
  if (started || early || !host) return;
  early = setTimeout(() => {
    early = undefined;
    if (host) start(host);
  }, 1000);
  early.unref();
}

/** Listens on every channel until the first event, which starts monitoring (once per process). */
function watchLazily(RED: MonitoringHost): void {
  host = RED;
  if (started || waiting) return;
  const first = (message: unknown, name: string | symbol) => {
    const now = start(RED);
    now.metrics.handle(String(name), message);
    now.recorder.handle(String(name), message);
  };
  waiting = first;
  for (const c of CHANNELS) c.subscribe(first);
}

/**
 * The monitoring endpoints: Prometheus' scrape of the metrics (metrics or
 * read permission), and the as-run log of a day (read permission).
 */
export function registerMonitoringRoutes(RED: MonitoringHost): void {
  watchLazily(RED);
  // a scraper's token has media-spaces.metrics, which reads this and nothing else
  const scrape = requireAnyPermission(RED, [METRICS_PERMISSION, READ_PERMISSION]);
  RED.httpAdmin.get(METRICS_PATH, scrape, (_req, res) => {
    const runtime = require('./monitoring-runtime') as Runtime;
    runtime.serveMetrics(start(RED).metrics, res).catch((error: unknown) => {
      res.status(500).json({ error: { code: 'metrics_failed', message: String(error) } });
    });
  });
  RED.httpAdmin.get(AS_RUN_PATH, requirePermission(RED, READ_PERMISSION), (req, res) => {
    const runtime = require('./monitoring-runtime') as Runtime;
    runtime.serveAsRun(start(RED).recorder, req, res).catch((error: unknown) => {
      res.status(500).json({ error: { code: 'as_run_failed', message: String(error) } });
    });
  });
}

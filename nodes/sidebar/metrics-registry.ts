import type { Counter, Gauge, Registry } from 'prom-client';
import type { Family, HistogramSample } from '../../lib/metrics/exposition';

/**
 * The prefix of prom-client's default process metrics in the scrape
 * (`nodered_nodejs_eventloop_lag_p99_seconds`, `nodered_process_resident_memory_bytes`, …): they
 * describe the Node-RED process that hosts the package, not the package, and the prefix keeps them
 * apart from the same collectors of another exporter in the same process.
 */
export const PROCESS_METRICS_PREFIX = 'nodered_';

export interface MetricsRegistry {
  /** Prometheus' text format 0.0.4 */
  readonly contentType: string;
  /** The text a scrape gets: the families as they are now, then the process metrics. */
  text(): Promise<string>;
}

type PromClient = typeof import('prom-client');

/**
 * A private prom-client Registry (nothing in prom-client's global registry,
 * nothing of the host's) over the package's series. Counts stay plain
 * numbers in SlotMetrics, which hears events from the first one on; here
 * each family is a prom-client metric that takes its values from the
 * families of the scrape (`collect`), so prom-client writes the text, and
 * its default collectors add the process: event-loop lag, heap, GC,
 * handles, CPU, memory, file descriptors.
 *
 * prom-client and its collectors are loaded by this call, made at the
 * first scrape (its cost is in docs/monitoring.md): a runtime that is never
 * scraped never loads them.
 */
export function metricsRegistry(
  source: { families(): Family[] },
  options: { processMetrics?: boolean } = {},
): MetricsRegistry {
  const prom = require('prom-client') as PromClient;
  const registry = new prom.Registry();
  let scraped = new Map<string, Family>();
  for (const family of source.families()) register(prom, registry, family, () => scraped.get(family.name));
  if (options.processMetrics !== false)
    prom.collectDefaultMetrics({ register: registry, prefix: PROCESS_METRICS_PREFIX });
  return {
    contentType: registry.contentType,
    async text() {
      scraped = new Map(source.families().map((f) => [f.name, f]));
      return registry.metrics();
    },
  };
}

function register(prom: PromClient, registry: Registry, family: Family, now: () => Family | undefined): void {
  const config = { name: family.name, help: family.help, labelNames: [...family.labelNames], registers: [registry] };
  if (family.type === 'counter') {
    new prom.Counter({
      ...config,
      collect(this: Counter) {
        this.reset();
        for (const s of now()?.samples ?? []) this.inc(s.labels, s.value);
      },
    });
  } else if (family.type === 'gauge') {
    new prom.Gauge({
      ...config,
      collect(this: Gauge) {
        this.reset();
        for (const s of now()?.samples ?? []) this.set(s.labels, s.value);
      },
    });
  } else {
    countedHistogram(prom, config, now);
  }
}

/**
 * A histogram whose buckets are counted elsewhere (lib/metrics/exposition's Histogram, from the first
 * event, before prom-client is loaded): prom-client's Histogram only takes observations, so this one
 * answers the registry with the counted buckets (cumulative, `le` increasing, a last `+Inf` equal to
 * `_count`) instead of its own.
 */
function countedHistogram(
  prom: PromClient,
  config: { name: string; help: string; labelNames: string[]; registers: Registry[] },
  now: () => Family | undefined,
): void {
  class CountedHistogram extends prom.Histogram<string> {
    /**
     * What prom-client's Registry reads for the text format (and its Histogram's own get() reads for
     * JSON): the shape of Histogram.getForPromString, with the counted buckets.
     */
    async getForPromString() {
      return {
        name: config.name,
        help: config.help,
        type: 'histogram',
        aggregator: 'sum',
        values: (now()?.histograms ?? []).flatMap((h) => histogramValues(config.name, h)),
      };
    }
  }
  new CountedHistogram(config);
}

function histogramValues(name: string, h: HistogramSample) {
  const values: { metricName: string; labels: Record<string, string | number>; value: number }[] = [];
  let cumulative = 0;
  h.bounds.forEach((bound, i) => {
    cumulative += h.counts[i] ?? 0;
    values.push({ metricName: `${name}_bucket`, labels: { ...h.labels, le: bound }, value: cumulative });
  });
  cumulative += h.counts[h.bounds.length] ?? 0;
  values.push({ metricName: `${name}_bucket`, labels: { ...h.labels, le: '+Inf' }, value: cumulative });
  values.push({ metricName: `${name}_sum`, labels: h.labels, value: h.sum });
  values.push({ metricName: `${name}_count`, labels: h.labels, value: cumulative });
  return values;
}

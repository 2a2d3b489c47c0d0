/**
 * The package's series as plain numbers: what SlotMetrics counts from the
 * first event on, before anything is scraped. The metrics route writes them
 * through prom-client (nodes/sidebar/metrics-registry.ts, loaded at the
 * first scrape); lib/ depends on no metrics library.
 */

type Labels = Record<string, string>;
type MetricType = 'counter' | 'gauge' | 'histogram';

export interface Sample {
  labels: Labels;
  value: number;
}

export interface HistogramSample {
  labels: Labels;
  /** upper bounds, increasing, without +Inf */
  bounds: readonly number[];
  /** non-cumulative counts per bound, plus one for above the last */
  counts: readonly number[];
  sum: number;
}

export interface Family {
  name: string;
  help: string;
  type: MetricType;
  /** every label a sample of the family has (histograms: without `le`) */
  labelNames: readonly string[];
  samples?: Sample[];
  histograms?: HistogramSample[];
}

/** A histogram's counts, kept as plain numbers until scraped. */
export class Histogram {
  readonly counts: number[];
  sum = 0;

  constructor(readonly bounds: readonly number[]) {
    this.counts = new Array(bounds.length + 1).fill(0);
  }

  observe(value: number): void {
    if (!Number.isFinite(value)) return;
    let i = 0;
    while (i < this.bounds.length && value > this.bounds[i]) i++;
    this.counts[i]++;
    this.sum += value;
  }
}

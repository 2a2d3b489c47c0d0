/**
 * Prometheus' text exposition format (version 0.0.4), written by hand: the
 * package exports a few dozen series, and prom-client would add a
 * dependency for what is a page of code. The rules followed: one HELP and
 * TYPE line per family before its samples, label values with \\ " and line
 * breaks escaped, HELP text with \\ and line breaks escaped, histogram
 * buckets cumulative with `le` in increasing order and a last `+Inf` bucket
 * equal to `_count`, and values as Go's ParseFloat reads them.
 */

type Labels = Record<string, string>;
type MetricType = 'counter' | 'gauge' | 'histogram';

export interface Sample {
  labels: Labels;
  value: number;
}

interface HistogramSample {
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
  samples?: Sample[];
  histograms?: HistogramSample[];
}

export const CONTENT_TYPE = 'text/plain; version=0.0.4; charset=utf-8';

function formatValue(value: number): string {
  if (Number.isNaN(value)) return 'NaN';
  if (value === Number.POSITIVE_INFINITY) return '+Inf';
  if (value === Number.NEGATIVE_INFINITY) return '-Inf';
  return String(value);
}

function escapeLabel(value: string): string {
  return value.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\n');
}

function escapeHelp(text: string): string {
  return text.replace(/\\/g, '\\\\').replace(/\n/g, '\\n');
}

function labelText(labels: Labels, extra?: [string, string]): string {
  const pairs = Object.entries(labels).map(([k, v]) => `${k}="${escapeLabel(v)}"`);
  if (extra) pairs.push(`${extra[0]}="${escapeLabel(extra[1])}"`);
  return pairs.length > 0 ? `{${pairs.join(',')}}` : '';
}

export function renderFamilies(families: readonly Family[]): string {
  const lines: string[] = [];
  for (const f of families) {
    lines.push(`# HELP ${f.name} ${escapeHelp(f.help)}`, `# TYPE ${f.name} ${f.type}`);
    for (const s of f.samples ?? []) lines.push(`${f.name}${labelText(s.labels)} ${formatValue(s.value)}`);
    for (const h of f.histograms ?? []) {
      let cumulative = 0;
      h.bounds.forEach((bound, i) => {
        cumulative += h.counts[i] ?? 0;
        lines.push(`${f.name}_bucket${labelText(h.labels, ['le', formatValue(bound)])} ${cumulative}`);
      });
      cumulative += h.counts[h.bounds.length] ?? 0;
      lines.push(`${f.name}_bucket${labelText(h.labels, ['le', '+Inf'])} ${cumulative}`);
      lines.push(`${f.name}_sum${labelText(h.labels)} ${formatValue(h.sum)}`);
      lines.push(`${f.name}_count${labelText(h.labels)} ${cumulative}`);
    }
  }
  return `${lines.join('\n')}\n`;
}

/** A histogram's counts, kept as plain numbers until rendered. */
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

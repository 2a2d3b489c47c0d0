import { spawnSync } from 'node:child_process';

/** One sample of Prometheus' text format: `name{labels} value`. */
export interface ParsedSample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

/** The samples of a scrape (comments skipped), label values unescaped. */
export function parseSamples(text: string): ParsedSample[] {
  const samples: ParsedSample[] = [];
  for (const line of text.split('\n')) {
    if (line === '' || line.startsWith('#')) continue;
    const m = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!m) throw new Error(`not a sample line: ${line}`);
    const labels: Record<string, string> = {};
    for (const l of (m[2] ?? '').matchAll(/([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g)) {
      labels[l[1]] = l[2].replace(/\\(.)/g, (_, c: string) => (c === 'n' ? '\n' : c));
    }
    samples.push({ name: m[1], labels, value: m[3] === '+Inf' ? Number.POSITIVE_INFINITY : Number(m[3]) });
  }
  return samples;
}

/** The value of the one sample with this name whose labels include these; throws when there is not exactly one. */
export function sampleValue(samples: ParsedSample[], name: string, labels: Record<string, string> = {}): number {
  const found = samples.filter((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v));
  if (found.length !== 1) throw new Error(`${found.length} samples of ${name} ${JSON.stringify(labels)}`);
  return found[0].value;
}

/** `promtool check metrics` (Prometheus' own parser and linter) on the text: its complaints, empty when none. */
export function promtoolCheckMetrics(text: string): { status: number | null; output: string } {
  const run = spawnSync('promtool', ['check', 'metrics'], { input: text, encoding: 'utf8' });
  return { status: run.status, output: `${run.stdout}${run.stderr}`.trim() };
}

/**
 * What promtool's lint says of prom-client's default collectors (parsed fine): three gauges prom-client
 * names with `_total`, kept as the dashboards of prom-client users know them.
 */
const PROM_CLIENT_NAMES =
  /^nodered_nodejs_active_(handles|requests|resources)_total non-counter metrics should not have "_total" suffix$/;

/** `promtool check metrics` on a scrape with the process metrics: its complaints but prom-client's known names; a parse error always. */
export function promtoolProblems(text: string): string[] {
  const { status, output } = promtoolCheckMetrics(text);
  const problems = output.split('\n').filter((l) => l !== '' && !PROM_CLIENT_NAMES.test(l));
  if (status !== 0 && status !== 3) return [`promtool exited ${status}`, ...problems];
  return problems;
}

import * as fs from 'node:fs';
import * as path from 'node:path';

/** Where the suites write their figures (gitignored). */
export const RESULTS_DIR = path.resolve(__dirname, '..', '..', '.tmp', 'reliability');

/** Writes `test/.tmp/reliability/<name>.json` and returns its path. */
export function writeResults(name: string, data: unknown): string {
  fs.mkdirSync(RESULTS_DIR, { recursive: true });
  const file = path.join(RESULTS_DIR, `${name}.json`);
  fs.writeFileSync(file, `${JSON.stringify(data, null, 2)}\n`);
  return file;
}

/** A plain text table: first row is the header. */
export function table(rows: (string | number)[][]): string {
  const cells = rows.map((r) => r.map(String));
  const widths = cells[0].map((_, i) => Math.max(...cells.map((r) => (r[i] ?? '').length)));
  const line = (r: string[]) => r.map((c, i) => (i === 0 ? c.padEnd(widths[i]) : c.padStart(widths[i]))).join('  ');
  const rule = widths.map((w) => '-'.repeat(w)).join('  ');
  return [line(cells[0]), rule, ...cells.slice(1).map(line)].join('\n');
}

/** Prints to stdout past vitest's console interception, so figures show in every reporter. */
export function print(text: string): void {
  process.stdout.write(`${text}\n`);
}

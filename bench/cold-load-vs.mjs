// Cold load of this package against another build of it (an earlier commit's
// `git archive` with `tsc -p tsconfig.json` run in it): medians of fresh
// processes, taking turns, each requiring the package's entry points as
// Node-RED and a library user do (every node and plugin file registered with
// a stub of the runtime, then the main entry), with nothing deployed, so
// nothing that loads on first use (metrics, as-run) is counted.
//   node bench/cold-load-vs.mjs OTHER_ROOT [--runs 7]
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { BENCH_DIR, fmt, median, ROOT } from './lib/common.mjs';

const argv = process.argv.slice(2);
const other = argv[0];
if (!other) {
  console.error('usage: node bench/cold-load-vs.mjs OTHER_ROOT [--runs 7]');
  process.exit(2);
}
const runsAt = argv.indexOf('--runs');
const RUNS = runsAt >= 0 ? Number(argv[runsAt + 1]) : 7;

function entryFiles(root) {
  const pkg = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8'));
  return [...Object.values(pkg['node-red'].nodes), ...Object.values(pkg['node-red'].plugins ?? {})].map((f) =>
    path.join(root, f),
  );
}

function once(root) {
  const nodes = spawnSync(
    process.execPath,
    ['--expose-gc', path.join(BENCH_DIR, 'workers/cold-load.mjs'), 'node', ...entryFiles(root)],
    { cwd: root, encoding: 'utf8' },
  );
  const main = spawnSync(
    process.execPath,
    ['--expose-gc', path.join(BENCH_DIR, 'workers/cold-load.mjs'), 'module', path.join(root, 'dist/lib/index.js')],
    { cwd: root, encoding: 'utf8' },
  );
  if (nodes.status !== 0 || main.status !== 0) throw new Error(`${root}: ${nodes.stderr}${main.stderr}`);
  const n = JSON.parse(nodes.stdout.trim().split('\n').at(-1));
  const m = JSON.parse(main.stdout.trim().split('\n').at(-1));
  return { nodesMs: n.ms, nodesRss: n.rss, nodesHeap: n.heap, mainMs: m.ms, mainRss: m.rss, mainHeap: m.heap };
}

const runs = { here: [], other: [] };
for (let i = 0; i < RUNS; i++) {
  runs.here.push(once(ROOT));
  runs.other.push(once(path.resolve(other)));
}
const mb = (b) => b / 2 ** 20;
const med = (side, key) => median(runs[side].map((r) => r[key]));
console.log(
  `cold load, medians of ${RUNS} fresh processes each (node files: ${entryFiles(ROOT).length} here, ${entryFiles(other).length} there)`,
);
for (const [label, ms, rss, heap] of [
  ['node and plugin files', 'nodesMs', 'nodesRss', 'nodesHeap'],
  ['main entry (dist/lib/index.js)', 'mainMs', 'mainRss', 'mainHeap'],
]) {
  console.log(
    `  ${label}: ${fmt(med('here', ms))} ms vs ${fmt(med('other', ms))} ms (${fmt(med('here', ms) - med('other', ms))} ms); ` +
      `RSS ${fmt(mb(med('here', rss)))} MB vs ${fmt(mb(med('other', rss)))} MB (${fmt(mb(med('here', rss) - med('other', rss)))} MB); ` +
      `heap ${fmt(mb(med('here', heap)))} MB vs ${fmt(mb(med('other', heap)))} MB (${fmt(mb(med('here', heap) - med('other', heap)))} MB)`,
  );
}

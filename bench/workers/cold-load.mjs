// One cold load in a fresh process: require the given files (and, for node
// files, call their register function with a stub of the Node-RED API the
// way the runtime does), then print time and memory as one JSON line.
//   node --expose-gc bench/workers/cold-load.mjs node FILE...   (node files)
//   node --expose-gc bench/workers/cold-load.mjs module NAME...  (plain requires)
import { createRequire } from 'node:module';
import path from 'node:path';
import { performance } from 'node:perf_hooks';

const require = createRequire(import.meta.url);
const [kind, ...targets] = process.argv.slice(2);

function stubRED() {
  const noop = () => undefined;
  const app = { get: noop, post: noop, put: noop, delete: noop, use: noop };
  return {
    nodes: { registerType: noop, createNode: noop, getNode: () => null, eachNode: noop },
    httpAdmin: app,
    httpNode: app,
    auth: { needsPermission: () => (_req, _res, next) => next() },
    settings: {},
    util: { cloneMessage: (m) => m, evaluateNodeProperty: noop, getMessageProperty: noop, setMessageProperty: noop },
    log: { info: noop, warn: noop, error: noop, debug: noop, trace: noop },
    events: { on: noop, once: noop, removeListener: noop },
    comms: { publish: noop },
    library: { register: noop },
    plugins: { registerPlugin: noop },
    _: (s) => s,
    version: () => '4.1.0',
  };
}

const moduleCountBefore = Object.keys(require.cache).length;
globalThis.gc?.();
globalThis.gc?.();
const m0 = process.memoryUsage();
const t0 = performance.now();
for (const target of targets) {
  const loaded = require(kind === 'node' ? path.resolve(target) : target);
  if (kind === 'node') {
    const register = typeof loaded === 'function' ? loaded : loaded?.default;
    register(stubRED());
  }
}
const ms = performance.now() - t0;
globalThis.gc?.();
globalThis.gc?.();
const m1 = process.memoryUsage();
const files = Object.keys(require.cache).slice(moduleCountBefore);
const packages = [
  ...new Set(files.map((f) => /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(f)?.[1]).filter((p) => p !== undefined)),
].sort();
process.stdout.write(
  `${JSON.stringify({
    ms,
    rss: m1.rss - m0.rss,
    heap: m1.heapUsed - m0.heapUsed,
    external: m1.external - m0.external,
    modules: files.length,
    packages,
  })}\n`,
);

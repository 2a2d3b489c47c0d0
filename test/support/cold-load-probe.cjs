// Run in a fresh process by test/nodes/cold-load.test.ts: registers the given
// node/plugin files with a stand-in of the RED API the way Node-RED does at
// start, optionally constructs one node of a type (a deploy), and prints what
// got registered and which packages are in require.cache, as one JSON line.
//   node cold-load-probe.cjs '{"files":[...],"deploy":[{"type":"...","def":{...}}],"waitMs":0}'
// waitMs: also lists this package's modules loaded that long after the deploy (`later`).
// scrape: then asks GET /media-spaces/metrics once and lists the packages loaded before it and after it
// (`beforeScrape`, `afterScrape`).
const { EventEmitter } = require('node:events');
const path = require('node:path');

const request = JSON.parse(process.argv[2]);
const constructors = new Map();
const registered = { types: [], plugins: [], routes: [] };
const noop = () => undefined;
const handlers = new Map();
const route =
  (method) =>
  (routePath, ...chain) => {
    registered.routes.push(`${method} ${routePath}`);
    handlers.set(`${method} ${routePath}`, chain.at(-1));
  };
const RED = {
  nodes: {
    registerType: (type, ctor) => {
      registered.types.push(type);
      constructors.set(type, ctor);
    },
    createNode: noop,
    getNode: () => null,
    eachNode: noop,
  },
  httpAdmin: { get: route('GET'), post: route('POST'), put: route('PUT'), delete: route('DELETE'), use: noop },
  httpNode: { get: noop, post: noop, put: noop, delete: noop, use: noop },
  auth: { needsPermission: () => (_req, _res, next) => next() },
  settings: {},
  util: { cloneMessage: (m) => m, evaluateNodeProperty: noop, getMessageProperty: noop, setMessageProperty: noop },
  log: { info: noop, warn: noop, error: noop, debug: noop, trace: noop },
  events: new EventEmitter(),
  comms: { publish: noop },
  library: { register: noop },
  plugins: { registerPlugin: (name) => registered.plugins.push(name) },
  _: (s) => s,
  version: () => '4.1.0',
};

const packagesLoaded = () =>
  [
    ...new Set(
      Object.keys(require.cache)
        .map((f) => /node_modules[\\/]((?:@[^\\/]+[\\/])?[^\\/]+)/.exec(f)?.[1]?.replace('\\', '/'))
        .filter((p) => p !== undefined),
    ),
  ].sort();

for (const file of request.files) {
  const loaded = require(path.resolve(file));
  (typeof loaded === 'function' ? loaded : loaded.default)(RED);
}
const atStart = packagesLoaded();

const deployErrors = [];
for (const { type, def } of request.deploy ?? []) {
  const node = new EventEmitter();
  Object.assign(node, { id: def.id, credentials: {}, warn: noop, error: noop, log: noop, status: noop, send: noop });
  try {
    constructors.get(type).call(node, def);
  } catch (error) {
    deployErrors.push(`${type}: ${error.message}`);
  }
  node.emit('close', false, noop);
}
const ownLoaded = () =>
  Object.keys(require.cache)
    .filter((f) => f.includes(`${path.sep}dist${path.sep}`) && !f.includes('node_modules'))
    .map((f) => f.slice(f.lastIndexOf(`${path.sep}dist${path.sep}`) + 1).replaceAll('\\', '/'));
const result = { ...registered, atStart, afterDeploy: packagesLoaded(), ownAfterDeploy: ownLoaded(), deployErrors };
const print = (more) => process.stdout.write(`${JSON.stringify({ ...result, ...more })}\n`);
function scrape() {
  return new Promise((resolve) => {
    const res = { status: () => res, set: () => res, send: resolve, json: resolve };
    handlers.get('GET /media-spaces/metrics')({ query: {} }, res, noop);
  });
}
async function finish() {
  const more = request.waitMs ? { later: ownLoaded() } : {};
  if (request.scrape) {
    const beforeScrape = packagesLoaded();
    const text = await scrape();
    Object.assign(more, { beforeScrape, afterScrape: packagesLoaded(), scraped: String(text).length });
  }
  print(more);
}
if (request.waitMs) setTimeout(finish, request.waitMs);
else finish();

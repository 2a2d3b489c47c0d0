// Helpers shared by the browser tests (test/e2e) and the packaging check
// (scripts/pack-check.mjs): pack the package, install the tarball into a
// Node-RED user directory, start a real Node-RED on a free loopback port and
// stop it, and the launch options of Debian's chromium.
import { spawn, spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';

export const PACKAGE_NAME = '@media-spaces/node-red';
export const NODE_TYPES = [
  'media-spaces-config',
  'media-spaces-list-workflows',
  'media-spaces-submit-job',
  'media-spaces-create-channel',
  'media-spaces-delete-event',
  'media-spaces-schedule',
  'media-spaces-follow-job',
  'media-spaces-wait-workflow',
  'media-spaces-watch-workflows',
  'media-spaces-coordination',
  'media-spaces-as-run',
];

/** Debian's chromium; playwright never downloads a browser here. */
export const CHROMIUM_PATH = process.env.CHROMIUM_PATH || '/usr/bin/chromium';
export const CHROMIUM_ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

const NPM = process.platform === 'win32' ? 'npm.cmd' : 'npm';
const QUIET_NPM = ['--no-audit', '--no-fund', '--loglevel=error'];

/** A free TCP port on loopback (Node-RED wants a fixed one). */
export function freePort(host = '127.0.0.1') {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.on('error', reject);
    server.listen(0, host, () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

function run(cmd, args, opts = {}) {
  const result = spawnSync(cmd, args, { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024, ...opts });
  if (result.error) throw result.error;
  if (result.status !== 0) {
    throw new Error(`${cmd} ${args.join(' ')} exited ${result.status}\n${result.stdout}\n${result.stderr}`);
  }
  return result.stdout;
}

/**
 * `npm pack` of the project (dist/ must be built) into destDir.
 * Returns the tarball path and npm's report: files (path, size), size, unpackedSize.
 */
export function packTarball(root, destDir) {
  mkdirSync(destDir, { recursive: true });
  const out = run(NPM, ['pack', '--json', '--pack-destination', destDir, ...QUIET_NPM], { cwd: root });
  // npm may print lifecycle output before the JSON
  const report = JSON.parse(out.slice(out.indexOf('['))).at(0);
  const tarball = join(destDir, report.filename);
  return { tarball, report, bytes: statSync(tarball).size };
}

/**
 * A Node-RED user directory holding the tarball installed the way a user
 * installs it (`npm install <tarball>`; dependencies from the registry or
 * npm's cache), and a settings.js for unattended runs.
 */
export function prepareUserDir(userDir, { tarball, npmEnv, settings = {} } = {}) {
  rmSync(userDir, { recursive: true, force: true });
  mkdirSync(userDir, { recursive: true });
  writeFileSync(join(userDir, 'package.json'), JSON.stringify({ name: 'node-red-userdir', private: true }, null, 2));
  writeSettings(userDir, settings);
  if (tarball) {
    run(NPM, ['install', tarball, '--no-save', '--no-package-lock', '--prefer-offline', ...QUIET_NPM], {
      cwd: userDir,
      env: npmEnv ?? process.env,
    });
  }
}

/** settings.js: loopback only, readable credentials (so tests can preset them), no tours, no tips, no network. */
export function writeSettings(userDir, { flowFile = 'flows.json', extra = '' } = {}) {
  writeFileSync(
    join(userDir, 'settings.js'),
    `module.exports = {
  uiHost: '127.0.0.1',
  credentialSecret: false,
  flowFile: ${JSON.stringify(flowFile)},
  logging: { console: { level: 'info', metrics: false, audit: false } },
  editorTheme: { tours: false, palette: { catalogues: [] } },
  diagnostics: { enabled: false },
  telemetry: { enabled: false },
  externalModules: { autoInstall: false, palette: { allowInstall: false } },
${extra}};
`,
  );
  // Node-RED's info tips: its first tip is set 1 s after the editor starts, and on a slow load before the Info
  // sidebar that holds it exists ("Cannot read properties of undefined (reading 'html')" in the page, which
  // the tests' no-script-error checks catch). Off for the anonymous user, as the View settings would set it.
  writeFileSync(
    join(userDir, '.config.users.json'),
    JSON.stringify({ _: { editor: { view: { 'view-show-tips': false } } } }, null, 2),
  );
}

/**
 * Starts Node-RED (`node red.js --userDir --port`) and resolves once the
 * editor answers and the flows have started. `log()` is everything it
 * printed so far; `stop()` ends it (SIGINT, then SIGKILL after 5 s).
 */
export async function startNodeRed({ nodeBin = process.execPath, redJs, userDir, port, env, timeoutMs = 60_000 }) {
  port = port ?? (await freePort());
  const child = spawn(nodeBin, [redJs, '--userDir', userDir, '--port', String(port)], {
    cwd: userDir,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (c) => {
    output += c.toString();
  });
  child.stderr.on('data', (c) => {
    output += c.toString();
  });
  const exited = new Promise((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
  const url = `http://127.0.0.1:${port}`;
  const handle = {
    url,
    port,
    pid: child.pid,
    log: () => output,
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill('SIGINT');
      const timer = new Promise((r) => setTimeout(r, 5000).unref());
      await Promise.race([exited, timer]);
      if (child.exitCode === null && child.signalCode === null) {
        child.kill('SIGKILL');
        await exited;
      }
    },
  };
  const deadline = Date.now() + timeoutMs;
  let ended = null;
  exited.then((e) => {
    ended = e;
  });
  while (!/Started flows|Stopped flows|flows stopped/i.test(output) || !(await answers(url))) {
    if (ended) throw new Error(`Node-RED exited (${JSON.stringify(ended)}) before it was ready:\n${output}`);
    if (Date.now() > deadline) {
      await handle.stop();
      throw new Error(`Node-RED did not start within ${timeoutMs} ms:\n${output}`);
    }
    await sleep(200);
  }
  return handle;
}

async function answers(url) {
  try {
    const res = await fetch(`${url}/settings`, { signal: AbortSignal.timeout(2000) });
    return res.ok;
  } catch {
    return false;
  }
}

export function sleep(ms) {
  return new Promise((r) => setTimeout(r, ms));
}

/** Polls fn until it returns a truthy value (which it resolves to) or the time is up. */
export async function waitFor(fn, { timeoutMs = 15_000, intervalMs = 200, what = 'condition' } = {}) {
  const deadline = Date.now() + timeoutMs;
  let last;
  for (;;) {
    try {
      const value = await fn();
      if (value) return value;
    } catch (e) {
      last = e;
    }
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}${last ? `: ${last.message}` : ''}`);
    await sleep(intervalMs);
  }
}

/** Node-RED's admin API: JSON in, JSON out. */
export async function adminApi(baseUrl, method, path, body, headers = {}) {
  const res = await fetch(`${baseUrl}${path}`, {
    method,
    headers: { Accept: 'application/json', ...(body ? { 'Content-Type': 'application/json' } : {}), ...headers },
    body: body ? JSON.stringify(body) : undefined,
  });
  const text = await res.text();
  let json;
  try {
    json = text ? JSON.parse(text) : undefined;
  } catch {
    json = undefined;
  }
  return { status: res.status, json, text };
}

/** Lines of a Node-RED log at [warn] or [error] level. */
export function problemLines(log) {
  return log.split('\n').filter((l) => /\[(warn|error)\]/.test(l));
}

/** A JSON file, parsed. */
export function readJson(path) {
  return JSON.parse(readFileSync(path, 'utf8'));
}

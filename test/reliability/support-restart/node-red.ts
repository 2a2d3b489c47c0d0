import { type ChildProcess, spawn } from 'node:child_process';
import { mkdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { createServer } from 'node:net';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * A real Node-RED process for the restart and security suites: a user
 * directory with this package symlinked into node_modules (as
 * scripts/demo-userdir.cjs builds it), preset plaintext credentials, a
 * settings.js of the suite's choosing, and `node red.js --userDir --port`
 * spawned on loopback. Everything it prints is kept, line by line, with the
 * wall-clock time each line arrived.
 */

const require = createRequire(import.meta.url);
export const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');
// another Node-RED and Node for a run (the sidebar's screenshots in Node-RED 4.1 on Node 20, say); the dev dependencies otherwise
export const RED_JS = process.env.NODE_RED_JS || require.resolve('node-red/red.js');
const NODE_BIN = process.env.NODE_RED_NODE || process.execPath;

export type FlowNode = Record<string, unknown> & { id: string; type: string };

export interface UserDirOptions {
  dir: string;
  flows: FlowNode[];
  /** Node id -> credentials, written in plaintext (credentialSecret false). */
  credentials?: Record<string, Record<string, string>>;
  /** Extra settings.js properties, as JavaScript source (each line ending in a comma). */
  settings?: string;
  /** Console log level (default info). */
  logLevel?: 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace';
  /** Audit events (admin API access) in the log too (default off). */
  audit?: boolean;
  /** Context store settings (default: localfilesystem flushed every second). */
  contextStorage?: string;
  /** The package Node-RED loads (default: this checkout, as built); an older build for an upgrade. */
  packageDir?: string;
}

export const FILE_CONTEXT = `{ default: { module: 'localfilesystem', config: { flushInterval: 1 } } }`;

export function prepareUserDir(options: UserDirOptions): void {
  const { dir } = options;
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(join(dir, 'node_modules', '@media-spaces'), { recursive: true });
  usePackage(dir, options.packageDir ?? ROOT);
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: 'media-spaces-reliability', private: true }));
  writeFlows(dir, options.flows, options.credentials ?? {});
  writeFileSync(
    join(dir, 'settings.js'),
    `module.exports = {
  uiHost: '127.0.0.1',
  credentialSecret: false,
  flowFile: 'flows.json',
  contextStorage: ${options.contextStorage ?? FILE_CONTEXT},
  logging: { console: { level: ${JSON.stringify(options.logLevel ?? 'info')}, metrics: false, audit: ${options.audit === true} } },
  editorTheme: { tours: false, palette: { catalogues: [] } },
  diagnostics: { enabled: false },
  telemetry: { enabled: false },
  externalModules: { autoInstall: false, palette: { allowInstall: false } },
${options.settings ?? ''}};
`,
  );
}

/** Points the user directory's `@media-spaces/node-red` at a package directory (an upgrade swaps it). */
export function usePackage(userDir: string, packageDir: string): void {
  const link = join(userDir, 'node_modules', '@media-spaces', 'node-red');
  rmSync(link, { force: true });
  symlinkSync(packageDir, link, 'dir');
}

export function writeFlows(dir: string, flows: FlowNode[], credentials: Record<string, Record<string, string>>): void {
  writeFileSync(join(dir, 'flows.json'), JSON.stringify(flows, null, 2));
  writeFileSync(join(dir, 'flows_cred.json'), JSON.stringify(credentials, null, 2));
}

/** A free TCP port on loopback (Node-RED wants a fixed one). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

export interface LogLine {
  at: number;
  stream: 'stdout' | 'stderr';
  text: string;
}

export interface NodeRedProcess {
  readonly url: string;
  readonly port: number;
  readonly pid: number;
  /** Wall-clock time the process was spawned. */
  readonly spawnedAt: number;
  /** Wall-clock time "Started flows" was printed. */
  readonly startedAt: number;
  readonly child: ChildProcess;
  lines(): LogLine[];
  /** Everything printed so far, stdout and stderr interleaved. */
  output(): string;
  /** SIGKILL: no close handlers, no context flush. Resolves once the process is gone. */
  kill(): Promise<void>;
  /** SIGINT (or the signal given: SIGTERM, as a service manager stops it), then SIGKILL after 5 s. */
  stop(signal?: 'SIGINT' | 'SIGTERM'): Promise<void>;
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

export async function startNodeRed(options: {
  userDir: string;
  port?: number;
  env?: Record<string, string>;
  timeoutMs?: number;
}): Promise<NodeRedProcess> {
  const port = options.port ?? (await freePort());
  const spawnedAt = Date.now();
  const child = spawn(NODE_BIN, [RED_JS, '--userDir', options.userDir, '--port', String(port)], {
    cwd: options.userDir,
    env: { ...process.env, ...options.env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const lines: LogLine[] = [];
  let startedAt = 0;
  for (const stream of ['stdout', 'stderr'] as const) {
    let rest = '';
    child[stream]?.on('data', (chunk: Buffer) => {
      const now = Date.now();
      const parts = (rest + chunk.toString('utf8')).split('\n');
      rest = parts.pop() ?? '';
      for (const text of parts) {
        lines.push({ at: now, stream, text });
        if (startedAt === 0 && /Started flows/.test(text)) startedAt = now;
      }
    });
    child[stream]?.on('end', () => {
      if (rest !== '') lines.push({ at: Date.now(), stream, text: rest });
      rest = '';
    });
  }
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once('exit', (code, signal) => resolve({ code, signal })),
  );
  let ended: { code: number | null; signal: NodeJS.Signals | null } | undefined;
  exited.then((e) => {
    ended = e;
  });
  const output = () => lines.map((l) => l.text).join('\n');
  const gone = () => child.exitCode !== null || child.signalCode !== null;
  const handle: NodeRedProcess = {
    url: `http://127.0.0.1:${port}`,
    port,
    pid: child.pid ?? 0,
    spawnedAt,
    get startedAt() {
      return startedAt;
    },
    child,
    lines: () => lines,
    output,
    exited,
    async kill() {
      if (!gone()) child.kill('SIGKILL');
      await exited;
    },
    async stop(signal = 'SIGINT') {
      if (gone()) return;
      child.kill(signal);
      await Promise.race([exited, sleep(5000)]);
      if (!gone()) child.kill('SIGKILL');
      await exited;
    },
  };
  const deadline = Date.now() + (options.timeoutMs ?? 60_000);
  while (startedAt === 0 || !(await answers(handle.url))) {
    if (ended) throw new Error(`Node-RED exited (${JSON.stringify(ended)}) before it was ready:\n${output()}`);
    if (Date.now() > deadline) {
      await handle.kill();
      throw new Error(`Node-RED did not start in time:\n${output()}`);
    }
    await sleep(50);
  }
  return handle;
}

async function answers(url: string): Promise<boolean> {
  try {
    const res = await fetch(`${url}/settings`, { signal: AbortSignal.timeout(2000) });
    await res.arrayBuffer();
    return res.status < 500;
  } catch {
    return false;
  }
}

/** Polls fn until it returns a truthy value or the time is up. */
export async function waitFor<T>(
  fn: () => T | Promise<T>,
  what: string,
  { timeoutMs = 20_000, intervalMs = 50 } = {},
): Promise<NonNullable<T>> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await fn();
    if (value) return value as NonNullable<T>;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await sleep(intervalMs);
  }
}

/** JSON over HTTP to Node-RED's admin API (or anything else). */
export async function httpJson(
  url: string,
  init: { method?: string; body?: unknown; token?: string; headers?: Record<string, string> } = {},
): Promise<{ status: number; json: unknown; text: string }> {
  const headers: Record<string, string> = { accept: 'application/json', ...init.headers };
  if (init.body !== undefined) headers['content-type'] = 'application/json';
  if (init.token) headers.authorization = `Bearer ${init.token}`;
  const res = await fetch(url, {
    method: init.method ?? 'GET',
    headers,
    body: init.body === undefined ? undefined : JSON.stringify(init.body),
  });
  const text = await res.text();
  let json: unknown;
  try {
    json = text ? JSON.parse(text) : undefined;
  } catch {
    json = undefined;
  }
  return { status: res.status, json, text };
}

import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';

/**
 * A real redis-server (Debian's binary) on a free loopback port with its own
 * temp dir. It can be stopped and started again on the same port and dir,
 * with or without persistence, to test what a restart does to the data.
 */
export interface RedisServerOptions {
  /** `none` (default): data is lost on restart; `aof`: append-only file, kept across restarts. */
  persistence?: 'none' | 'aof';
  /** `requirepass` for the default user. */
  password?: string;
  /** An ACL user with every permission. */
  user?: { name: string; password: string };
}

export class RedisServer {
  readonly port: number;
  readonly dir: string;
  #options: RedisServerOptions;
  #child: ChildProcess | undefined;

  private constructor(port: number, dir: string, options: RedisServerOptions) {
    this.port = port;
    this.dir = dir;
    this.#options = options;
  }

  static async start(options: RedisServerOptions = {}): Promise<RedisServer> {
    const server = new RedisServer(await freePort(), mkdtempSync(path.join(tmpdir(), 'ms-redis-')), options);
    await server.start();
    return server;
  }

  /** A server on a port chosen earlier (e.g. one a client already tries in vain). */
  static async startOnPort(port: number, options: RedisServerOptions = {}): Promise<RedisServer> {
    const server = new RedisServer(port, mkdtempSync(path.join(tmpdir(), 'ms-redis-')), options);
    await server.start();
    return server;
  }

  /** SIGSTOP: the socket stays open but nothing answers, like a hung host. */
  pause(): void {
    this.#child?.kill('SIGSTOP');
  }

  resume(): void {
    this.#child?.kill('SIGCONT');
  }

  get url(): string {
    return `redis://127.0.0.1:${this.port}`;
  }

  get running(): boolean {
    return this.#child !== undefined;
  }

  async start(options?: RedisServerOptions): Promise<void> {
    if (this.#child) throw new Error('redis-server is already running');
    if (options) this.#options = options;
    const { persistence = 'none', password, user } = this.#options;
    const args = [
      '--port',
      String(this.port),
      '--bind',
      '127.0.0.1',
      '--dir',
      this.dir,
      '--save',
      '',
      '--appendonly',
      persistence === 'aof' ? 'yes' : 'no',
      '--appendfsync',
      'always',
      '--daemonize',
      'no',
      '--loglevel',
      'notice',
      '--logfile',
      '',
    ];
    if (password) args.push('--requirepass', password);
    if (user) args.push('--user', user.name, 'on', `>${user.password}`, '~*', '&*', '+@all');
    const child = spawn('redis-server', args, { stdio: ['ignore', 'pipe', 'pipe'] });
    this.#child = child;
    await new Promise<void>((resolve, reject) => {
      let output = '';
      const timer = setTimeout(() => fail(new Error(`redis-server did not start within 10 s: ${output}`)), 10_000);
      const onData = (chunk: Buffer) => {
        output += chunk.toString();
        if (/Ready to accept connections/.test(output)) {
          clearTimeout(timer);
          resolve();
        }
      };
      const fail = (err: Error) => {
        clearTimeout(timer);
        this.#child = undefined;
        child.kill('SIGKILL');
        reject(err);
      };
      child.stdout?.on('data', onData);
      child.stderr?.on('data', onData);
      child.once('exit', (code) => fail(new Error(`redis-server exited with ${code}: ${output}`)));
      child.once('error', fail);
    });
    child.removeAllListeners('exit');
  }

  /** SIGTERM, as an operator's restart would; with `--save ''` and no AOF nothing survives. */
  async stop(): Promise<void> {
    const child = this.#child;
    if (!child) return;
    this.#child = undefined;
    await new Promise<void>((resolve) => {
      child.once('exit', () => resolve());
      child.kill('SIGTERM');
    });
  }

  /** Stops and starts again on the same port and dir, with new options if given. */
  async restart(options?: RedisServerOptions): Promise<void> {
    await this.stop();
    await this.start(options);
  }

  /** A command through redis-cli, as an operator would type it (e.g. FLUSHALL). */
  async cli(...command: string[]): Promise<string> {
    const auth = this.#options.password ? ['-a', this.#options.password, '--no-auth-warning'] : [];
    const child = spawn('redis-cli', ['-h', '127.0.0.1', '-p', String(this.port), ...auth, ...command], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    child.stdout.on('data', (c: Buffer) => {
      out += c.toString();
    });
    child.stderr.on('data', (c: Buffer) => {
      out += c.toString();
    });
    await new Promise((resolve) => child.once('exit', resolve));
    return out.trim();
  }

  async dispose(): Promise<void> {
    await this.stop();
    rmSync(this.dir, { recursive: true, force: true });
  }
}

/** A port nothing listens on right now (for "refused" tests and for servers). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

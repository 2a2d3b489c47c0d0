import { type ChildProcess, spawn } from 'node:child_process';
import { copyFileSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { freePort } from './redis-server';

export const PROMETHEUS_DOCS = path.join(__dirname, '..', '..', 'docs', 'prometheus');

/**
 * Debian's prometheus on a loopback port, run with the scrape config and
 * alerting rules shipped in docs/prometheus/ (prometheus-admin-auth.yml with
 * a token, prometheus.yml without), changed only where a test must: the
 * target, the token file, and 1 s intervals instead of 15 s.
 */
export class PrometheusServer {
  private constructor(
    readonly url: string,
    readonly dir: string,
    private readonly child: ChildProcess,
    private readonly output: () => string,
  ) {}

  static async start(dir: string, target: string, token?: string): Promise<PrometheusServer> {
    rmSync(dir, { recursive: true, force: true });
    mkdirSync(dir, { recursive: true });
    const shipped = token === undefined ? 'prometheus.yml' : 'prometheus-admin-auth.yml';
    const config = readFileSync(path.join(PROMETHEUS_DOCS, shipped), 'utf8')
      .replace(/(scrape_interval|evaluation_interval): 15s/g, '$1: 1s')
      .replace("targets: ['127.0.0.1:1880']", `targets: ['${target}']`);
    if (!config.includes(target)) throw new Error(`docs/prometheus/${shipped} no longer has the target line`);
    writeFileSync(path.join(dir, 'prometheus.yml'), config);
    copyFileSync(path.join(PROMETHEUS_DOCS, 'media-spaces-alerts.yml'), path.join(dir, 'media-spaces-alerts.yml'));
    if (token !== undefined) writeFileSync(path.join(dir, 'node-red.token'), token);
    const port = await freePort();
    const child = spawn(
      'prometheus',
      [
        `--config.file=${path.join(dir, 'prometheus.yml')}`,
        `--storage.tsdb.path=${path.join(dir, 'data')}`,
        `--web.listen-address=127.0.0.1:${port}`,
      ],
      { cwd: dir, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let out = '';
    child.stdout?.on('data', (c: Buffer) => {
      out += c.toString();
    });
    child.stderr?.on('data', (c: Buffer) => {
      out += c.toString();
    });
    const server = new PrometheusServer(`http://127.0.0.1:${port}`, dir, child, () => out);
    const deadline = Date.now() + 30_000;
    for (;;) {
      if (child.exitCode !== null) throw new Error(`prometheus exited: ${out}`);
      try {
        if ((await fetch(`${server.url}/-/ready`)).ok) break;
      } catch {
        // not listening yet
      }
      if (Date.now() > deadline) throw new Error(`prometheus not ready: ${out}`);
      await new Promise((r) => setTimeout(r, 100));
    }
    return server;
  }

  /** An instant query through the HTTP API: the vector's samples as label sets with numeric values. */
  async query(expr: string): Promise<{ metric: Record<string, string>; value: number }[]> {
    const res = await fetch(`${this.url}/api/v1/query?query=${encodeURIComponent(expr)}`);
    const body = (await res.json()) as {
      data: { result: { metric: Record<string, string>; value: [number, string] }[] };
    };
    return body.data.result.map((r) => ({ metric: r.metric, value: Number(r.value[1]) }));
  }

  async alerts(): Promise<{ labels: Record<string, string>; state: string }[]> {
    const res = await fetch(`${this.url}/api/v1/alerts`);
    return ((await res.json()) as { data: { alerts: { labels: Record<string, string>; state: string }[] } }).data
      .alerts;
  }

  async targets(): Promise<{ health: string; lastError: string }[]> {
    const res = await fetch(`${this.url}/api/v1/targets`);
    return ((await res.json()) as { data: { activeTargets: { health: string; lastError: string }[] } }).data
      .activeTargets;
  }

  log(): string {
    return this.output();
  }

  async stop(): Promise<void> {
    if (this.child.exitCode !== null) return;
    const exited = new Promise((r) => this.child.once('exit', r));
    this.child.kill('SIGTERM');
    await exited;
    rmSync(this.dir, { recursive: true, force: true });
  }
}

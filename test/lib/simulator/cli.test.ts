import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const ROOT = path.join(__dirname, '..', '..', '..');
const OUT = path.join(__dirname, '..', '..', '.tmp', 'simulator-cli');
const CLI = path.join(OUT, 'lib', 'simulator', 'cli.js');
const DIST_CLI = path.join(ROOT, 'dist', 'lib', 'simulator', 'cli.js');

/**
 * Compiles the CLI and everything it imports to CommonJS in a private
 * folder, the way `npm run build` lays out dist/ (fixtures copied next to the
 * code). Building privately keeps this file independent of other suites that
 * read dist/ while tests run in parallel, and it always tests the current source.
 */
function buildCli(): void {
  rmSync(OUT, { recursive: true, force: true });
  const pending = [path.join(ROOT, 'lib', 'simulator', 'cli.ts')];
  const done = new Set<string>();
  while (pending.length > 0) {
    const file = pending.pop()!;
    if (done.has(file)) continue;
    done.add(file);
    const source = readFileSync(file, 'utf8');
    for (const ref of ts.preProcessFile(source, true, true).importedFiles) {
      if (ref.fileName.startsWith('.')) pending.push(path.resolve(path.dirname(file), `${ref.fileName}.ts`));
    }
    const js = ts.transpileModule(source, {
      compilerOptions: { module: ts.ModuleKind.CommonJS, target: ts.ScriptTarget.ES2022, esModuleInterop: true },
      fileName: file,
    }).outputText;
    const target = path.join(OUT, path.relative(ROOT, file)).replace(/\.ts$/, '.js');
    mkdirSync(path.dirname(target), { recursive: true });
    writeFileSync(target, js);
  }
  const fixtures = path.join(ROOT, 'lib', 'simulator', 'fixtures');
  for (const f of readdirSync(fixtures)) {
    cpSync(path.join(fixtures, f), path.join(OUT, 'lib', 'simulator', 'fixtures', f));
  }
}

const children: ChildProcess[] = [];

/** Starts the CLI and resolves with everything printed up to `until`. */
function start(cli: string, args: string[], until: (out: string) => boolean) {
  const child = spawn(process.execPath, [cli, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  children.push(child);
  let out = '';
  let err = '';
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  const ready = new Promise<string>((resolve, reject) => {
    child.stdout!.on('data', (d) => {
      out += d;
      if (until(out)) resolve(out);
    });
    child.stderr!.on('data', (d) => {
      err += d;
    });
    exited.then((code) => reject(new Error(`exited with ${code} before it was ready: ${err}`)));
  });
  return { child, ready, exited, stderr: () => err };
}

const run = (args: string[]) => spawnSync(process.execPath, [CLI, ...args], { encoding: 'utf8', timeout: 15_000 });

beforeAll(() => buildCli());
afterAll(() => {
  for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
});

describe('media-spaces-sim CLI', () => {
  it('starts with the exact shebang the package bin needs', () => {
    expect(readFileSync(path.join(ROOT, 'lib', 'simulator', 'cli.ts'), 'utf8').split('\n')[0]).toBe(
      '#!/usr/bin/env node',
    );
  });

  it('--json prints the info object as its first line, serves it, and exits 0 on SIGTERM', async () => {
    const sim = start(CLI, ['--port', '0', '--json'], (out) => out.includes('\n'));
    const first = (await sim.ready).split('\n')[0];
    const info = JSON.parse(first);
    expect(Object.keys(info)).toEqual(['workflow_url', 'livecapture_url', 'admin_url', 'authorization_url', 'spaces']);
    expect(info.spaces[0]).toEqual({
      space_id: '11111111-1111-4111-8111-111111111111',
      subscription: 'active',
      api_keys: { admin: 'demo-admin-key', management: 'demo-management-key', access: 'demo-access-key' },
      access_token: 'demo-live-token',
    });
    const res = await fetch(`${info.workflow_url}/workflow/v1/${info.spaces[0].space_id}/workflows?max_results=2`, {
      headers: { authorization: `Bearer ${info.spaces[0].api_keys.access}` },
    });
    expect(res.status).toBe(200);
    expect(((await res.json()) as { workflows: unknown[] }).workflows).toHaveLength(2);
    sim.child.kill('SIGTERM');
    expect(await sim.exited).toBe(0);
  });

  it('prints URLs and credentials readably, and exits 0 on SIGINT', async () => {
    const sim = start(CLI, ['--port', '0', '--host', '127.0.0.1'], (out) => out.includes('Ctrl+C'));
    const out = await sim.ready;
    expect(out).toMatch(/workflow area\s+http:\/\/127\.0\.0\.1:\d+/);
    expect(out).toMatch(/admin API\s+http:\/\/127\.0\.0\.1:\d+\/__admin/);
    for (const s of [
      'demo-admin-key',
      'demo-management-key',
      'demo-access-key',
      'demo-live-token',
      'Newsroom (demo)',
    ]) {
      expect(out).toContain(s);
    }
    expect(out).toContain('subscription inactive');
    sim.child.kill('SIGINT');
    expect(await sim.exited).toBe(0);
  });

  it('uses --fixture', async () => {
    const file = path.join(OUT, 'one.yaml');
    writeFileSync(
      file,
      'spaces:\n  - space_id: 66666666-6666-4666-8666-666666666666\n    access_tokens: [cli-token]\n',
    );
    const sim = start(CLI, ['--json', '--port', '0', '--fixture', file], (out) => out.includes('\n'));
    const info = JSON.parse((await sim.ready).split('\n')[0]);
    expect(info.spaces).toEqual([
      {
        space_id: '66666666-6666-4666-8666-666666666666',
        subscription: 'active',
        api_keys: { admin: null, management: null, access: null },
        access_token: 'cli-token',
      },
    ]);
    sim.child.kill('SIGTERM');
    expect(await sim.exited).toBe(0);
  });

  it.each([
    [['--bogus'], /Unknown option '--bogus'/],
    [['--port', 'abc'], /--port must be a whole number/],
    [['--port', '70000'], /--port must be a whole number/],
    [['--port'], /--port/],
    [['extra'], /Unexpected argument 'extra'/],
  ])('exits 2 with a clear message for bad flags %j', (args, message) => {
    const r = run(args);
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(message);
    expect(r.stdout).toBe('');
  });

  it('--help prints usage and exits 0', () => {
    const r = run(['--help']);
    expect(r.status).toBe(0);
    expect(r.stdout).toMatch(/Usage: media-spaces-sim/);
    for (const flag of ['--port', '--host', '--fixture', '--json']) expect(r.stdout).toContain(flag);
  });

  it('exits 1 naming the problem when the fixture is invalid or the port is taken', async () => {
    const bad = path.join(OUT, 'bad.yaml');
    writeFileSync(bad, 'spaces:\n  - space_id: nope\n');
    const r = run(['--fixture', bad]);
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(/spaces\.0\.space_id/);

    const sim = start(CLI, ['--port', '0', '--json'], (out) => out.includes('\n'));
    const port = new URL(JSON.parse((await sim.ready).split('\n')[0]).workflow_url).port;
    const taken = run(['--port', port]);
    expect(taken.status).toBe(1);
    expect(taken.stderr).toMatch(/cannot start/);
    sim.child.kill('SIGTERM');
    expect(await sim.exited).toBe(0);
  });

  // After `npm run build` (npm test runs it first), the packaged bin itself is checked too.
  it.skipIf(!existsSync(DIST_CLI))('the built package bin in dist/ prints the same first line', async () => {
    const sim = start(DIST_CLI, ['--port', '0', '--json'], (out) => out.includes('\n'));
    const info = JSON.parse((await sim.ready).split('\n')[0]);
    expect(info.spaces.map((s: { space_id: string }) => s.space_id)).toEqual([
      '11111111-1111-4111-8111-111111111111',
      '22222222-2222-4222-8222-222222222222',
      '33333333-3333-4333-8333-333333333333',
    ]);
    sim.child.kill('SIGTERM');
    expect(await sim.exited).toBe(0);
  });
});

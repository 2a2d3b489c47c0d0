import { type ChildProcess, spawn } from 'node:child_process';
import { readdirSync, readFileSync, readlinkSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { freePort, waitFor } from '../scripts/e2e-lib.mjs';

/**
 * `npm start` as Docker, a supervisor or `kill <pid>` stop it: one signal to the npm process
 * only, never to its process group. Whatever the signal or whichever process dies, every
 * process of the tree ends and both ports are free again. Needs `dist/` (npm run build);
 * `--ignore-scripts` skips the prestart build, not the start script.
 */

const root = join(__dirname, '..');
const started: ChildProcess[] = [];
const demoDirs: string[] = [];

interface Demo {
  npm: ChildProcess;
  simPort: number;
  editorPort: number;
  output(): string;
}

async function startDemo(): Promise<Demo> {
  const [simPort, editorPort] = [await freePort(), await freePort()];
  const demoDir = join(root, 'test', '.tmp', `demo-signals-${process.pid}-${demoDirs.length}`);
  demoDirs.push(demoDir);
  // detached: a group of its own, so a signal the test sends reaches the npm process alone
  const npm = spawn('npm', ['start', '--ignore-scripts'], {
    cwd: root,
    env: { ...process.env, SIM_PORT: String(simPort), PORT: String(editorPort), DEMO_DIR: demoDir },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  started.push(npm);
  let out = '';
  npm.stdout?.on('data', (c) => {
    out += c;
  });
  npm.stderr?.on('data', (c) => {
    out += c;
  });
  const answers = async (url: string) => {
    try {
      return (await fetch(url)).status === 200;
    } catch {
      return false;
    }
  };
  await waitFor(
    async () =>
      (await answers(`http://127.0.0.1:${editorPort}/`)) && (await answers(`http://127.0.0.1:${simPort}/__admin/info`)),
    { timeoutMs: 40_000, what: 'the editor and the simulator to answer' },
  );
  return { npm, simPort, editorPort, output: () => out };
}

/** Pids of every live process below `pid` (Linux /proc), zombies left out: they are gone, only not yet reaped. */
function descendants(pid: number): Array<{ pid: number; name: string }> {
  const parentOf = new Map<number, { ppid: number; name: string; zombie: boolean }>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      // "pid (name) state ppid ...": the name may hold spaces and parentheses
      const close = stat.lastIndexOf(')');
      const [state, ppid] = stat.slice(close + 2).split(' ');
      parentOf.set(Number(entry), {
        ppid: Number(ppid),
        name: stat.slice(stat.indexOf('(') + 1, close),
        zombie: state === 'Z',
      });
    } catch {
      // exited while listed
    }
  }
  const found: Array<{ pid: number; name: string }> = [];
  const walk = (p: number) => {
    for (const [child, info] of parentOf) {
      if (info.ppid !== p) continue;
      if (!info.zombie) found.push({ pid: child, name: info.name });
      walk(child);
    }
  };
  walk(pid);
  return found;
}

function alive(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z';
  } catch {
    return false;
  }
}

function portFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}

/** Waits until every process of the tree has ended and both ports can be bound again. */
async function expectAllGone(demo: Demo, tree: number[]) {
  await waitFor(() => tree.every((p) => !alive(p)), {
    timeoutMs: 20_000,
    what: `every process of the tree (${tree.join(', ')}) to end\n${demo.output()}`,
  });
  expect(tree.filter(alive)).toEqual([]);
  // a listening socket is released as its process ends, but on a loaded machine the test can look
  // before the kernel has finished with it: both ports must come free within a few seconds
  for (const [name, port] of [
    ['simulator', demo.simPort],
    ['editor', demo.editorPort],
  ] as const) {
    await waitFor(() => portFree(port), { timeoutMs: 10_000, what: `the ${name} port ${port} to be free` }).catch(
      (e: Error) => {
        throw new Error(`${e.message}; held by ${holdersOf(port)}`);
      },
    );
  }
}

/** Who holds `port` on 127.0.0.1, from /proc: each socket's state and the process owning it (when it can be seen). */
function holdersOf(port: number): string {
  const hex = port.toString(16).toUpperCase().padStart(4, '0');
  const sockets = new Map<string, string>();
  for (const line of readFileSync('/proc/net/tcp', 'utf8').split('\n').slice(1)) {
    const f = line.trim().split(/\s+/);
    if (f.length > 9 && f[1].endsWith(`:${hex}`)) sockets.set(f[9], `state ${f[3]}`);
  }
  if (sockets.size === 0) return 'no socket seen in /proc/net/tcp';
  const owners: string[] = [];
  for (const pid of readdirSync('/proc').filter((e) => /^\d+$/.test(e))) {
    try {
      for (const fd of readdirSync(`/proc/${pid}/fd`)) {
        const inode = /^socket:\[(\d+)\]$/.exec(readlinkSync(`/proc/${pid}/fd/${fd}`))?.[1];
        if (inode && sockets.has(inode)) {
          const cmd = readFileSync(`/proc/${pid}/cmdline`, 'utf8').replaceAll('\0', ' ').trim();
          owners.push(`pid ${pid} (${cmd}) ${sockets.get(inode)}`);
          sockets.delete(inode);
        }
      }
    } catch {
      // exited or not ours to read
    }
  }
  return [...owners, ...[...sockets].map(([inode, state]) => `socket ${inode} ${state}, no owner seen`)].join('; ');
}

afterEach(() => {
  // a failed test must not leave its demo running: the whole group, as a last resort
  for (const npm of started.splice(0)) {
    try {
      if (npm.pid) process.kill(-npm.pid, 'SIGKILL');
    } catch {
      // already gone
    }
  }
});
afterAll(() => {
  for (const dir of demoDirs) rmSync(dir, { recursive: true, force: true, maxRetries: 3 });
});

describe('npm start ends everything', () => {
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    it(`on ${signal} to the npm process alone: no process and no port left behind`, async () => {
      const demo = await startDemo();
      const npmPid = demo.npm.pid as number;
      const below = descendants(npmPid);
      // npm, the demo process (the simulator runs in it) and Node-RED
      expect(below.map((p) => p.name)).toEqual(expect.arrayContaining(['node', 'node-red']));
      const exited = new Promise<number | null>((resolve) => demo.npm.once('exit', (code) => resolve(code)));
      process.kill(npmPid, signal);
      await expectAllGone(demo, [npmPid, ...below.map((p) => p.pid)]);
      expect(await exited).toBe(0);
    }, 90_000);
  }

  it('when Node-RED dies: the demo process and npm end, and the simulator port is free', async () => {
    const demo = await startDemo();
    const npmPid = demo.npm.pid as number;
    const below = descendants(npmPid);
    const nodeRed = below.find((p) => p.name === 'node-red');
    expect(nodeRed).toBeDefined();
    process.kill(nodeRed?.pid as number, 'SIGKILL');
    await expectAllGone(demo, [npmPid, ...below.map((p) => p.pid)]);
    expect(demo.output()).toMatch(/Node-RED exited .*stopping the simulator/);
  }, 90_000);

  it('when the demo process dies outright (SIGKILL): Node-RED stops by itself and npm ends', async () => {
    const demo = await startDemo();
    const npmPid = demo.npm.pid as number;
    const below = descendants(npmPid);
    const demoProcess = below.find((p) => p.name === 'node');
    expect(demoProcess).toBeDefined();
    process.kill(demoProcess?.pid as number, 'SIGKILL');
    await expectAllGone(demo, [npmPid, ...below.map((p) => p.pid)]);
  }, 90_000);
});

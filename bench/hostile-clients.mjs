// Measures the simulator under hostile clients, each case in a fresh simulator
// process (the CLI, default limits, demo fixture), and prints the figures:
//   drip   200 sockets that send a request line, then one header line a second:
//          seconds until the simulator has closed them all (408)
//   deep   submissions nested 2.4 million levels deep (4.8 MB): two under one
//          Idempotency-Key whose texts differ by a space, then four at once: statuses, RSS, peak RSS
//   stall  60 uploads announcing 5 MB - 1 B and stalling 1 KB short: statuses,
//          RSS while they stall and after they are closed, twice in one process
// Usage: npm run build && node bench/hostile-clients.mjs [--only drip,deep,stall]
//        [--cli path/to/cli.js] [--drip-cap seconds]
// Linux only (RSS is read from /proc). Not part of `npm run bench`.
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { parseArgs } from 'node:util';
import { DIST, sleep } from './lib/common.mjs';

const { values } = parseArgs({
  options: {
    only: { type: 'string', default: 'drip,deep,stall' },
    cli: { type: 'string', default: path.join(DIST, 'lib/simulator/cli.js') },
    'drip-cap': { type: 'string', default: '120' },
  },
});

const mb = (kb) => Math.round(kb / 1024);
/** Resident and peak resident set of a process, in MB. */
function memory(pid) {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (name) => Number(new RegExp(`^${name}:\\s+(\\d+) kB`, 'm').exec(status)?.[1]);
  return { rss: mb(kb('VmRSS')), peak: mb(kb('VmHWM')) };
}

async function startSim() {
  const child = spawn(process.execPath, [values.cli, '--port', '0', '--json'], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const line = await new Promise((resolve, reject) => {
    createInterface({ input: child.stdout }).once('line', resolve);
    child.once('exit', (code) => reject(new Error(`simulator exited with ${code}`)));
  });
  const info = JSON.parse(line);
  const url = new URL(info.workflow_url);
  const space = info.spaces.find((s) => s.subscription === 'active' && s.api_keys.admin);
  await sleep(500);
  return { child, port: Number(url.port), info, space };
}

/** A client that keeps its side open after the server ends its own, as a hostile one would. */
function connect(port) {
  const socket = net.connect({ port, host: '127.0.0.1', allowHalfOpen: true });
  const state = { socket, text: '', closed: false, closedAt: 0 };
  socket.setEncoding('latin1');
  socket.on('data', (d) => {
    state.text += d;
  });
  socket.on('error', () => {});
  socket.on('close', () => {
    state.closed = true;
    state.closedAt = performance.now();
  });
  return state;
}
const statusOf = (s) => /^HTTP\/1\.1 (\d{3})/.exec(s.text)?.[1] ?? (s.closed ? 'closed' : 'open');
const tally = (states) => {
  const counts = {};
  for (const s of states) counts[statusOf(s)] = (counts[statusOf(s)] ?? 0) + 1;
  return counts;
};

async function firstWorkflow(sim) {
  const res = await fetch(`${sim.info.workflow_url}/workflow/v1/${sim.space.space_id}/workflows?status=active`, {
    headers: { authorization: `Bearer ${sim.space.api_keys.admin}` },
  });
  return (await res.json()).workflows[0].id;
}

async function drip() {
  const sim = await startSim();
  const cap = Number(values['drip-cap']) * 1000;
  const t0 = performance.now();
  const sockets = Array.from({ length: 200 }, () => connect(sim.port));
  for (const s of sockets) s.socket.write('GET / HTTP/1.1\r\nHost: sim\r\n');
  const timer = setInterval(() => {
    for (const s of sockets) if (!s.closed) s.socket.write('X-Drip: a\r\n');
  }, 1000);
  while (performance.now() - t0 < cap && sockets.some((s) => !s.closed)) await sleep(250);
  clearInterval(timer);
  const open = sockets.filter((s) => !s.closed).length;
  const last = Math.max(...sockets.filter((s) => s.closed).map((s) => s.closedAt), t0);
  console.log(
    `drip: 200 sockets; ${200 - open} closed by the simulator, the last after ${((last - t0) / 1000).toFixed(1)} s; ` +
      `${open} still open after ${((performance.now() - t0) / 1000).toFixed(0)} s; answers ${JSON.stringify(tally(sockets))}`,
  );
  for (const s of sockets) s.socket.destroy();
  sim.child.kill();
}

async function deep() {
  const sim = await startSim();
  const workflow = await firstWorkflow(sim);
  const depth = 2_400_000;
  const body = `{"job_name":"x","usage":${'['.repeat(depth)}${']'.repeat(depth)}}`;
  const before = memory(sim.child.pid);
  // the second text differs by a space, so the key's two bodies are compared canonically
  const spaced = body.replace('"usage":', '"usage": ');
  const post = (key, text = body) =>
    fetch(`${sim.info.workflow_url}/workflow/v1/${sim.space.space_id}/workflows/${workflow}/jobs`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${sim.space.api_keys.admin}`,
        'content-type': 'application/json',
        'idempotency-key': key,
      },
      body: text,
    }).then(async (r) => {
      await r.arrayBuffer();
      return r.status;
    });
  const twice = [await post('deep-1'), await post('deep-1', spaced)];
  const afterOne = memory(sim.child.pid);
  const four = await Promise.all([post('deep-2'), post('deep-3'), post('deep-4'), post('deep-5')]);
  const afterFour = memory(sim.child.pid);
  console.log(
    `deep: ${(body.length / 1e6).toFixed(1)} MB body nested ${depth.toLocaleString('en-US')} levels; ` +
      `RSS ${before.rss} MB before; one key sent twice (texts differing by a space) -> ${twice.join(', ')}, RSS ${afterOne.rss} MB (peak ${afterOne.peak}); ` +
      `4 at once -> ${four.join(', ')}, RSS ${afterFour.rss} MB (peak ${afterFour.peak})`,
  );
  sim.child.kill();
}

async function stall() {
  const sim = await startSim();
  const workflow = await firstWorkflow(sim);
  const announced = 5 * 1024 * 1024 - 1;
  const round = async () => {
    const sockets = [];
    for (let i = 0; i < 60; i++) {
      const s = connect(sim.port);
      s.socket.write(
        `POST /workflow/v1/${sim.space.space_id}/workflows/${workflow}/jobs HTTP/1.1\r\nHost: sim\r\n` +
          `Authorization: Bearer ${sim.space.api_keys.admin}\r\nContent-Type: application/json\r\n` +
          `Content-Length: ${announced}\r\n\r\n"`,
      );
      s.socket.write('x'.repeat(announced - 1024));
      sockets.push(s);
    }
    // until every upload has left the client (the simulator has read it, bar kernel buffers), then a second more
    for (
      let waited = 0;
      waited < 60_000 && sockets.some((s) => !s.closed && s.socket.writableLength > 0);
      waited += 100
    ) {
      await sleep(100);
    }
    await sleep(1000);
    const stalled = memory(sim.child.pid);
    const answers = tally(sockets);
    for (const s of sockets) s.socket.destroy();
    await sleep(3000);
    return { answers, stalled, closed: memory(sim.child.pid) };
  };
  const before = memory(sim.child.pid);
  // the second round shows whether the first one's bytes were given back (RSS stays) or kept (RSS grows)
  for (const n of [1, 2]) {
    const { answers, stalled, closed } = await round();
    console.log(
      `stall round ${n}: 60 uploads of ${announced.toLocaleString('en-US')} B stalled 1 KB short; answers ${JSON.stringify(answers)}; ` +
        `RSS ${before.rss} MB at start, ${stalled.rss} MB while stalled (peak ${stalled.peak}), ${closed.rss} MB 3 s after they closed`,
    );
  }
  sim.child.kill();
}

const cases = { drip, deep, stall };
console.log(`simulator: ${values.cli}`);
for (const name of values.only.split(',')) await cases[name]();

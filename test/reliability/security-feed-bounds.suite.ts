import { createReadStream, createWriteStream, mkdtempSync, rmSync, statSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { createGzip } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  httpJson,
  type NodeRedProcess,
  prepareUserDir,
  sleep,
  startNodeRed,
  waitFor,
} from './support-restart/node-red';

/**
 * A bad guide is a stale feed, never a dead runtime. A real Node-RED runs a
 * schedule with two guide windows whose addresses are a loopback HTTP server
 * serving gzip bodies (application/gzip, no Content-Encoding: gzip is told by
 * the bytes):
 * - `bomb`: 256 KB that inflate to 256 MB of nested elements. Before the
 *   guides were bounded this ran Node-RED out of heap ("JavaScript heap out of
 *   memory") at its first read;
 * - `heavy`: a guide of 15,000 programmes, each with a desc of 16 K characters
 *   (the desc cap) held as two bytes a character, 246 MB once gunzipped (under
 *   the 256 MB cap) and within every per-element limit: the 10,000 kept and
 *   those waiting to be trimmed need more heap than a guide reader has.
 * Throughout, `/settings` answers in under 1 s; both windows are warned of as
 * stale with the reason; Test feed on the deployed bomb window says why it
 * cannot be read; the process is still up and never printed an out of memory.
 */

const SCHEDULE = 'bounds0sched0001';
const MB = 1024 * 1024;
const DAY = 86_400_000;

let server: Server;
let base = '';
let red: NodeRedProcess;
const dir = mkdtempSync(join(tmpdir(), 'ms-feed-bounds-'));
const userDir = join(dir, 'user');
const probes: number[] = [];
let probing = true;
let probeLoop: Promise<void> | undefined;

function xmltv(t: number): string {
  return `${new Date(t).toISOString().replace(/[-:T]/g, '').slice(0, 14)} +0000`;
}

async function writeGzip(file: string, parts: Iterable<Buffer | string>): Promise<number> {
  await pipeline(Readable.from(parts), createGzip({ level: 9 }), createWriteStream(file));
  return statSync(file).size;
}

function* bomb(): Generator<Buffer> {
  yield Buffer.from('<?xml version="1.0" encoding="UTF-8"?>\n<tv>');
  const block = Buffer.alloc(MB - (MB % 3), '<a>');
  for (let n = 0; n < 256 * MB; n += block.length) yield block;
}

function* heavy(): Generator<string> {
  yield '<?xml version="1.0" encoding="UTF-8"?>\n<tv>\n<channel id="c1"><display-name>One</display-name></channel>\n';
  const from = Math.floor(Date.now() / DAY) * DAY + DAY;
  // one character outside Latin-1 makes V8 hold the whole desc as two bytes a character: 32 KB each
  const desc = `€${'d'.repeat(16 * 1024 - 1)}`;
  for (let i = 0; i < 15_000; i++) {
    const start = from + i * 30_000;
    yield `<programme start="${xmltv(start)}" stop="${xmltv(start + 30_000)}" channel="c1"><title>P${i}</title><desc>${desc}</desc></programme>\n`;
  }
  yield '</tv>\n';
}

async function probeSettings(): Promise<void> {
  while (probing) {
    const started = Date.now();
    try {
      const res = await fetch(`${red.url}/settings`, { signal: AbortSignal.timeout(10_000) });
      await res.arrayBuffer();
    } catch {
      // a refused or timed-out probe counts as its time: 10 s
    }
    probes.push(Date.now() - started);
    await sleep(200);
  }
}

describe('a guide that inflates to 256 MB of nesting, and one that needs more heap than its reader', () => {
  beforeAll(async () => {
    const sizes = {
      bomb: await writeGzip(join(dir, 'bomb.xml.gz'), bomb()),
      heavy: await writeGzip(join(dir, 'heavy.xml.gz'), heavy()),
    };
    expect(sizes.bomb).toBeLessThan(600 * 1024);
    server = createServer((req, res) => {
      const name = (req.url ?? '').slice(1);
      if (name !== 'bomb.xml.gz' && name !== 'heavy.xml.gz') {
        res.writeHead(404).end();
        return;
      }
      res.writeHead(200, { 'content-type': 'application/gzip' });
      createReadStream(join(dir, name)).pipe(res);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    prepareUserDir({
      dir: userDir,
      flows: [
        { id: 'bounds0tab000001', type: 'tab', label: 'bounds', disabled: false, info: '' },
        {
          id: SCHEDULE,
          type: 'media-spaces-schedule',
          z: 'bounds0tab000001',
          name: 'guides',
          source: 'editor',
          windows: [
            { id: 'bomb', xmltv: `${base}/bomb.xml.gz` },
            { id: 'heavy', xmltv: `${base}/heavy.xml.gz` },
          ],
          timezone: 'Europe/London',
          wires: [[], [], []],
        },
      ],
    });
    red = await startNodeRed({ userDir });
    probeLoop = probeSettings();
  }, 180_000);

  afterAll(async () => {
    probing = false;
    await probeLoop;
    await red?.stop();
    await new Promise((resolve) => server?.close(resolve));
    rmSync(dir, { recursive: true, force: true });
  });

  it('Node-RED stays up and answers within 1 s; each window is warned of as stale, with why', async () => {
    const warned = (id: string) =>
      red
        .lines()
        .map((l) => l.text)
        .find((t) => t.includes(`window "${id}": the feed is stale:`));
    const bombLine = await waitFor(() => warned('bomb'), 'the bomb window warned of', { timeoutMs: 120_000 });
    expect(bombLine).toContain('The guide nests elements more than 32 deep (line 2); it is refused');
    const heavyLine = await waitFor(() => warned('heavy'), 'the heavy window warned of', { timeoutMs: 240_000 });
    console.log(`${bombLine}\n${heavyLine}\n/settings: ${probes.length} probes, ${Math.max(...probes)} ms at the most`);
    expect(heavyLine).toMatch(
      /The guide is too large to read: its reader ran out of memory \(256 MB of heap\); it is refused|The guide took longer than 120 s to read/,
    );
    expect(red.child.exitCode).toBeNull();
    expect(red.output()).not.toMatch(/heap out of memory|FATAL ERROR/i);
    expect(probes.length).toBeGreaterThan(10);
    expect(Math.max(...probes), `/settings took ${Math.max(...probes)} ms at the most`).toBeLessThan(1000);
  }, 300_000);

  it('Test feed on the deployed bomb window says why it cannot be read', async () => {
    const r = await httpJson(`${red.url}/media-spaces/schedule/test-feed`, {
      method: 'POST',
      body: { node: SCHEDULE, window: { id: 'bomb', xmltv: `${base}/bomb.xml.gz` } },
    });
    expect(r.status, r.text).toBe(200);
    expect(r.json).toMatchObject({
      ok: false,
      error: expect.stringContaining('The guide nests elements more than 32 deep'),
    });
    expect(red.child.exitCode).toBeNull();
    expect(Math.max(...probes)).toBeLessThan(1000);
  }, 60_000);
});

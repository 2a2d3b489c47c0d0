// Summarises a V8 .cpuprofile (node --cpu-prof): self time by function and
// by code area (our lib/, our nodes/, Node-RED, undici, zod, node internals).
//   node bench/lib/profile-summary.mjs FILE.cpuprofile [top]
import { readFileSync } from 'node:fs';

export function summarise(profile, top = 25) {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const self = new Map();
  const dt = profile.timeDeltas;
  for (let i = 0; i < profile.samples.length; i++) {
    const id = profile.samples[i];
    self.set(id, (self.get(id) ?? 0) + (dt[i] ?? 0));
  }
  const total = [...self.values()].reduce((a, b) => a + b, 0);
  const fns = new Map();
  const areas = new Map();
  for (const [id, us] of self) {
    const { callFrame } = byId.get(id);
    const url = callFrame.url || '';
    const name = `${callFrame.functionName || '(anonymous)'} ${shortUrl(url)}:${callFrame.lineNumber + 1}`;
    fns.set(name, (fns.get(name) ?? 0) + us);
    const area = areaOf(callFrame);
    areas.set(area, (areas.get(area) ?? 0) + us);
  }
  const sorted = (m) => [...m.entries()].sort((a, b) => b[1] - a[1]);
  return {
    totalMs: total / 1000,
    areas: sorted(areas).map(([area, us]) => ({ area, ms: us / 1000, pct: (100 * us) / total })),
    functions: sorted(fns)
      .slice(0, top)
      .map(([fn, us]) => ({ fn, ms: us / 1000, pct: (100 * us) / total })),
  };
}

function shortUrl(url) {
  const i = url.indexOf('node_modules/');
  if (i >= 0) return url.slice(i + 'node_modules/'.length);
  const d = url.indexOf('/dist/');
  if (d >= 0) return url.slice(d + 1);
  return url.replace(/^file:\/\//, '');
}

function areaOf(frame) {
  const url = frame.url || '';
  if (url === '') {
    const n = frame.functionName;
    if (n === '(garbage collector)') return 'gc';
    if (n === '(idle)') return 'idle';
    if (n === '(program)') return 'program (native, outside JS)';
    return `native: ${n || '?'}`;
  }
  if (url.includes('/dist/lib/')) return 'ours: dist/lib';
  if (url.includes('/dist/nodes/')) return 'ours: dist/nodes';
  if (url.includes('node_modules/undici/')) return 'undici';
  if (url.includes('node_modules/zod/')) return 'zod';
  if (url.includes('node_modules/@node-red/') || url.includes('node_modules/node-red/')) {
    const m = /node_modules\/(@node-red\/[^/]+)/.exec(url);
    return m ? m[1] : 'node-red';
  }
  if (url.includes('node_modules/got/') || url.includes('node_modules/@szmarczak') || url.includes('cacheable'))
    return 'got (core http request)';
  if (url.includes('node_modules/')) return `npm: ${/node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url)?.[1]}`;
  if (url.startsWith('node:')) return `node: ${url.slice(5).split('/')[0]}`;
  if (url.includes('/bench/')) return 'bench harness';
  return url.startsWith('evalmachine') || url.includes('vm') ? 'function node (vm)' : `other: ${shortUrl(url)}`;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const file = process.argv[2];
  const s = summarise(JSON.parse(readFileSync(file, 'utf8')), Number(process.argv[3] ?? 30));
  console.log(`total ${s.totalMs.toFixed(0)} ms`);
  for (const a of s.areas)
    console.log(`${a.pct.toFixed(1).padStart(5)}%  ${a.ms.toFixed(0).padStart(6)} ms  ${a.area}`);
  console.log('');
  for (const f of s.functions)
    console.log(`${f.pct.toFixed(1).padStart(5)}%  ${f.ms.toFixed(0).padStart(6)} ms  ${f.fn}`);
}

// Summarises a sampling heap profile (HeapProfiler.stopSampling): bytes
// allocated by function (self) and by code area.
//   node bench/lib/heap-summary.mjs FILE.heapprofile [messages] [top]
import { readFileSync } from 'node:fs';

export function summariseHeap(profile, top = 25) {
  const fns = new Map();
  let total = 0;
  const walk = (node) => {
    const { callFrame } = node;
    const url = callFrame.url || '';
    const short = url.includes('node_modules/')
      ? url.slice(url.lastIndexOf('node_modules/') + 13)
      : url.replace(/^.*\/dist\//, 'dist/');
    const key = `${callFrame.functionName || '(anonymous)'} ${short}:${callFrame.lineNumber + 1}`;
    if (node.selfSize > 0) {
      fns.set(key, (fns.get(key) ?? 0) + node.selfSize);
      total += node.selfSize;
    }
    for (const child of node.children ?? []) walk(child);
  };
  walk(profile.head);
  return {
    totalBytes: total,
    functions: [...fns.entries()]
      .sort((a, b) => b[1] - a[1])
      .slice(0, top)
      .map(([fn, bytes]) => ({ fn, bytes })),
  };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const n = Number(process.argv[3] ?? 1);
  const s = summariseHeap(JSON.parse(readFileSync(process.argv[2], 'utf8')), Number(process.argv[4] ?? 40));
  console.log(`total ${(s.totalBytes / n).toFixed(0)} B per message`);
  for (const f of s.functions) console.log(`${(f.bytes / n).toFixed(0).padStart(7)} B  ${f.fn}`);
}

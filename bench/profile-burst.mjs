// One window of a top-of-hour profile (node bench/top-of-hour.mjs --profile), per clean burst: from
// the start instant to the last channel request, self and inclusive time by function, summed over
// the clean bursts too, so that two runs can be compared frame by frame.
//   node bench/profile-burst.mjs bench/profiles/top-of-hour-<n>.cpuprofile [top] [--all]
//   --all: the bursts with faults as well
import { readFileSync } from 'node:fs';
import { fmt } from './lib/common.mjs';
import { profileWindow } from './lib/profile-window.mjs';

const [file, topArg] = process.argv.slice(2).filter((a) => !a.startsWith('--'));
const all = process.argv.includes('--all');
const top = Number(topArg ?? 30);
const profile = JSON.parse(readFileSync(file, 'utf8'));
const { anchor, bursts } = JSON.parse(readFileSync(`${file}.json`, 'utf8'));

const sum = { self: new Map(), inclusive: new Map(), ms: 0 };
const add = (map, rows) => {
  for (const r of rows) map.set(r.fn, (map.get(r.fn) ?? 0) + r.ms);
};
for (const [k, b] of bursts.entries()) {
  if (b.faults && !all) continue;
  const at = Date.parse(b.startInstant);
  const w = profileWindow(profile, { fromMs: at, toMs: at + b.channelRequestMs.last + 1, anchor, top: 400 });
  sum.ms += w.sampledMs;
  add(sum.self, w.self);
  add(sum.inclusive, w.inclusive);
  console.log(`burst ${k + 1} (${b.burst}): ${fmt(w.windowMs)} ms window, ${fmt(w.sampledMs)} sampled`);
}
const list = (map, filter = () => true) =>
  [...map.entries()]
    .filter(([fn]) => filter(fn))
    .sort((a, b) => b[1] - a[1])
    .slice(0, top)
    .map(([fn, ms]) => `  ${fmt(ms).padStart(7)}  ${fn}`)
    .join('\n');
console.log(`\nsummed over the bursts: ${fmt(sum.ms)} ms sampled\nself:\n${list(sum.self)}`);
console.log(`\ninclusive, this package's code:\n${list(sum.inclusive, (fn) => / dist\//.test(fn))}`);

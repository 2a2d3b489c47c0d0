// Who called a function, and how much of a burst it took that way: in one part of one burst of a
// top-of-hour profile (node bench/top-of-hour.mjs --profile), the CPU time under each named function,
// by the chain of its callers, so that a frame of bench/profile-burst.mjs can be traced to its cause.
//   node bench/profile-callers.mjs bench/profiles/top-of-hour-<n>.cpuprofile <burst> start|requests <function>...
//   start: from the start instant to the last start message at create channel; requests: from there to
//   the last channel request. <function>: a function name as the profile has it (e.g. lstatSync, publish).
import { readFileSync } from 'node:fs';
import { fmt } from './lib/common.mjs';
import { profileFrames, profileUs } from './lib/profile-window.mjs';

const [file, burstArg, part, ...functions] = process.argv.slice(2);
if (!file || !burstArg || !['start', 'requests'].includes(part) || functions.length === 0) {
  console.error('usage: node bench/profile-callers.mjs <profile> <burst> start|requests <function>...');
  process.exit(2);
}
const profile = JSON.parse(readFileSync(file, 'utf8'));
const { anchor, bursts } = JSON.parse(readFileSync(`${file}.json`, 'utf8'));
const b = bursts[Number(burstArg) - 1];
const at = Date.parse(b.startInstant);
const [fromMs, toMs] =
  part === 'start'
    ? [at, at + b.startMessageAtCreateChannelMs.last]
    : [at + b.startMessageAtCreateChannelMs.last, at + b.channelRequestMs.last];
const [from, to] = [profileUs(anchor, fromMs), profileUs(anchor, toMs)];
const frames = profileFrames(profile);
const chains = new Map(functions.map((f) => [f, new Map()]));
let t = profile.startTime;
for (let i = 0; i < profile.samples.length; i++) {
  t += profile.timeDeltas[i];
  if (t < from || t >= to) continue;
  const dt = profile.timeDeltas[i + 1] ?? 0;
  const names = frames.stack(profile.samples[i]);
  for (const fn of functions) {
    // the outermost call of it: a recursive function counts once
    const at = names.findLastIndex((n) => n.startsWith(`${fn} `));
    if (at < 0) continue;
    const chain = names.slice(at, at + 8).join(' < ');
    const byChain = chains.get(fn);
    byChain.set(chain, (byChain.get(chain) ?? 0) + dt);
  }
}
console.log(`burst ${burstArg} (${b.burst}), ${part}: ${fmt(toMs - fromMs)} ms`);
for (const [fn, byChain] of chains) {
  const rows = [...byChain.entries()].sort((x, y) => y[1] - x[1]).slice(0, 5);
  console.log(`${fn}: ${rows.length === 0 ? 'not sampled' : ''}`);
  for (const [chain, us] of rows) console.log(`  ${fmt(us / 1000).padStart(6)} ms  ${chain}`);
}

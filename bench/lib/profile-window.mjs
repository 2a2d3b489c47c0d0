// Reads one time window out of a V8 .cpuprofile (node --cpu-prof): the CPU
// time sampled in it, by function, as self time and as inclusive time (the
// function or anything it called), so that a burst of work can be told apart
// from the rest of the run. Profile times are CLOCK_MONOTONIC microseconds,
// the clock of process.hrtime: the profiled process reports one pair
// (hrtime, epoch ms) so that epoch instants map onto them.
import { summarise } from './profile-summary.mjs';

/** `[fromMs, toMs)` in epoch ms; `anchor` = { hrtimeUs, epochMs } read together in the profiled process. */
export function profileWindow(profile, { fromMs, toMs, anchor, top = 20 }) {
  const from = profileUs(anchor, fromMs);
  const to = profileUs(anchor, toMs);
  const frames = profileFrames(profile);
  const samples = [];
  const deltas = [];
  const inclusive = new Map();
  let t = profile.startTime;
  for (let i = 0; i < profile.samples.length; i++) {
    t += profile.timeDeltas[i];
    if (t < from || t >= to) continue;
    const dt = profile.timeDeltas[i + 1] ?? 0;
    samples.push(profile.samples[i]);
    deltas.push(dt);
    frames.addInclusive(inclusive, profile.samples[i], dt);
  }
  // summarise() charges each sample its own delta: shift them so a sample carries the time until the next one
  const self = summarise({ ...profile, samples, timeDeltas: deltas }, top);
  const busy = [...inclusive.entries()]
    .filter(([fn]) => !/^\((root|program|idle|garbage collector)\)/.test(fn))
    .sort((a, b) => b[1] - a[1])
    .slice(0, top)
    .map(([fn, us]) => ({ fn, ms: us / 1000 }));
  const idleMs = (inclusive.get([...inclusive.keys()].find((k) => k.startsWith('(idle)')) ?? '') ?? 0) / 1000;
  return {
    windowMs: toMs - fromMs,
    sampledMs: self.totalMs,
    idleMs,
    areas: self.areas,
    self: self.functions,
    inclusive: busy,
  };
}

/**
 * A profile's frames by name (`fn url:line`, paths from node_modules/ or dist/), and the inclusive time of a
 * sample: `dt` added once to every function on its stack.
 */
export function profileFrames(profile) {
  const parent = new Map();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const name = (id) => {
    const f = byId.get(id).callFrame;
    const url = f.url.replace(/^.*\/(node_modules|dist)\//, '$1/').replace(/^file:\/\//, '');
    return `${f.functionName || '(anonymous)'} ${url}:${f.lineNumber + 1}`;
  };
  const addInclusive = (inclusive, sample, dt) => {
    const seen = new Set();
    for (let id = sample; id !== undefined; id = parent.get(id)) {
      const fn = name(id);
      if (seen.has(fn)) continue;
      seen.add(fn);
      inclusive.set(fn, (inclusive.get(fn) ?? 0) + dt);
    }
  };
  /** A sample's frames by name, from the sampled function out to the root. */
  const stack = (sample) => {
    const names = [];
    for (let id = sample; id !== undefined; id = parent.get(id)) names.push(name(id));
    return names;
  };
  return { name, isIdle: (id) => byId.get(id).callFrame.functionName === '(idle)', addInclusive, stack };
}

/** An epoch instant (ms) on the profile's clock (µs), through the anchor the profiled process reported. */
export function profileUs(anchor, epochMs) {
  return anchor.hrtimeUs + (epochMs - anchor.epochMs) * 1000;
}

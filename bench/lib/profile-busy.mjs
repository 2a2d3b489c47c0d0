// The longest stretch of a V8 .cpuprofile in which the process never went idle (a time the event loop
// was held, give or take a sample), and what ran in it: self time and inclusive time by function.
export function longestBusy(profile, top = 20) {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const isIdle = (id) => byId.get(id).callFrame.functionName === '(idle)';
  let best = { from: 0, to: 0, us: 0 };
  let from = -1;
  let us = 0;
  for (let i = 0; i < profile.samples.length; i++) {
    const dt = profile.timeDeltas[i + 1] ?? 0;
    if (isIdle(profile.samples[i])) {
      from = -1;
      continue;
    }
    if (from < 0) {
      from = i;
      us = 0;
    }
    us += dt;
    if (us > best.us) best = { from, to: i + 1, us };
  }
  const name = (id) => {
    const f = byId.get(id).callFrame;
    const url = f.url.replace(/^.*\/(node_modules|dist)\//, '$1/').replace(/^file:\/\//, '');
    return `${f.functionName || '(anonymous)'} ${url}:${f.lineNumber + 1}`;
  };
  const self = new Map();
  const inclusive = new Map();
  for (let i = best.from; i < best.to; i++) {
    const dt = profile.timeDeltas[i + 1] ?? 0;
    const leaf = name(profile.samples[i]);
    self.set(leaf, (self.get(leaf) ?? 0) + dt);
    const seen = new Set();
    for (let id = profile.samples[i]; id !== undefined; id = parent.get(id)) {
      const fn = name(id);
      if (seen.has(fn)) continue;
      seen.add(fn);
      inclusive.set(fn, (inclusive.get(fn) ?? 0) + dt);
    }
  }
  const list = (m) =>
    [...m.entries()]
      .sort((a, b) => b[1] - a[1])
      .slice(0, top)
      .map(([fn, t]) => ({ fn, ms: t / 1000 }));
  return { ms: best.us / 1000, functions: list(self), inclusive: list(inclusive) };
}

// The longest stretch of a V8 .cpuprofile in which the process never went idle (a time the event loop
// was held, give or take a sample), and what ran in it: self time and inclusive time by function.
import { profileFrames } from './profile-window.mjs';

export function longestBusy(profile, top = 20) {
  const frames = profileFrames(profile);
  let best = { from: 0, to: 0, us: 0 };
  let from = -1;
  let us = 0;
  for (let i = 0; i < profile.samples.length; i++) {
    const dt = profile.timeDeltas[i + 1] ?? 0;
    if (frames.isIdle(profile.samples[i])) {
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
  const self = new Map();
  const inclusive = new Map();
  for (let i = best.from; i < best.to; i++) {
    const dt = profile.timeDeltas[i + 1] ?? 0;
    const leaf = frames.name(profile.samples[i]);
    self.set(leaf, (self.get(leaf) ?? 0) + dt);
    frames.addInclusive(inclusive, profile.samples[i], dt);
  }
  const list = (m) =>
    [...m.entries()]
      .sort((a, b) => b[1] - a[1])
      .slice(0, top)
      .map(([fn, t]) => ({ fn, ms: t / 1000 }));
  return { ms: best.us / 1000, functions: list(self), inclusive: list(inclusive) };
}

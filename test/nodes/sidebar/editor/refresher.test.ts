import { beforeEach, describe, expect, it, vi } from 'vitest';
import type { ActivitySignal } from '../../../../nodes/sidebar/activity-types';
import type { WireSnapshot } from '../../../../nodes/sidebar/activity-wire';
import type { Fetched } from '../../../../nodes/sidebar/editor/api';
import { type Part, Refresher } from '../../../../nodes/sidebar/editor/refresher';

/** The runtime's side: its revision counters, and the fetches the tab made, answered when a test says. */
const runtime = vi.hoisted(() => ({
  revs: { epoch: 1, rev: 0, schedulesRev: 0, jobsRev: 0 },
  pending: [] as { part: 'schedules' | 'jobs'; ahead: number; etag?: string; answer: (fetched: Fetched) => void }[],
}));

vi.mock('../../../../nodes/sidebar/editor/api', () => ({
  fetchActivity: (part: 'schedules' | 'jobs', ahead: number, etag?: string) =>
    new Promise<Fetched>((resolve) => runtime.pending.push({ part, ahead, etag, answer: resolve })),
}));

function change(part: 'schedules' | 'jobs'): ActivitySignal {
  runtime.revs.rev += 1;
  if (part === 'schedules') runtime.revs.schedulesRev += 1;
  else runtime.revs.jobsRev += 1;
  return { ...runtime.revs };
}

/** The runtime's answer as it is now: one schedule with one planned start 30 s from `now`. */
function snapshot(): WireSnapshot {
  const now = Date.now();
  const schedule = { nodeId: 's', name: 'S', paused: false, actions: [], windows: [], reported: [] };
  return {
    format: 2,
    now,
    signal: { ...runtime.revs },
    range: { from: now - 1000, to: now + 3_600_000 },
    base: now,
    looks: [],
    schedules: [{ ...schedule, planned: [{ window: 'w', starts: [30], lengths: 60 }] }],
    jobs: [],
    days: [],
  };
}

/** Answers the oldest fetch with the runtime's state as it is now; returns the part it asked for. */
async function answer(
  fetched: Fetched = { ok: true, wire: snapshot(), etag: `"${runtime.revs.rev}"` },
): Promise<string> {
  const next = runtime.pending.shift();
  if (!next) throw new Error('no fetch is waiting');
  next.answer(fetched);
  await new Promise((r) => setImmediate(r));
  return next.part;
}

let shown: [Part, number][];
let phases: string[];
let refused: (number | string)[];
let view: number;
let refresher: Refresher;
const parts = () => shown.map(([part]) => part);

beforeEach(async () => {
  runtime.revs = { epoch: 1, rev: 0, schedulesRev: 0, jobsRev: 0 };
  runtime.pending = [];
  shown = [];
  phases = [];
  refused = [];
  view = 24;
  refresher = new Refresher(
    (snapshot, part) => {
      shown.push([part, snapshot.signal.rev]);
      if (part === 'schedules') for (const slot of snapshot.schedules[0]?.slots ?? []) phases.push(slot.phase);
    },
    (result) => refused.push(result.status === 0 ? result.message : result.status),
    () => view,
  );
  // the tab opens: both parts, the schedules with the view's hours of planned starts
  refresher.signal();
  expect(runtime.pending[0]).toMatchObject({ part: 'schedules', ahead: 24, etag: undefined });
  expect(await answer()).toBe('schedules');
  expect(await answer()).toBe('jobs');
});

describe('sidebar refresher: change signals into fetches of the parts that changed', () => {
  it('fetches only the jobs when only jobs changed, only the schedules when only they did, nothing for a signal seen', async () => {
    const s = change('jobs');
    refresher.signal(s);
    expect(await answer()).toBe('jobs');
    refresher.signal(s);
    expect(runtime.pending).toEqual([]);
    refresher.signal(change('schedules'));
    expect(await answer()).toBe('schedules');
    expect(runtime.pending).toEqual([]);
    expect(parts()).toEqual(['schedules', 'jobs', 'jobs', 'schedules']);
  });

  it('fetches both parts when the runtime restarted, even with an earlier epoch', async () => {
    runtime.revs = { epoch: 2, rev: 1, schedulesRev: 0, jobsRev: 1 };
    refresher.signal({ ...runtime.revs });
    expect(await answer()).toBe('schedules');
    expect(await answer()).toBe('jobs');
    // a runtime started while the clock was set back has an earlier epoch: still a new runtime
    runtime.revs = { epoch: 0, rev: 0, schedulesRev: 0, jobsRev: 0 };
    refresher.signal({ ...runtime.revs });
    expect(await answer()).toBe('schedules');
    expect(await answer()).toBe('jobs');
    expect(shown.at(-2)).toEqual(['schedules', 0]);
    expect(shown).toHaveLength(6);
  });

  it('merges the signals that arrive during a fetch into one more fetch of each part', async () => {
    refresher.signal(change('jobs'));
    refresher.signal(change('jobs'));
    refresher.signal(change('schedules'));
    refresher.signal(change('jobs'));
    expect(runtime.pending.map((p) => p.part)).toEqual(['jobs']);
    expect(await answer()).toBe('jobs');
    expect(await answer()).toBe('schedules');
    expect(runtime.pending).toEqual([]);
  });

  it('a schedule change made during a jobs fetch gets the schedules fetched when its signal comes', async () => {
    refresher.signal(change('jobs'));
    // a schedule is paused while the jobs are fetched; its signal is published up to 500 ms later
    const paused = change('schedules');
    expect(await answer()).toBe('jobs');
    refresher.signal(paused);
    expect(await answer()).toBe('schedules');
    expect(parts()).toEqual(['schedules', 'jobs', 'jobs', 'schedules']);

    // a failed fetch of the schedules: the next signal asks for them again
    const pausedAgain = change('schedules');
    refresher.signal(pausedAgain);
    expect(await answer({ ok: false, status: 500, message: 'busy' })).toBe('schedules');
    refresher.signal(pausedAgain);
    expect(await answer()).toBe('schedules');
    expect(refused).toEqual([500]);
  });

  it("a schedules answer older than an action's answer shown meanwhile is not applied", async () => {
    refresher.signal(change('schedules'));
    const before = snapshot();
    // the user pauses a schedule while that fetch is out; the pause answers with the new state
    const paused = change('schedules');
    refresher.accept(snapshot());
    refresher.signal(paused);
    expect(await answer({ ok: true, wire: before })).toBe('schedules');
    expect(shown.slice(2)).toEqual([['schedules', 2]]);
    expect(runtime.pending).toEqual([]);

    // newer answers are applied as before
    refresher.signal(change('jobs'));
    expect(await answer()).toBe('jobs');
    expect(shown.at(-1)).toEqual(['jobs', 3]);
  });

  it('an answer that fails to draw still lets the fetches queued behind it run, and says so on the console', async () => {
    const logged = vi.spyOn(console, 'error').mockImplementation(() => undefined);
    const failing = new Refresher(
      (_snapshot, part) => {
        if (part === 'schedules') throw new Error('cannot draw');
        shown.push([part, runtime.revs.rev]);
      },
      () => undefined,
      () => view,
    );
    failing.signal();
    failing.signal(change('jobs'));
    expect(runtime.pending.map((p) => p.part)).toEqual(['schedules']);
    expect(await answer()).toBe('schedules');
    expect(await answer()).toBe('jobs');
    expect(shown.at(-1)).toEqual(['jobs', runtime.revs.rev]);
    expect(logged).toHaveBeenCalledWith('Media Spaces: the activity could not be shown', new Error('cannot draw'));
    logged.mockRestore();
  });

  it('stops asking once the user may not read', async () => {
    refresher.signal(change('jobs'));
    expect(await answer({ ok: false, status: 403, message: 'no permission' })).toBe('jobs');
    refresher.signal(change('schedules'));
    expect(runtime.pending).toEqual([]);
    expect(refused).toEqual([403]);
  });
});

describe('sidebar refresher: what it asks for, and an answer not modified', () => {
  it("names the answers it holds on the minute's poll, and on a 304 draws the schedules again at the later time", async () => {
    vi.useFakeTimers({ now: Date.now(), toFake: ['Date'] });
    try {
      refresher.signal();
      expect(runtime.pending[0]).toMatchObject({ part: 'schedules', ahead: 24, etag: '"0"' });
      // the planned start 30 s after the answer was made has passed: it is drawn due, not upcoming
      vi.setSystemTime(Date.now() + 45_000);
      expect(await answer({ ok: true, unchanged: true })).toBe('schedules');
      expect(runtime.pending[0]).toMatchObject({ part: 'jobs', etag: '"0"' });
      expect(await answer({ ok: true, unchanged: true })).toBe('jobs');
      expect(parts()).toEqual(['schedules', 'jobs', 'schedules']);
      expect(phases).toEqual(['upcoming', 'due']);
    } finally {
      vi.useRealTimers();
    }
  });

  it('fetches a longer view than the answer holds (7 days), and nothing for a shorter one', async () => {
    view = 6;
    refresher.viewChanged();
    expect(runtime.pending).toEqual([]);
    view = 168;
    refresher.viewChanged();
    expect(runtime.pending[0]).toMatchObject({ part: 'schedules', ahead: 168, etag: undefined });
    await answer();
    view = 24;
    refresher.viewChanged();
    expect(runtime.pending).toEqual([]);
  });

  it('says so rather than misreading an answer of another format', async () => {
    refresher.signal(change('schedules'));
    expect(await answer({ ok: true, wire: { ...snapshot(), format: 1 as 2 } })).toBe('schedules');
    expect(refused).toEqual(['the runtime answers in another format: reload the editor']);
    expect(parts()).toEqual(['schedules', 'jobs']);
  });
});

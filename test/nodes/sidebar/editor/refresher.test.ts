import { beforeEach, describe, expect, it, vi } from 'vitest';
import type { ActivitySignal, ActivitySnapshot } from '../../../../nodes/sidebar/activity-types';
import type { Fetched } from '../../../../nodes/sidebar/editor/api';
import { Refresher } from '../../../../nodes/sidebar/editor/refresher';

/** The runtime's side: its revision counters, and the fetches the tab made, answered when a test says. */
const runtime = vi.hoisted(() => ({
  revs: { epoch: 1, rev: 0, schedulesRev: 0, jobsRev: 0 },
  pending: [] as { part: 'all' | 'jobs'; answer: (fetched: Fetched) => void }[],
}));

vi.mock('../../../../nodes/sidebar/editor/api', () => ({
  fetchActivity: (part: 'all' | 'jobs') =>
    new Promise<Fetched>((resolve) => runtime.pending.push({ part, answer: resolve })),
}));

function change(part: 'schedules' | 'jobs'): ActivitySignal {
  runtime.revs.rev += 1;
  if (part === 'schedules') runtime.revs.schedulesRev += 1;
  else runtime.revs.jobsRev += 1;
  return { ...runtime.revs };
}

function snapshot(): ActivitySnapshot {
  return { signal: { ...runtime.revs } } as ActivitySnapshot;
}

/** Answers the oldest fetch with the runtime's state as it is now; returns the part it asked for. */
async function answer(fetched: Fetched = { ok: true, snapshot: snapshot() }): Promise<string> {
  const next = runtime.pending.shift();
  if (!next) throw new Error('no fetch is waiting');
  next.answer(fetched);
  await new Promise((r) => setImmediate(r));
  return next.part;
}

describe('sidebar refresher: change signals into fetches', () => {
  /** what the tab showed: the part and the revision it was at */
  let shown: [string, number][];
  const parts = () => shown.map(([part]) => part);
  let refused: number[];
  let refresher: Refresher;

  beforeEach(async () => {
    runtime.revs = { epoch: 1, rev: 0, schedulesRev: 0, jobsRev: 0 };
    runtime.pending = [];
    shown = [];
    refused = [];
    refresher = new Refresher(
      (snapshot, part) => shown.push([part, snapshot.signal.rev]),
      (result) => refused.push(result.status),
    );
    refresher.signal();
    expect(await answer()).toBe('all');
  });

  it('fetches only the jobs when only jobs changed, and nothing for a signal already seen', async () => {
    const s = change('jobs');
    refresher.signal(s);
    expect(await answer()).toBe('jobs');
    refresher.signal(s);
    expect(runtime.pending).toEqual([]);
    expect(parts()).toEqual(['all', 'jobs']);
  });

  it('fetches everything when the schedules changed or the runtime restarted', async () => {
    refresher.signal(change('schedules'));
    expect(await answer()).toBe('all');
    runtime.revs = { epoch: 2, rev: 1, schedulesRev: 0, jobsRev: 1 };
    refresher.signal({ ...runtime.revs });
    expect(await answer()).toBe('all');
    // a runtime started while the clock was set back has an earlier epoch: still a new runtime
    runtime.revs = { epoch: 0, rev: 0, schedulesRev: 0, jobsRev: 0 };
    refresher.signal({ ...runtime.revs });
    expect(await answer()).toBe('all');
    expect(shown.at(-1)).toEqual(['all', 0]);
    expect(shown).toHaveLength(4);
  });

  it('merges the signals that arrive during a fetch into one more fetch, the whole state if any asked for it', async () => {
    refresher.signal(change('jobs'));
    refresher.signal(change('jobs'));
    refresher.signal(change('schedules'));
    refresher.signal(change('jobs'));
    expect(runtime.pending.map((p) => p.part)).toEqual(['jobs']);
    expect(await answer()).toBe('jobs');
    expect(await answer()).toBe('all');
    expect(runtime.pending).toEqual([]);
  });

  it('a schedule change answered inside a jobs fetch, before its own signal, still gets the schedules fetched', async () => {
    refresher.signal(change('jobs'));
    // a schedule is paused while the jobs are fetched; its signal is published up to 500 ms later
    const paused = change('schedules');
    expect(await answer()).toBe('jobs');
    expect(await answer()).toBe('all');
    refresher.signal(paused);
    expect(runtime.pending).toEqual([]);
    expect(parts()).toEqual(['all', 'jobs', 'all']);

    // the same when the whole-state fetch fails: the next signal asks for everything again
    refresher.signal(change('jobs'));
    const pausedAgain = change('schedules');
    expect(await answer()).toBe('jobs');
    expect(await answer({ ok: false, status: 500, message: 'busy' })).toBe('all');
    refresher.signal(pausedAgain);
    expect(await answer()).toBe('all');
    expect(refused).toEqual([500]);
  });

  it("an answer older than an action's answer shown meanwhile is not applied", async () => {
    refresher.signal(change('schedules'));
    const before = snapshot();
    // the user pauses a schedule while that fetch is out; the pause answers with the new state
    const paused = change('schedules');
    refresher.accept(snapshot());
    refresher.signal(paused);
    expect(await answer({ ok: true, snapshot: before })).toBe('all');
    expect(shown).toEqual([
      ['all', 0],
      ['all', 2],
    ]);
    expect(runtime.pending).toEqual([]);

    // newer answers are applied as before
    refresher.signal(change('jobs'));
    expect(await answer()).toBe('jobs');
    expect(shown.at(-1)).toEqual(['jobs', 3]);
  });

  it('stops asking once the user may not read', async () => {
    refresher.signal(change('jobs'));
    expect(await answer({ ok: false, status: 403, message: 'no permission' })).toBe('jobs');
    refresher.signal(change('schedules'));
    expect(runtime.pending).toEqual([]);
    expect(refused).toEqual([403]);
  });
});

import { describe, expect, it } from 'vitest';
import { MediaSpacesError } from '../../../lib/errors';
import type { WorkflowJob } from '../../../lib/schemas';
import {
  type FollowedJob,
  JobFollower,
  type JobFollowerOptions,
  type JobWaiter,
  type PersistedJob,
  pollDelay,
  resolveTiming,
  WatchError,
} from '../../../lib/watch';
import { ManualClock } from '../../support/manual-clock';

const WF = '11111111-1111-4111-8111-111111111111';

function job(id: string, state: string, progress?: number): WorkflowJob {
  return { id, workflow_id: WF, state, progress } as WorkflowJob;
}

interface Recorder {
  progress: { id: string; state?: string; progress?: number }[];
  done: WorkflowJob[];
  errors: { error: Error; waiters: JobWaiter<string>[]; entry: FollowedJob<string> }[];
  retries: { id: string; delay: number }[];
  persisted: PersistedJob[][];
}

function setup(
  getJob: JobFollowerOptions<string>['getJob'],
  extra: Partial<JobFollowerOptions<string>> = {},
): { clock: ManualClock; follower: JobFollower<string>; rec: Recorder } {
  const clock = new ManualClock(1_000_000);
  const rec: Recorder = { progress: [], done: [], errors: [], retries: [], persisted: [] };
  const follower = new JobFollower<string>({
    getJob,
    clock,
    intervalMs: 100,
    backoffMaxMs: 800,
    concurrency: 8,
    onProgress: (j) => rec.progress.push({ id: j.id, state: j.state, progress: j.progress }),
    onDone: (j) => rec.done.push(j),
    onError: (error, waiters, entry) => rec.errors.push({ error, waiters, entry }),
    onRetry: (_e, entry, delay) => rec.retries.push({ id: entry.jobId, delay }),
    onPersist: (records) => rec.persisted.push(records),
    persistDelayMs: 0,
    ...extra,
  });
  return { clock, follower, rec };
}

/** A getJob that replays a script of states, one per call, then repeats the last. */
function scripted(script: Record<string, (WorkflowJob | Error)[]>) {
  const calls: { id: string; at: number }[] = [];
  let clock: ManualClock | undefined;
  const fn = async (_wf: string, id: string): Promise<WorkflowJob> => {
    calls.push({ id, at: clock?.now() ?? 0 });
    const list = script[id];
    const n = calls.filter((c) => c.id === id).length - 1;
    const item = list[Math.min(n, list.length - 1)];
    if (item instanceof Error) throw item;
    return item;
  };
  return { fn, calls, bind: (c: ManualClock) => (clock = c) };
}

describe('JobFollower', () => {
  it('emits progress only when state or progress changes, then finishes on succeeded', async () => {
    const s = scripted({
      a: [
        job('a', 'created'),
        job('a', 'in-process', 10),
        job('a', 'in-process', 10),
        job('a', 'in-process', 50),
        job('a', 'in-process', 50),
        job('a', 'succeeded', 100),
      ],
    });
    const { clock, follower, rec } = setup(s.fn);
    s.bind(clock);
    follower.follow({ jobId: 'a', workflowId: WF, job: { id: 'a', state: 'created' }, data: { topic: 't' } });
    await clock.advance(1000);
    // created (known from the submit response) is not reported again; 10 and 50 are reported once each
    expect(rec.progress).toEqual([
      { id: 'a', state: 'in-process', progress: 10 },
      { id: 'a', state: 'in-process', progress: 50 },
    ]);
    expect(rec.done.map((j) => j.state)).toEqual(['succeeded']);
    expect(s.calls).toHaveLength(6);
    expect(follower.size).toBe(0);
    expect(clock.pending()).toBe(0);
  });

  it('keeps the last body on the followed job unless keepJobBodies is false; progress is reported either way', async () => {
    for (const keep of [true, false]) {
      const s = scripted({ k: [job('k', 'in-process', 10), job('k', 'in-process', 20)] });
      const { clock, follower, rec } = setup(s.fn, { keepJobBodies: keep });
      s.bind(clock);
      follower.follow({ jobId: 'k', workflowId: WF, job: { id: 'k', state: 'created' } });
      expect(follower.get(WF, 'k')?.job?.state).toBe(keep ? 'created' : undefined);
      await clock.advance(250);
      expect(rec.progress.map((p) => p.progress)).toEqual([10, 20]);
      const followed = follower.get(WF, 'k');
      expect(followed?.progress).toBe(20);
      expect(followed?.job?.progress).toBe(keep ? 20 : undefined);
      follower.close({ persist: false });
    }
  });

  it('reports the first read when nothing was known, and treats failed and stopped as terminal', async () => {
    const s = scripted({
      f: [job('f', 'in-process', 5), job('f', 'failed', 40)],
      s: [job('s', 'stopped')],
      r: [job('r', 'retry'), job('r', 'malfunctioned'), job('r', 'in-process', 1), job('r', 'SUCCEEDED', 100)],
    });
    const { clock, follower, rec } = setup(s.fn);
    s.bind(clock);
    for (const id of ['f', 's', 'r']) follower.follow({ jobId: id, workflowId: WF });
    await clock.advance(1000);
    expect(rec.done.map((j) => `${j.id}:${j.state}`).sort()).toEqual(['f:failed', 'r:SUCCEEDED', 's:stopped']);
    // retry and malfunctioned are not terminal: the job is read on
    expect(rec.progress.filter((p) => p.id === 'r').map((p) => p.state)).toEqual([
      'retry',
      'malfunctioned',
      'in-process',
    ]);
    expect(rec.progress.filter((p) => p.id === 'f')).toEqual([{ id: 'f', state: 'in-process', progress: 5 }]);
    expect(s.calls.filter((c) => c.id === 's')).toHaveLength(1);
    expect(follower.size).toBe(0);
  });

  it('reads each of 5,000 jobs at most once per interval, with one timer for all', async () => {
    const calls = new Map<string, number[]>();
    const clock = new ManualClock(0);
    let maxTimers = 0;
    const origSet = clock.setTimeout.bind(clock);
    clock.setTimeout = (fn, ms) => {
      const h = origSet(fn, ms);
      maxTimers = Math.max(maxTimers, clock.pending());
      return h;
    };
    let inFlight = 0;
    let maxInFlight = 0;
    const follower = new JobFollower({
      clock,
      intervalMs: 1000,
      concurrency: 8,
      getJob: async (_wf, id) => {
        inFlight++;
        maxInFlight = Math.max(maxInFlight, inFlight);
        const list = calls.get(id) ?? [];
        list.push(clock.now());
        calls.set(id, list);
        await Promise.resolve();
        inFlight--;
        return job(id, 'in-process', list.length);
      },
    });
    for (let i = 0; i < 5000; i++) follower.follow({ jobId: `job-${i}`, workflowId: WF });
    expect(clock.pending()).toBe(1);
    for (let t = 0; t < 10_500; t += 250) await clock.advance(250);
    expect(calls.size).toBe(5000);
    for (const times of calls.values()) {
      // reads at 0, 1000, ..., 10000: 11 in 10.5 s, never two within one interval
      expect(times).toHaveLength(11);
      for (let i = 1; i < times.length; i++) expect(times[i] - times[i - 1]).toBeGreaterThanOrEqual(1000);
    }
    expect(follower.requests).toBe(55_000);
    expect(maxInFlight).toBeLessThanOrEqual(8);
    expect(maxTimers).toBe(1);
    follower.close({ persist: false });
    expect(clock.pending()).toBe(0);
  });

  it('keeps at most `concurrency` requests in flight', async () => {
    const clock = new ManualClock(0);
    const pending: { id: string; resolve: (j: WorkflowJob) => void }[] = [];
    let maxInFlight = 0;
    const follower = new JobFollower({
      clock,
      intervalMs: 50,
      concurrency: 3,
      getJob: (_wf, id) =>
        new Promise<WorkflowJob>((resolve) => {
          pending.push({ id, resolve });
          maxInFlight = Math.max(maxInFlight, follower.inFlight);
        }),
    });
    for (let i = 0; i < 10; i++) follower.follow({ jobId: `j${i}`, workflowId: WF });
    await clock.advance(0);
    expect(pending).toHaveLength(3);
    expect(follower.inFlight).toBe(3);
    await clock.advance(500);
    expect(pending).toHaveLength(3);
    // completing one lets exactly one more start
    pending.shift()!.resolve(job('j0', 'succeeded'));
    await clock.advance(0);
    expect(follower.inFlight).toBe(3);
    expect(pending.map((p) => p.id)).toEqual(['j1', 'j2', 'j3']);
    while (pending.length > 0) {
      const p = pending.shift()!;
      p.resolve(job(p.id, 'succeeded'));
      await clock.advance(0);
      expect(follower.inFlight).toBeLessThanOrEqual(3);
    }
    expect(maxInFlight).toBeLessThanOrEqual(3);
    expect(follower.size).toBe(0);
    expect(follower.requests).toBe(10);
  });

  it('backs off exponentially on transient errors up to the maximum, then resets', async () => {
    const e503 = new MediaSpacesError({ status: 503, code: 'server_error', message: 'busy' });
    const e429 = new MediaSpacesError({ status: 429, code: 'rate_limited', message: 'slow down' });
    const net = new MediaSpacesError({ code: 'network_error', message: 'reset' });
    const s = scripted({
      b: [e503, e429, net, e503, e503, job('b', 'in-process', 1), job('b', 'in-process', 2), job('b', 'succeeded')],
    });
    const { clock, follower, rec } = setup(s.fn);
    s.bind(clock);
    const t0 = clock.now();
    follower.follow({ jobId: 'b', workflowId: WF });
    await clock.advance(10_000);
    const offsets = s.calls.map((c) => c.at - t0);
    // 0, then +200, +400, +800, +800 (capped), +800, then the plain interval again
    expect(offsets).toEqual([0, 200, 600, 1400, 2200, 3000, 3100, 3200]);
    expect(rec.retries.map((r) => r.delay)).toEqual([200, 400, 800, 800, 800]);
    expect(rec.errors).toHaveLength(0);
    expect(rec.done).toHaveLength(1);
    expect(pollDelay(resolveTiming({ intervalMs: 100, backoffMaxMs: 800 }), 0)).toBe(100);
  });

  it('ends the follow on 404 and on 401, without further requests', async () => {
    const s = scripted({
      gone: [job('gone', 'in-process', 1), new MediaSpacesError({ status: 404, code: 'not_found', message: 'nope' })],
      auth: [new MediaSpacesError({ status: 401, code: 'unauthorized', message: 'no' })],
    });
    const { clock, follower, rec } = setup(s.fn);
    s.bind(clock);
    follower.follow({ jobId: 'gone', workflowId: WF, data: { n: 1 } });
    follower.follow({ jobId: 'auth', workflowId: WF, data: { n: 2 } });
    await clock.advance(5000);
    expect(rec.errors.map((e) => (e.error as MediaSpacesError).code).sort()).toEqual(['not_found', 'unauthorized']);
    expect(rec.errors.find((e) => e.entry.jobId === 'gone')!.waiters[0].data).toEqual({ n: 1 });
    expect(s.calls.filter((c) => c.id === 'gone')).toHaveLength(2);
    expect(s.calls.filter((c) => c.id === 'auth')).toHaveLength(1);
    expect(follower.size).toBe(0);
    expect(rec.persisted.at(-1)).toEqual([]);
  });

  it('times out a waiter whose deadline passes', async () => {
    const s = scripted({ slow: [job('slow', 'in-process', 1)] });
    const { clock, follower, rec } = setup(s.fn, { timeoutMs: 350 });
    s.bind(clock);
    follower.follow({ jobId: 'slow', workflowId: WF });
    await clock.advance(1000);
    expect(rec.errors).toHaveLength(1);
    expect(rec.errors[0].error).toBeInstanceOf(WatchError);
    expect((rec.errors[0].error as WatchError).code).toBe('timeout');
    expect(s.calls.map((c) => c.at - 1_000_000)).toEqual([0, 100, 200, 300]);
    expect(follower.size).toBe(0);
  });

  it('shares one poll between two waiters of the same job', async () => {
    const s = scripted({ d: [job('d', 'in-process', 1), job('d', 'in-process', 2), job('d', 'succeeded')] });
    const doneWaiters: string[] = [];
    const { clock, follower } = setup(s.fn, {
      onDone: (_j, entry) => doneWaiters.push(...entry.waiters.map((w) => w.handle!)),
    });
    s.bind(clock);
    follower.follow({ jobId: 'd', workflowId: WF, handle: 'first' });
    follower.follow({ jobId: 'd', workflowId: WF, handle: 'second' });
    expect(follower.size).toBe(1);
    await clock.advance(1000);
    expect(s.calls).toHaveLength(3);
    expect(doneWaiters).toEqual(['first', 'second']);
  });

  it('close() clears the timer, aborts in-flight requests and calls nothing afterwards', async () => {
    const clock = new ManualClock(0);
    const signals: AbortSignal[] = [];
    /** Each request's answer, given by the test: no real timer runs beside the manual clock. */
    const answers: Array<() => void> = [];
    let callbacks = 0;
    const follower = new JobFollower({
      clock,
      intervalMs: 100,
      concurrency: 2,
      // the first request stops when aborted; the second ignores its signal and answers late
      getJob: (_wf, id, signal) =>
        new Promise<WorkflowJob>((resolve, reject) => {
          if (signals.push(signal) === 1) {
            signal.addEventListener('abort', () => reject(new MediaSpacesError({ code: 'aborted', message: 'x' })));
          }
          answers.push(() => resolve(job(id, 'succeeded')));
        }),
      onDone: () => callbacks++,
      onError: () => callbacks++,
      onProgress: () => callbacks++,
    });
    for (let i = 0; i < 5; i++) follower.follow({ jobId: `c${i}`, workflowId: WF });
    await clock.advance(0);
    expect(signals).toHaveLength(2);
    follower.close();
    expect(signals.every((s) => s.aborted)).toBe(true);
    expect(clock.pending()).toBe(0);
    for (const answer of answers) answer();
    await clock.advance(1000);
    expect(callbacks).toBe(0);
    expect(signals).toHaveLength(2);
    expect(() => follower.follow({ jobId: 'late', workflowId: WF })).toThrow(/closed/);
  });

  it('persists the followed set and resumes it after a restart', async () => {
    const states: Record<string, WorkflowJob[]> = {
      p: [job('p', 'in-process', 20), job('p', 'in-process', 20), job('p', 'in-process', 60), job('p', 'succeeded')],
      q: [job('q', 'in-process', 5)],
    };
    let calls = 0;
    const getJob = async (_wf: string, id: string) => {
      calls++;
      return states[id].shift() ?? job(id, 'in-process', 5);
    };
    const first = setup(getJob, { timeoutMs: 60_000 });
    first.follower.follow({ jobId: 'p', workflowId: WF, data: { topic: 'p-msg' } });
    first.follower.follow({ jobId: 'q', workflowId: WF, data: { topic: 'q-msg' } });
    await first.clock.advance(0);
    expect(first.rec.progress.map((p) => p.progress).sort()).toEqual([20, 5]);
    first.follower.close();
    const saved = first.rec.persisted.at(-1)!;
    expect(saved).toHaveLength(2);
    const p = saved.find((r) => r.jobId === 'p')!;
    expect(p).toMatchObject({
      workflowId: WF,
      state: 'in-process',
      progress: 20,
      waiters: [{ data: { topic: 'p-msg' } }],
    });
    expect(p.waiters[0].deadline).toBe(1_000_000 + 60_000);
    // JSON round trip, as a context store would do
    const restored = JSON.parse(JSON.stringify(saved));

    const second = setup(getJob);
    expect(second.follower.resume(restored)).toBe(2);
    await second.clock.advance(1000);
    // 20 was already reported before the restart; 60 is new
    expect(second.rec.progress.filter((x) => x.id === 'p').map((x) => x.progress)).toEqual([60]);
    expect(second.rec.progress.filter((x) => x.id === 'q')).toEqual([]);
    expect(second.rec.done.map((j) => j.id)).toEqual(['p']);
    expect(second.follower.get(WF, 'q')!.waiters[0]).toMatchObject({ data: { topic: 'q-msg' }, deadline: 1_060_000 });
    expect(second.follower.resume('garbage')).toBe(0);
    expect(second.follower.resume([null, { jobId: 1 }, { jobId: 'x', workflowId: '' }])).toBe(0);
    expect(calls).toBeGreaterThan(2);
    second.follower.close({ persist: false });
  });

  it('gives its own entries to onPersist, which JSON turns into the saved form; snapshot() gives copies', async () => {
    const s = scripted({ r: [job('r', 'in-process', 10), job('r', 'in-process', 30)] });
    const { clock, follower, rec } = setup(s.fn, { keepJobBodies: false });
    s.bind(clock);
    const data = { topic: 'r-msg' };
    follower.follow({ jobId: 'r', workflowId: WF, data, handle: 'live-handle', key: 'k1' });
    await clock.advance(0);
    const records = rec.persisted.at(-1)!;
    const copy = follower.snapshot();
    expect(JSON.parse(JSON.stringify(records))).toEqual([
      { jobId: 'r', workflowId: WF, state: 'in-process', progress: 10, waiters: [{ data, key: 'k1' }] },
    ]);
    // the waiter's handle is runtime-only: no store sees it, the follower's callbacks do
    expect(Object.keys(records[0].waiters[0])).not.toContain('handle');
    expect(follower.get(WF, 'r')!.waiters[0].handle).toBe('live-handle');
    await clock.advance(100);
    expect(rec.progress.map((p) => p.progress)).toEqual([10, 30]);
    // the entry given before reads as the job is now; the snapshot taken then does not change
    expect(records[0].progress).toBe(30);
    expect(copy[0].progress).toBe(10);
    // a second follower resumes from the records as a store keeping objects hands them back
    const second = setup(s.fn);
    expect(second.follower.resume(records)).toBe(1);
    expect(second.follower.get(WF, 'r')).toMatchObject({ state: 'in-process', progress: 30 });
    expect(second.follower.get(WF, 'r')!.waiters[0]).toMatchObject({ data, key: 'k1', handle: undefined });
    follower.close({ persist: false });
    second.follower.close({ persist: false });
  });

  it('saves at once after a quiet period, then at most once per persistDelayMs', async () => {
    const s = scripted({ t: [job('t', 'in-process', 1), job('t', 'in-process', 2), job('t', 'in-process', 3)] });
    const { clock, follower, rec } = setup(s.fn, { persistDelayMs: 1000 });
    s.bind(clock);
    follower.follow({ jobId: 't', workflowId: WF });
    await clock.advance(0);
    expect(rec.persisted).toHaveLength(1);
    await clock.advance(300);
    expect(rec.persisted).toHaveLength(1);
    await clock.advance(1000);
    expect(rec.persisted.length).toBeGreaterThan(1);
    expect(rec.persisted.at(-1)![0].progress).toBe(3);
    const saves = rec.persisted.length;
    follower.unfollow(WF, 't');
    // the removal is saved by the follower's one timer once the delay has passed
    expect(clock.pending()).toBe(1);
    await clock.advance(1000);
    expect(rec.persisted).toHaveLength(saves + 1);
    expect(rec.persisted.at(-1)).toEqual([]);
    expect(clock.pending()).toBe(0);
  });

  it('saves a burst of 5,000 completions in a few snapshots, not one per job', async () => {
    const clock = new ManualClock(0);
    let saves = 0;
    const follower = new JobFollower({
      clock,
      intervalMs: 1000,
      concurrency: 8,
      persistDelayMs: 500,
      getJob: async (_wf, id) => job(id, 'succeeded'),
      onPersist: () => saves++,
    });
    for (let i = 0; i < 5000; i++) follower.follow({ jobId: `b${i}`, workflowId: WF });
    await clock.advance(2000);
    expect(follower.size).toBe(0);
    expect(follower.requests).toBe(5000);
    expect(saves).toBeLessThanOrEqual(3);
  });

  it('survives throwing callbacks and a throwing getJob', async () => {
    let n = 0;
    const clock = new ManualClock(0);
    const follower = new JobFollower({
      clock,
      intervalMs: 10,
      getJob: (_wf, id) => {
        n++;
        if (n === 1) throw new Error('sync boom');
        return Promise.resolve(job(id, n < 4 ? 'in-process' : 'succeeded', n));
      },
      onProgress: () => {
        throw new Error('callback boom');
      },
      onDone: () => {
        throw new Error('callback boom');
      },
    });
    follower.follow({ jobId: 'x', workflowId: WF });
    await clock.advance(1000);
    expect(follower.size).toBe(0);
    expect(n).toBe(4);
    expect(() => follower.follow({ jobId: '', workflowId: WF })).toThrow(/job_id is required/);
  });
});

import { describe, expect, it } from 'vitest';
import { MediaSpacesError } from '../../../lib/errors';
import type { Workflow } from '../../../lib/schemas';
import {
  diffWorkflows,
  serializableOrSelf,
  stableStringify,
  toSerializable,
  WatchError,
  WorkflowActiveWaiter,
  type WorkflowChange,
  WorkflowWatcher,
  waitForWorkflowActive,
} from '../../../lib/watch';
import { ManualClock } from '../../support/manual-clock';

const ID = (n: number) => `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`;
const wf = (n: number, status = 'active', extra: Partial<Workflow> = {}): Workflow =>
  ({ id: ID(n), name: `wf-${n}`, status, updated_at: '2024-01-01T00:00:00Z', ...extra }) as Workflow;

describe('diffWorkflows', () => {
  it('reports added, changed and removed workflows by id', () => {
    const before = [wf(1), wf(2, 'idle'), wf(3)];
    const after = [wf(2, 'active'), wf(4), wf(1)];
    const changes = diffWorkflows(before, after);
    expect(changes.map((c) => `${c.type}:${c.workflow.name}`)).toEqual(['changed:wf-2', 'added:wf-4', 'removed:wf-3']);
    expect(changes[0].previous?.status).toBe('idle');
    expect(changes[0].workflow.status).toBe('active');
  });

  it('ignores key order and reports any field change', () => {
    const a = { id: ID(1), name: 'x', status: 'active', extra: { b: 1, a: 2 } } as Workflow;
    const b = { status: 'active', extra: { a: 2, b: 1 }, name: 'x', id: ID(1) } as Workflow;
    expect(diffWorkflows([a], [b])).toEqual([]);
    expect(stableStringify(a)).toBe(stableStringify(b));
    expect(diffWorkflows([a], [{ ...b, updated_at: 'later' }]).map((c) => c.type)).toEqual(['changed']);
    expect(diffWorkflows([], [])).toEqual([]);
  });
});

describe('WorkflowWatcher', () => {
  function watcher(lists: (Workflow[] | Error)[], emitInitial = false) {
    const clock = new ManualClock(0);
    const emitted: WorkflowChange[][] = [];
    const errors: { error: unknown; transient: boolean; retryInMs?: number }[] = [];
    const callTimes: number[] = [];
    const w = new WorkflowWatcher({
      clock,
      intervalMs: 100,
      backoffMaxMs: 400,
      emitInitial,
      list: async () => {
        callTimes.push(clock.now());
        const next = lists.length > 1 ? lists.shift()! : lists[0];
        if (next instanceof Error) throw next;
        return next;
      },
      onChanges: (c) => emitted.push(c),
      onError: (error, info) => errors.push({ error, ...info }),
    });
    return { clock, w, emitted, errors, callTimes };
  }

  it('establishes a silent baseline, then emits changes every interval', async () => {
    const { clock, w, emitted, callTimes } = watcher([
      [wf(1), wf(2)],
      [wf(1), wf(2)],
      [wf(1, 'idle'), wf(3)],
    ]);
    w.start();
    await clock.advance(0);
    expect(emitted).toEqual([]);
    expect(w.workflows).toHaveLength(2);
    await clock.advance(100);
    expect(emitted).toEqual([]);
    await clock.advance(100);
    expect(emitted).toHaveLength(1);
    expect(emitted[0].map((c) => `${c.type}:${c.workflow.name}`)).toEqual([
      'changed:wf-1',
      'added:wf-3',
      'removed:wf-2',
    ]);
    expect(callTimes).toEqual([0, 100, 200]);
    w.close();
    expect(clock.pending()).toBe(0);
  });

  it('emits the initial list as added when emitInitial is set', async () => {
    const { clock, w, emitted } = watcher([[wf(1), wf(2)]], true);
    const result = await w.pollNow();
    expect(result.baseline).toBe(true);
    expect(result.changes.map((c) => c.type)).toEqual(['added', 'added']);
    expect(emitted).toHaveLength(1);
    w.close();
    expect(clock.pending()).toBe(0);
  });

  it('backs off on transient errors and stops on a 401 until polled again', async () => {
    const e503 = new MediaSpacesError({ status: 503, code: 'server_error', message: 'busy' });
    const e401 = new MediaSpacesError({ status: 401, code: 'unauthorized', message: 'no' });
    const { clock, w, errors, callTimes } = watcher([[wf(1)], e503, e503, e503, e401, [wf(1), wf(2)]]);
    w.start();
    await clock.advance(2000);
    expect(callTimes).toEqual([0, 100, 300, 700, 1100]);
    expect(errors.map((e) => e.retryInMs)).toEqual([200, 400, 400, undefined]);
    expect(errors.at(-1)!.transient).toBe(false);
    expect(w.stopped).toBe(true);
    expect(clock.pending()).toBe(0);
    const result = await w.pollNow();
    expect(result.changes.map((c) => c.type)).toEqual(['added']);
    expect(w.stopped).toBe(false);
    expect(clock.pending()).toBe(1);
    w.close();
  });

  it('serialises forced polls and rejects them on failure without calling onError', async () => {
    const { w, errors, callTimes } = watcher([
      [wf(1)],
      new MediaSpacesError({ status: 404, code: 'not_found', message: 'x' }),
    ]);
    const [a, b] = [w.pollNow(), w.pollNow()];
    await expect(a).resolves.toMatchObject({ baseline: true });
    await expect(b).rejects.toMatchObject({ code: 'not_found' });
    expect(errors).toEqual([]);
    expect(callTimes).toHaveLength(2);
    w.close();
    await expect(w.pollNow()).rejects.toMatchObject({ code: 'aborted' });
  });
});

describe('WorkflowActiveWaiter', () => {
  it('resolves every waiter from one shared poll per interval', async () => {
    const clock = new ManualClock(0);
    const lists = [
      [wf(1, 'idle'), wf(2, 'idle')],
      [wf(1, 'idle'), wf(2, 'active')],
      [wf(1, 'active'), wf(2, 'active')],
    ];
    let reads = 0;
    const active: string[] = [];
    const waiter = new WorkflowActiveWaiter<string>({
      clock,
      intervalMs: 100,
      list: async () => lists[Math.min(reads++, lists.length - 1)],
      onActive: (w, h) => active.push(`${h}:${w.name}`),
      onFail: (e) => {
        throw e;
      },
    });
    for (let i = 0; i < 50; i++) waiter.wait({ workflow: i % 2 ? 'wf-2' : ID(1), handle: `m${i}` });
    await clock.advance(0);
    expect(reads).toBe(1);
    expect(active).toEqual([]);
    await clock.advance(100);
    expect(reads).toBe(2);
    expect(active).toHaveLength(25);
    expect(active.every((a) => a.endsWith(':wf-2'))).toBe(true);
    await clock.advance(100);
    expect(reads).toBe(3);
    expect(active).toHaveLength(50);
    expect(waiter.size).toBe(0);
    await clock.advance(1000);
    expect(reads).toBe(3);
    expect(clock.pending()).toBe(0);
  });

  it('fails on deleted or archived, on an unknown id, and on timeout; waits for an unknown name', async () => {
    const clock = new ManualClock(0);
    const failures: Record<string, string> = {};
    const waiter = new WorkflowActiveWaiter<string>({
      clock,
      intervalMs: 100,
      timeoutMs: 1000,
      list: async () => [wf(1, 'deleted'), wf(2, 'archived'), wf(3, 'idle')],
      onActive: () => {
        throw new Error('not expected');
      },
      onFail: (e, h) => {
        failures[h] = (e as WatchError).code;
      },
    });
    waiter.wait({ workflow: 'wf-1', handle: 'deleted' });
    waiter.wait({ workflow: ID(2), handle: 'archived' });
    waiter.wait({ workflow: ID(99), handle: 'unknown-id' });
    waiter.wait({ workflow: 'not-yet', handle: 'unknown-name', timeoutMs: 250 });
    waiter.wait({ workflow: 'wf-3', handle: 'idle' });
    await clock.advance(0);
    expect(failures).toEqual({
      deleted: 'workflow_deleted',
      archived: 'workflow_archived',
      'unknown-id': 'workflow_not_found',
    });
    await clock.advance(250);
    expect(failures['unknown-name']).toBe('timeout');
    expect(failures.idle).toBeUndefined();
    await clock.advance(750);
    expect(failures.idle).toBe('timeout');
    expect(waiter.size).toBe(0);
    expect(() => waiter.wait({ workflow: ' ', handle: 'x' })).toThrow(/required/);
  });

  it('retries transient errors and fails every waiter on a 401', async () => {
    const clock = new ManualClock(0);
    const results: (WorkflowChange | MediaSpacesError | string)[] = [];
    const answers: (Error | Workflow[])[] = [
      new MediaSpacesError({ status: 502, code: 'server_error', message: 'x' }),
      new MediaSpacesError({ code: 'network_error', message: 'x' }),
      new MediaSpacesError({ status: 401, code: 'unauthorized', message: 'x' }),
    ];
    const times: number[] = [];
    const waiter = new WorkflowActiveWaiter<string>({
      clock,
      intervalMs: 100,
      list: async () => {
        times.push(clock.now());
        const a = answers.shift()!;
        if (a instanceof Error) throw a;
        return a;
      },
      onActive: () => results.push('active'),
      onFail: (e, h) => results.push(`${h}:${(e as MediaSpacesError).code}`),
    });
    waiter.wait({ workflow: 'a', handle: 'a' });
    waiter.wait({ workflow: 'b', handle: 'b' });
    await clock.advance(5000);
    expect(times).toEqual([0, 200, 600]);
    expect(results).toEqual(['a:unauthorized', 'b:unauthorized']);
  });

  it('waitForWorkflowActive resolves, rejects, and honours an abort signal', async () => {
    const clock = new ManualClock(0);
    let status = 'idle';
    const p = waitForWorkflowActive({ clock, intervalMs: 50, workflow: 'wf-7', list: async () => [wf(7, status)] });
    await clock.advance(120);
    status = 'active';
    await clock.advance(50);
    await expect(p).resolves.toMatchObject({ name: 'wf-7', status: 'active' });

    const gone = waitForWorkflowActive({ clock, workflow: 'wf-7', list: async () => [wf(7, 'deleted')] });
    const goneResult = expect(gone).rejects.toBeInstanceOf(WatchError);
    await clock.advance(0);
    await goneResult;

    const ac = new AbortController();
    const aborted = waitForWorkflowActive({ clock, workflow: 'x', signal: ac.signal, list: async () => [] });
    ac.abort();
    await expect(aborted).rejects.toMatchObject({ code: 'aborted' });
    expect(clock.pending()).toBe(0);
  });
});

describe('toSerializable', () => {
  it('keeps plain data and drops what a context store cannot hold', () => {
    const cyclic: Record<string, unknown> = { a: 1 };
    cyclic.self = cyclic;
    const msg = {
      _msgid: 'm1',
      payload: { id: 'j', n: 1n },
      fn: () => 1,
      req: { socket: {} },
      res: {},
      cyclic,
      buf: Buffer.from('hi'),
      when: new Date(0),
    };
    expect(toSerializable(msg)).toEqual({
      _msgid: 'm1',
      payload: { id: 'j', n: '1' },
      cyclic: { a: 1 },
      buf: { type: 'Buffer', data: [104, 105] },
      when: '1970-01-01T00:00:00.000Z',
    });
    expect(toSerializable(null)).toEqual({});
    expect(toSerializable([1])).toEqual({});
  });

  it('copies a plain message exactly as the JSON round trip would, sharing its strings', () => {
    // the general path, as toSerializable did it for every message before
    const roundTrip = (m: object) => {
      const seen = new WeakSet<object>();
      const text = JSON.stringify(m, function replacer(this: unknown, k: string, v: unknown) {
        if (this === m && k === 'req') return undefined;
        if (typeof v === 'function' || typeof v === 'symbol') return undefined;
        if (v !== null && typeof v === 'object') {
          if (seen.has(v)) return undefined;
          seen.add(v);
        }
        return v;
      });
      return JSON.parse(text);
    };
    const shared = { x: 1 };
    const cases: Record<string, unknown>[] = [
      { _msgid: 'a', payload: { id: 'j', workflow_id: 'w', state: 'created' }, topic: '' },
      { list: [1, undefined, null, 'x', [true, -0]], gone: undefined, inf: Number.POSITIVE_INFINITY, nan: Number.NaN },
      JSON.parse('{"__proto__": {"polluted": true}, "ok": 1}'),
      { 2: 'b', 1: 'a', z: { nested: { deeper: [{}] } } },
      { req: { socket: {} }, kept: 'yes' },
      { twice: [shared, shared] },
      { sym: Symbol('s'), fn: () => 1, obj: Object.create(null) },
    ];
    for (const msg of cases) {
      const copy = toSerializable(msg);
      expect(copy).toStrictEqual(roundTrip(msg));
      expect(Object.getPrototypeOf(copy)).toBe(Object.prototype);
      expect(Object.keys(copy)).toEqual(Object.keys(roundTrip(msg)));
    }
    const msg = { payload: { job: { id: 'j' } } };
    const copy = toSerializable(msg);
    expect(copy.payload).not.toBe(msg.payload);
    msg.payload.job.id = 'changed';
    expect(copy).toEqual({ payload: { job: { id: 'j' } } });
  });

  it('serializableOrSelf gives a plain JSON message itself, and a copy of anything a round trip would change', () => {
    const plain = [
      { _msgid: 'a', payload: { id: 'j', workflow_id: 'w', state: 'created' }, topic: '' },
      { list: [1, null, 'x', [true, 0.5]], nested: { deeper: [{}] }, flag: false },
    ];
    for (const msg of plain) {
      expect(serializableOrSelf(msg)).toBe(msg);
      expect(JSON.parse(JSON.stringify(msg))).toStrictEqual(msg);
    }
    const shared = { x: 1 };
    const changed: Record<string, unknown>[] = [
      { gone: undefined, kept: 1 },
      { list: [1, undefined] },
      { n: -0 },
      { n: Number.NaN },
      { big: 1n },
      { req: {}, kept: 'yes' },
      { twice: [shared, shared] },
      { obj: Object.create(null) },
      { when: new Date(0) },
      { fn: () => 1 },
      JSON.parse('{"__proto__": {"polluted": true}, "ok": 1}'),
      {
        get boom(): never {
          throw new Error('no');
        },
      },
    ];
    for (const msg of changed) {
      const copy = serializableOrSelf(msg);
      // identity only: a deep comparison would run the throwing getter
      expect(copy === msg).toBe(false);
      expect(copy).toStrictEqual(toSerializable(msg));
    }
  });

  it('turns a throwing getter into an empty copy, as before', () => {
    const msg = {
      get boom(): never {
        throw new Error('no');
      },
    };
    expect(toSerializable(msg)).toEqual({});
  });
});

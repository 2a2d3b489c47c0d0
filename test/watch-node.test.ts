import type { ServerResponse } from 'node:http';
import { createRequire } from 'node:module';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type Simulator, startSimulator } from '../lib/simulator';
import { nodeModule } from './support/node-modules';
import { json, type Stub, startStub } from './support/stub-server';

/**
 * media-spaces-watch in a real Node-RED runtime (node-red-node-test-helper),
 * loading the compiled nodes from dist/ (run `npm run build` first), against
 * the reference simulator over HTTP with a manual clock: the test moves the
 * simulator's time while the node polls every 20 ms of real time.
 */
const require = createRequire(import.meta.url);
// biome-ignore lint/suspicious/noExplicitAny: the helper ships no types
const helper: any = require('node-red-node-test-helper');
const configNode = nodeModule('media-spaces-config');
const submitNode = nodeModule('media-spaces-submit-job');
const watchNode = nodeModule('media-spaces-watch');
helper.init(require.resolve('node-red'));

const SPACE = '11111111-1111-4111-8111-111111111111';
const WF_TRANSCODE = 'aaaaaaaa-0000-4000-8000-000000000001';
const WF_FAILS = 'aaaaaaaa-0000-4000-8000-000000000005';
const WF_IDLE = 'aaaaaaaa-0000-4000-8000-000000000020';
const WF_ARCHIVED = 'aaaaaaaa-0000-4000-8000-000000000021';
const CONTEXT_KEY = 'mediaSpacesFollowedJobs';

type Msg = Record<string, unknown> & { payload?: unknown };
// biome-ignore lint/suspicious/noExplicitAny: Node-RED node objects are untyped here
type AnyNode = any;

let sim: Simulator;
/** The watch node's id, new for every test: a node id carries its followed jobs across restarts. */
let W = 'w';
let seq = 0;

beforeAll(async () => {
  sim = await startSimulator({ manualClock: true });
});
afterAll(async () => {
  await sim.close();
});
beforeEach(() => {
  W = `watch-${++seq}`;
});
afterEach(async () => {
  await helper.unload();
});

function config(url = sim.workflowUrl, id = 'cfg') {
  return {
    id,
    type: 'media-spaces-config',
    name: 'sim',
    workflowUrl: url,
    spaceId: SPACE,
    workflowPrefix: '/workflow/v1',
    timeout: 2000,
    retries: 0,
  };
}
const credentials = (key = 'demo-admin-key') => ({ cfg: { apiKey: key } });

function watch(props: Record<string, unknown>) {
  return { id: W, type: 'media-spaces-watch', server: 'cfg', interval: 20, wires: [['out1'], ['out2']], ...props };
}
const outputs = [
  { id: 'out1', type: 'helper' },
  { id: 'out2', type: 'helper' },
];

/** Collects what a node sends and the errors it reports (done(err) and node.error both end in node.error). */
function record(id: string): Msg[] {
  const list: Msg[] = [];
  helper.getNode(id).on('input', (msg: Msg) => list.push(msg));
  return list;
}
function errorsOf(node: AnyNode): { err: Error; msg: Msg }[] {
  const list: { err: Error; msg: Msg }[] = [];
  node.on('call:error', (call: { args: [Error, Msg] }) => list.push({ err: call.args[0], msg: call.args[1] }));
  return list;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Polls `done` every 10 ms of real time, moving the simulator's clock by `simStep` each time. */
async function until(done: () => boolean, simStep = 0, limitMs = 8000): Promise<void> {
  const end = Date.now() + limitMs;
  while (!done()) {
    if (Date.now() > end) throw new Error('condition not reached in time');
    if (simStep > 0) sim.advance(simStep);
    await sleep(10);
  }
}

describe('media-spaces-watch job mode (runtime, simulator)', () => {
  it('follows a submitted job to succeeded, with progress messages only on change', async () => {
    await helper.load(
      [configNode, submitNode, watchNode],
      [
        config(),
        { id: 'submit', type: 'media-spaces-submit-job', server: 'cfg', wires: [[W]] },
        watch({ mode: 'job' }),
        ...outputs,
      ],
      credentials(),
    );
    const done = record('out1');
    const progress = record('out2');
    const errors = errorsOf(helper.getNode(W));
    helper.getNode('submit').receive({ workflow_id: WF_TRANSCODE, payload: {}, tag: 'keep-me' });
    await until(() => done.length > 0 || errors.length > 0, 400);
    expect(errors).toEqual([]);
    expect(done).toHaveLength(1);
    const final = done[0];
    const job = final.payload as Record<string, unknown>;
    expect(job).toMatchObject({ workflow_id: WF_TRANSCODE, state: 'succeeded', progress: 100 });
    expect(typeof job.elapsed_time).toBe('string');
    expect(final).toMatchObject({ tag: 'keep-me', state: 'succeeded', job_id: job.id, workflow_id: WF_TRANSCODE });
    expect(progress.length).toBeGreaterThan(0);
    let previous = 'created:0';
    for (const p of progress) {
      const key = `${p.state}:${p.progress}`;
      expect(key).not.toBe(previous);
      expect(p.job_id).toBe(job.id);
      expect(p.tag).toBe('keep-me');
      previous = key;
    }
    expect(progress.every((p) => p.state === 'in-process' || p.state === 'created')).toBe(true);
    const values = progress.map((p) => p.progress as number);
    expect([...values].sort((a, b) => a - b)).toEqual(values);
    // nothing is followed any more: no further requests for this job
    const polls = () => sim.requests().filter((r) => r.path.includes(String(job.id))).length;
    const before = polls();
    await sleep(100);
    expect(polls()).toBe(before);
    await untilAsync(async () => (await contextOf(W)) === undefined);
  });

  it('rides out transient errors (503, dropped connections) and still finishes', async () => {
    await helper.load(
      [configNode, submitNode, watchNode],
      [
        config(),
        { id: 'submit', type: 'media-spaces-submit-job', server: 'cfg', wires: [[W]] },
        watch({ mode: 'job', backoffMax: 80 }),
        ...outputs,
      ],
      credentials(),
    );
    const done = record('out1');
    const errors = errorsOf(helper.getNode(W));
    sim.addFault({ route: 'job', kind: 'status', status: 503, count: 3 });
    sim.addFault({ route: 'job', kind: 'drop', count: 2 });
    helper.getNode('submit').receive({ workflow_id: WF_TRANSCODE, payload: {} });
    await until(() => done.length > 0 || errors.length > 0, 300);
    sim.clearFaults();
    expect(errors).toEqual([]);
    expect(done[0].payload).toMatchObject({ state: 'succeeded' });
    const faulted = sim.requests().filter((r) => r.route === 'job' && r.fault);
    expect(faulted.length).toBeGreaterThanOrEqual(3);
  });

  it('ends a failed job with done(err): msg.error.code job_failed and the job on msg.payload', async () => {
    await helper.load(
      [configNode, submitNode, watchNode],
      [
        config(),
        { id: 'submit', type: 'media-spaces-submit-job', server: 'cfg', wires: [[W]] },
        watch({ mode: 'job' }),
        ...outputs,
      ],
      credentials(),
    );
    const done = record('out1');
    const errors = errorsOf(helper.getNode(W));
    helper.getNode('submit').receive({ workflow_id: WF_FAILS, payload: {} });
    await until(() => errors.length > 0, 500);
    await sleep(30);
    expect(done).toEqual([]);
    expect(errors).toHaveLength(1);
    const { err, msg } = errors[0];
    expect((err as Error & { code?: string }).code).toBe('job_failed');
    expect(msg.error).toMatchObject({ code: 'job_failed', state: 'failed', workflowId: WF_FAILS });
    expect(msg.payload).toMatchObject({ state: 'failed' });
    expect(msg.statusCode).toBeUndefined();
  });

  it('fails fast on bad input and on an unknown job (404), one error per input', async () => {
    await helper.load([configNode, watchNode], [config(), watch({ mode: 'job' }), ...outputs], credentials());
    const w = helper.getNode(W);
    const errors = errorsOf(w);
    w.receive({ payload: 'nothing here' });
    w.receive({ job_id: 'j1', workflow_id: 'not-a-uuid' });
    w.receive({ job_id: 'dddddddd-0000-4000-8000-000000000001', workflow_id: WF_TRANSCODE, n: 3 });
    w.receive({ job_id: 'not-a-job-id', workflow_id: WF_TRANSCODE, n: 4 });
    await until(() => errors.length >= 4);
    await sleep(60);
    expect(errors).toHaveLength(4);
    const byN = (n: number) => errors.find((e) => e.msg.n === n)!.msg;
    expect(errors.slice(0, 2).map((e) => (e.msg.error as { code: string }).code)).toEqual([
      'invalid_input',
      'invalid_input',
    ]);
    // 404 and 400 end the follow at once, without retries
    expect(byN(3)).toMatchObject({ statusCode: 404, error: { code: 'not_found' } });
    expect(byN(4)).toMatchObject({ statusCode: 400, error: { code: 'invalid_request' } });
    expect(sim.requests().filter((r) => r.route === 'job' && r.path.includes('dddddddd'))).toHaveLength(1);
  });

  it('resumes followed jobs after a redeploy, from the node context', async () => {
    const flow = [
      config(),
      { id: 'submit', type: 'media-spaces-submit-job', server: 'cfg', wires: [[W]] },
      watch({ mode: 'job' }),
      ...outputs,
    ];
    await helper.load([configNode, submitNode, watchNode], flow, credentials());
    let progress = record('out2');
    helper.getNode('submit').receive({ workflow_id: WF_TRANSCODE, payload: {}, tag: 'survivor' });
    await until(() => progress.length > 0, 600);
    const saved = (await contextOf(W)) as { jobId: string; state: string; waiters: { data: Msg }[] }[];
    expect(saved).toHaveLength(1);
    expect(saved[0].waiters[0].data.tag).toBe('survivor');
    const jobId = saved[0].jobId;

    // redeploy the watch node with a change: the old instance closes, a new one starts with the same context
    const changed = flow.map((n) => (n.id === W ? { ...n, name: 'renamed' } : n));
    await helper.setFlows(changed, 'nodes', credentials());
    const after = helper.getNode(W);
    expect(after.name).toBe('renamed');

    const done = record('out1');
    progress = record('out2');
    await until(() => done.length > 0, 600);
    expect(done[0]).toMatchObject({ tag: 'survivor', job_id: jobId, state: 'succeeded' });
    await untilAsync(async () => (await contextOf(W)) === undefined);
  });

  it('follows a job written into its context before it starts (restart from a persistent store)', async () => {
    // a job submitted outside the flow
    const res = await fetch(`${sim.workflowUrl}/workflow/v1/${SPACE}/workflows/${WF_TRANSCODE}/jobs`, {
      method: 'POST',
      headers: { authorization: 'Bearer demo-admin-key', 'content-type': 'application/json' },
      body: JSON.stringify({ job_name: 'from-context' }),
    });
    const job = (await res.json()) as { id: string };
    // Node-RED starts with the context a persistent store kept for the node: write it before the node exists
    await helper.load([configNode, watchNode], [config(), ...outputs], credentials());
    await new Promise<void>((resolve, reject) =>
      helper._context.get(W).set(
        CONTEXT_KEY,
        [
          {
            jobId: job.id,
            workflowId: WF_TRANSCODE,
            state: 'created',
            waiters: [{ data: { _msgid: 'old', topic: 'x' } }],
          },
        ],
        (err?: Error) => (err ? reject(err) : resolve()),
      ),
    );
    await helper.setFlows([config(), watch({ mode: 'job' }), ...outputs], 'full', credentials());
    const done = record('out1');
    await until(() => done.length > 0, 600);
    expect(done[0]).toMatchObject({ topic: 'x', job_id: job.id, state: 'succeeded' });
    expect((done[0].payload as { name: string }).name).toBe('from-context');
    await untilAsync(async () => (await contextOf(W)) === undefined);
  });

  it('stops polling and aborts in-flight requests on close', async () => {
    await helper.load(
      [configNode, submitNode, watchNode],
      [
        config(),
        { id: 'submit', type: 'media-spaces-submit-job', server: 'cfg', wires: [[W]] },
        watch({ mode: 'job' }),
        { id: 'w2', type: 'media-spaces-watch', server: 'cfg', mode: 'workflows', interval: 20, wires: [[], []] },
        {
          id: 'w3',
          type: 'media-spaces-watch',
          server: 'cfg',
          mode: 'workflow-active',
          interval: 20,
          wires: [[], []],
        },
        ...outputs,
      ],
      credentials(),
    );
    const progress = record('out2');
    helper.getNode('w3').receive({ workflow_id: WF_IDLE });
    for (let i = 0; i < 3; i++) helper.getNode('submit').receive({ workflow_id: WF_TRANSCODE, payload: {} });
    await until(() => progress.length >= 3, 600);
    // hold the next job reads in the simulator for a long time
    sim.addFault({ route: 'job', kind: 'latency', latency_ms: 5000 });
    await sleep(60);
    const timersBefore = countTimers();
    const started = Date.now();
    await helper.unload();
    expect(Date.now() - started).toBeLessThan(2000);
    const count = sim.requests().length;
    await sleep(150);
    expect(sim.requests().length).toBe(count);
    expect(countTimers()).toBeLessThanOrEqual(timersBefore);
    sim.clearFaults();
  });
});

describe('media-spaces-watch workflow-active mode (runtime)', () => {
  it('passes a message on when its workflow is active, by name or id, and fails archived, unknown and idle ones', async () => {
    await helper.load(
      [configNode, watchNode],
      [config(), watch({ mode: 'workflow-active', workflow: 'QC check' }), ...outputs],
      credentials(),
    );
    const w = helper.getNode(W);
    const out = record('out1');
    const errors = errorsOf(w);
    w.receive({ payload: { keep: 1 } });
    w.receive({ workflow_id: WF_TRANSCODE, payload: 2 });
    w.receive({ workflow_id: WF_ARCHIVED, payload: 3 });
    w.receive({ workflow_id: 'aaaaaaaa-0000-4000-8000-0000000000ff', payload: 4 });
    w.receive({ workflow_id: WF_IDLE, timeout: 100, payload: 5 });
    await until(() => out.length + errors.length >= 5);
    expect(out.map((m) => m.payload)).toEqual([{ keep: 1 }, 2]);
    expect(out[0].workflow).toMatchObject({ name: 'QC check', status: 'active' });
    expect(out[0].workflow_id).toBe((out[0].workflow as { id: string }).id);
    const codes = Object.fromEntries(
      errors.map((e) => [String(e.msg.payload), (e.msg.error as { code: string }).code]),
    );
    expect(codes).toEqual({ '3': 'workflow_archived', '4': 'workflow_not_found', '5': 'timeout' });
  });

  it('waits while the workflow is idle and passes the message once it turns active', async () => {
    const list = new MutableList([{ id: WF_IDLE, name: 'Nightly backup', status: 'idle' }]);
    const stub = await list.start();
    try {
      await helper.load(
        [configNode, watchNode],
        [config(stub.url), watch({ mode: 'workflow-active' }), ...outputs],
        credentials(),
      );
      const out = record('out1');
      helper.getNode(W).receive({ workflow_name: 'Nightly backup', payload: 'go' });
      await until(() => stub.requests.length >= 3);
      expect(out).toEqual([]);
      list.workflows[0].status = 'active';
      await until(() => out.length > 0);
      expect(out[0]).toMatchObject({ payload: 'go', workflow_id: WF_IDLE });
      await helper.unload();
      const total = stub.requests.length;
      await sleep(80);
      expect(stub.requests.length).toBe(total);
    } finally {
      await stub.close();
    }
  });
});

describe('media-spaces-watch workflows mode (runtime)', () => {
  it('emits the simulator list as added with emitInitial, and answers an input on output 2', async () => {
    await helper.load(
      [configNode, watchNode],
      [
        config(),
        watch({ mode: 'workflows', statusFilter: 'archived', emitInitial: true, interval: 60_000 }),
        ...outputs,
      ],
      credentials(),
    );
    const changes = record('out1');
    const replies = record('out2');
    await until(() => changes.length > 0);
    await sleep(50);
    expect(changes.length).toBeGreaterThan(0);
    expect(changes.every((m) => m.topic === 'added' && (m.payload as { status: string }).status === 'archived')).toBe(
      true,
    );
    expect(changes.map((m) => m.workflow_id)).toContain(WF_ARCHIVED);
    helper.getNode(W).receive({ payload: 'now', topic: 'poll' });
    await until(() => replies.length > 0);
    expect(replies[0]).toMatchObject({ topic: 'poll', changes: [], statusCode: 200 });
    expect((replies[0].payload as unknown[]).length).toBe(changes.length);
    expect(changes.length).toBe(changes.length);
  });

  it('reports added, changed and removed workflows after a silent baseline', async () => {
    const list = new MutableList([
      { id: WF_TRANSCODE, name: 'one', status: 'active' },
      { id: WF_IDLE, name: 'two', status: 'idle' },
    ]);
    const stub = await list.start();
    try {
      await helper.load(
        [configNode, watchNode],
        [config(stub.url), watch({ mode: 'workflows' }), ...outputs],
        credentials(),
      );
      const changes = record('out1');
      await until(() => stub.requests.length >= 3);
      expect(changes).toEqual([]);
      list.workflows[1].status = 'active';
      list.workflows.shift();
      list.workflows.push({ id: WF_ARCHIVED, name: 'three', status: 'active' });
      await until(() => changes.length >= 3);
      await sleep(60);
      expect(changes.map((m) => `${m.topic}:${(m.payload as { name: string }).name}`)).toEqual([
        'changed:two',
        'added:three',
        'removed:one',
      ]);
      expect(changes[0].previous).toMatchObject({ status: 'idle' });
      expect(changes[0].payload).toMatchObject({ status: 'active' });
    } finally {
      await helper.unload();
      await stub.close();
    }
  });

  it('stops on 401 with an error Catch nodes see, and polls again on input', async () => {
    await helper.load(
      [configNode, watchNode],
      [config(), watch({ mode: 'workflows' }), ...outputs],
      credentials('wrong-key'),
    );
    const w = helper.getNode(W);
    const errors = errorsOf(w);
    await until(() => errors.length > 0);
    const count = sim.requests().length;
    await sleep(100);
    expect(sim.requests().length).toBe(count);
    expect(errors[0].msg).toMatchObject({ topic: 'error', error: { code: 'unauthorized', status: 401 } });
    w.receive({ payload: 1 });
    await until(() => errors.length > 1);
    expect(errors[1].msg).toMatchObject({ payload: 1, error: { code: 'unauthorized' } });
  });
});

// ------------------------------------------------------------------ helpers

async function untilAsync(done: () => Promise<boolean>, limitMs = 3000): Promise<void> {
  const end = Date.now() + limitMs;
  while (!(await done())) {
    if (Date.now() > end) throw new Error('condition not reached in time');
    await sleep(10);
  }
}

function contextOf(id: string): Promise<unknown> {
  return new Promise((resolve, reject) =>
    helper
      .getNode(id)
      .context()
      .get(CONTEXT_KEY, (err: Error | undefined, value: unknown) => (err ? reject(err) : resolve(value))),
  );
}

function countTimers(): number {
  return process.getActiveResourcesInfo().filter((r) => r === 'Timeout').length;
}

/** A workflow list served over HTTP that the test can change (the simulator's workflows are fixed). */
class MutableList {
  constructor(public workflows: { id: string; name: string; status: string }[]) {}

  start(): Promise<Stub> {
    return startStub((req, res: ServerResponse) => {
      if (req.method === 'GET' && /\/workflows(\?|$)/.test(req.url)) json(res, 200, { workflows: this.workflows });
      else json(res, 404, { error_message: 'not found' });
    });
  }
}

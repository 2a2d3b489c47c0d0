import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type Simulator, startSimulator } from '../../../lib/simulator';
import { nodeModule } from '../../support/node-modules';
import {
  config,
  countTimers,
  credentials,
  errorsOf,
  helper,
  type Msg,
  outputs,
  record,
  SPACE,
  sleep,
  until,
  untilAsync,
  WF_FAILS,
  WF_IDLE,
  WF_TRANSCODE,
} from '../../support/poll-runtime';

/**
 * media-spaces-follow-job in a real Node-RED runtime (node-red-node-test-helper),
 * loading the compiled nodes from dist/ (run `npm run build` first), against
 * the reference simulator over HTTP with a manual clock: the test moves the
 * simulator's time while the node polls every 20 ms of real time.
 */
const configNode = nodeModule('media-spaces-config');
const submitNode = nodeModule('media-spaces-submit-job');
const followJobNode = nodeModule('media-spaces-follow-job');
const watchWorkflowsNode = nodeModule('media-spaces-watch-workflows');
const waitWorkflowNode = nodeModule('media-spaces-wait-workflow');
const CONTEXT_KEY = 'mediaSpacesFollowedJobs';

function followJob(props: Record<string, unknown> = {}) {
  return { id: W, type: 'media-spaces-follow-job', server: 'cfg', interval: 20, wires: [['out1'], ['out2']], ...props };
}

let sim: Simulator;
/** The node's id, new for every test: a node id carries its state across restarts. */
let W = 'w';
let seq = 0;

beforeAll(async () => {
  sim = await startSimulator({ manualClock: true });
});
afterAll(async () => {
  await sim.close();
});
beforeEach(() => {
  W = `follow-${++seq}`;
});
afterEach(async () => {
  await helper.unload();
});

describe('media-spaces-follow-job (runtime, simulator)', () => {
  it('follows a submitted job to succeeded, with progress messages only on change', async () => {
    await helper.load(
      [configNode, submitNode, followJobNode],
      [
        config(sim.workflowUrl),
        { id: 'submit', type: 'media-spaces-submit-job', server: 'cfg', wires: [[W]] },
        followJob(),
        ...outputs,
      ],
      credentials(),
    );
    const done = record('out1');
    const progress = record('out2');
    const errors = errorsOf(helper.getNode(W));
    helper.getNode('submit').receive({ workflow_id: WF_TRANSCODE, payload: {}, tag: 'keep-me' });
    await until(() => done.length > 0 || errors.length > 0, sim, 400);
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
      [configNode, submitNode, followJobNode],
      [
        config(sim.workflowUrl),
        { id: 'submit', type: 'media-spaces-submit-job', server: 'cfg', wires: [[W]] },
        followJob({ backoffMax: 80 }),
        ...outputs,
      ],
      credentials(),
    );
    const done = record('out1');
    const errors = errorsOf(helper.getNode(W));
    sim.addFault({ route: 'job', kind: 'status', status: 503, count: 3 });
    sim.addFault({ route: 'job', kind: 'drop', count: 2 });
    helper.getNode('submit').receive({ workflow_id: WF_TRANSCODE, payload: {} });
    await until(() => done.length > 0 || errors.length > 0, sim, 300);
    sim.clearFaults();
    expect(errors).toEqual([]);
    expect(done[0].payload).toMatchObject({ state: 'succeeded' });
    const faulted = sim.requests().filter((r) => r.route === 'job' && r.fault);
    expect(faulted.length).toBeGreaterThanOrEqual(3);
  });

  it('ends a failed job with done(err): msg.error.code job_failed and the job on msg.payload', async () => {
    await helper.load(
      [configNode, submitNode, followJobNode],
      [
        config(sim.workflowUrl),
        { id: 'submit', type: 'media-spaces-submit-job', server: 'cfg', wires: [[W]] },
        followJob(),
        ...outputs,
      ],
      credentials(),
    );
    const done = record('out1');
    const errors = errorsOf(helper.getNode(W));
    helper.getNode('submit').receive({ workflow_id: WF_FAILS, payload: {} });
    await until(() => errors.length > 0, sim, 500);
    await sleep(30);
    expect(done).toEqual([]);
    expect(errors).toHaveLength(1);
    const { err, msg } = errors[0];
    expect((err as Error & { code?: string }).code).toBe('job_failed');
    expect(msg.error).toMatchObject({ code: 'job_failed', state: 'failed', workflowId: WF_FAILS });
    expect(msg.payload).toMatchObject({ state: 'failed' });
    expect(msg.statusCode).toBeUndefined();
  });

  it('reads the job on msg.payload before msg.job_id and msg.workflow_id, in the one resolver order', async () => {
    await helper.load(
      [configNode, submitNode, followJobNode],
      [
        config(sim.workflowUrl),
        { id: 'submit', type: 'media-spaces-submit-job', server: 'cfg', wires: [['out2']] },
        followJob({ wires: [['out1'], []] }),
        ...outputs,
      ],
      credentials(),
    );
    const submitted = record('out2');
    helper.getNode('submit').receive({ workflow_id: WF_TRANSCODE, payload: {} });
    await until(() => submitted.length > 0, sim, 0);
    const done = record('out1');
    const errors = errorsOf(helper.getNode(W));
    // the job submit-job made on msg.payload, and ids of another job on msg (left from an earlier follow, say)
    const other = { job_id: 'dddddddd-0000-4000-8000-0000000000aa', workflow_id: WF_FAILS };
    helper.getNode(W).receive({ payload: submitted[0].payload, ...other });
    await until(() => done.length > 0 || errors.length > 0, sim, 400);
    expect(errors).toEqual([]);
    const job = done[0].payload as Record<string, unknown>;
    expect(job).toMatchObject({ id: (submitted[0].payload as { id: string }).id, workflow_id: WF_TRANSCODE });
    expect(job.state).toBe('succeeded');
    expect(sim.requests().filter((r) => r.route === 'job' && r.path.includes('dddddddd'))).toHaveLength(0);
  });

  it('fails fast on bad input and on an unknown job (404), one error per input', async () => {
    await helper.load([configNode, followJobNode], [config(sim.workflowUrl), followJob(), ...outputs], credentials());
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

  it('names the message property it read when its value is not valid', async () => {
    await helper.load([configNode, followJobNode], [config(sim.workflowUrl), followJob(), ...outputs], credentials());
    const w = helper.getNode(W);
    const errors = errorsOf(w);
    w.receive({ job_id: { id: 'j1' }, workflow_id: WF_TRANSCODE, n: 1 });
    w.receive({ payload: { id: true, workflow_id: WF_TRANSCODE }, n: 2 });
    w.receive({ job_id: 'j1', workflow_id: WF_TRANSCODE, timeout: 'soon', n: 3 });
    w.receive({ job_id: 'j1', workflow_id: WF_TRANSCODE, timeout: -5, n: 4 });
    await until(() => errors.length >= 4);
    const byN = (n: number) => errors.find((e) => e.msg.n === n)!;
    expect(byN(1).err.message).toMatch(/^msg\.job_id must be text, got /);
    expect(byN(2).err.message).toMatch(/^msg\.payload\.id must be text, got /);
    expect(byN(3).err.message).toMatch(/^msg\.timeout must be 0 \(no timeout\) or a whole number of ms, got /);
    expect(byN(4).err.message).toMatch(/^msg\.timeout must be 0 \(no timeout\) or a whole number of ms, got /);
    for (const n of [1, 2, 3, 4]) expect(byN(n).msg.error).toMatchObject({ code: 'invalid_input' });
    expect(sim.requests().filter((r) => r.route === 'job' && r.path.endsWith('/j1'))).toHaveLength(0);
  });

  it('resumes followed jobs after a redeploy, from the node context', async () => {
    const flow = [
      config(sim.workflowUrl),
      { id: 'submit', type: 'media-spaces-submit-job', server: 'cfg', wires: [[W]] },
      followJob(),
      ...outputs,
    ];
    await helper.load([configNode, submitNode, followJobNode], flow, credentials());
    let progress = record('out2');
    helper.getNode('submit').receive({ workflow_id: WF_TRANSCODE, payload: {}, tag: 'survivor' });
    await until(() => progress.length > 0, sim, 600);
    const saved = (await contextOf(W)) as { jobId: string; state: string; waiters: { data: Msg }[] }[];
    expect(saved).toHaveLength(1);
    expect(saved[0].waiters[0].data.tag).toBe('survivor');
    const jobId = saved[0].jobId;

    // redeploy the follow-job node with a change: the old instance closes, a new one starts with the same context
    const changed = flow.map((n) => (n.id === W ? { ...n, name: 'renamed' } : n));
    await helper.setFlows(changed, 'nodes', credentials());
    const after = helper.getNode(W);
    expect(after.name).toBe('renamed');

    const done = record('out1');
    progress = record('out2');
    await until(() => done.length > 0, sim, 600);
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
    await helper.load([configNode, followJobNode], [config(sim.workflowUrl), ...outputs], credentials());
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
    await helper.setFlows([config(sim.workflowUrl), followJob(), ...outputs], 'full', credentials());
    const done = record('out1');
    await until(() => done.length > 0, sim, 600);
    expect(done[0]).toMatchObject({ topic: 'x', job_id: job.id, state: 'succeeded' });
    expect((done[0].payload as { name: string }).name).toBe('from-context');
    await untilAsync(async () => (await contextOf(W)) === undefined);
  });

  it('stops polling and aborts in-flight requests on close', async () => {
    await helper.load(
      [configNode, submitNode, followJobNode, watchWorkflowsNode, waitWorkflowNode],
      [
        config(sim.workflowUrl),
        { id: 'submit', type: 'media-spaces-submit-job', server: 'cfg', wires: [[W]] },
        followJob(),
        { id: 'w2', type: 'media-spaces-watch-workflows', server: 'cfg', interval: 20, wires: [[], []] },
        { id: 'w3', type: 'media-spaces-wait-workflow', server: 'cfg', interval: 20, wires: [[]] },
        ...outputs,
      ],
      credentials(),
    );
    const progress = record('out2');
    helper.getNode('w3').receive({ workflow_id: WF_IDLE });
    for (let i = 0; i < 3; i++) helper.getNode('submit').receive({ workflow_id: WF_TRANSCODE, payload: {} });
    await until(() => progress.length >= 3, sim, 600);
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

  it('follows the second and the hundredth job like the first: same outcome, nothing left behind', async () => {
    await helper.load(
      [configNode, submitNode, followJobNode],
      [
        config(sim.workflowUrl),
        { id: 'submit', type: 'media-spaces-submit-job', server: 'cfg', wires: [[W]] },
        followJob(),
        ...outputs,
      ],
      credentials(),
    );
    const done = record('out1');
    const errors = errorsOf(helper.getNode(W));
    const timersAtStart = countTimers();
    for (let cycle = 1; cycle <= 100; cycle++) {
      helper.getNode('submit').receive({ workflow_id: WF_TRANSCODE, payload: {}, cycle });
      await until(() => done.length >= cycle || errors.length > 0, sim, 5000);
      expect(errors).toEqual([]);
      if (cycle === 1 || cycle === 2 || cycle === 100) {
        const last = done[cycle - 1];
        expect(last).toMatchObject({ cycle, state: 'succeeded', workflow_id: WF_TRANSCODE });
        expect(last.payload).toMatchObject({ state: 'succeeded', progress: 100 });
        // each input ends once: the job of this cycle, not a repeat of an earlier one
        expect(new Set(done.map((m) => m.job_id)).size).toBe(cycle);
      }
    }
    await sleep(60);
    expect(done).toHaveLength(100);
    expect(countTimers()).toBeLessThanOrEqual(timersAtStart + 2);
    await untilAsync(async () => (await contextOf(W)) === undefined);
  });
});

// ------------------------------------------------------------------ helpers

function contextOf(id: string): Promise<unknown> {
  return new Promise((resolve, reject) =>
    helper
      .getNode(id)
      .context()
      .get(CONTEXT_KEY, (err: Error | undefined, value: unknown) => (err ? reject(err) : resolve(value))),
  );
}

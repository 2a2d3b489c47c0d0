import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type Simulator, startSimulator } from '../../../lib/simulator';
import { runtimeFeed } from '../../support/activity-feed';
import { nodeModule } from '../../support/node-modules';
import {
  config,
  credentials,
  helper,
  outputs,
  record,
  until,
  WF_FAILS,
  WF_TRANSCODE,
} from '../../support/poll-runtime';

/**
 * What media-spaces-follow-job reports into the Media Spaces sidebar's
 * activity feed, in a real Node-RED runtime (dist/) against the simulator
 * over HTTP: each followed job's state and progress, its terminal state, the
 * reason of a failure, and nothing left once the node is removed.
 */
const configNode = nodeModule('media-spaces-config');
const submitNode = nodeModule('media-spaces-submit-job');
const followJobNode = nodeModule('media-spaces-follow-job');
const W = 'follow-sidebar';

let sim: Simulator;
beforeAll(async () => {
  sim = await startSimulator({ manualClock: true });
});
afterAll(async () => {
  await sim.close();
});
afterEach(async () => {
  await helper.unload();
});

function jobsOf(nodeId: string) {
  return runtimeFeed()
    .snapshot('jobs')
    .jobs.filter((j) => j.nodeId === nodeId);
}

describe('media-spaces-follow-job in the sidebar feed', () => {
  it("reports each job's progress and terminal state, a failure with its reason, and leaves with the node", async () => {
    await helper.load(
      [configNode, submitNode, followJobNode],
      [
        config(sim.workflowUrl),
        { id: 'submit', type: 'media-spaces-submit-job', server: 'cfg', wires: [[W]] },
        { id: W, type: 'media-spaces-follow-job', server: 'cfg', interval: 20, wires: [['out1'], ['out2']] },
        ...outputs,
      ],
      credentials(),
    );
    const done = record('out1');
    helper.getNode('submit').receive({ workflow_id: WF_TRANSCODE, payload: {} });
    const seen: number[] = [];
    await until(
      () => {
        const job = jobsOf(W).find((j) => j.workflowId === WF_TRANSCODE);
        if (job && typeof job.progress === 'number' && seen.at(-1) !== job.progress) seen.push(job.progress);
        return done.length > 0;
      },
      sim,
      400,
    );
    const job = jobsOf(W).find((j) => j.workflowId === WF_TRANSCODE);
    expect(job).toMatchObject({ state: 'succeeded', progress: 100, terminal: true });
    expect(job?.jobId).toBe((done[0].payload as { id: string }).id);
    expect(seen.length, `progress seen: ${seen.join(', ')}`).toBeGreaterThanOrEqual(2);
    expect([...seen].sort((a, b) => a - b)).toEqual(seen);

    helper.getNode('submit').receive({ workflow_id: WF_FAILS, payload: {} });
    await until(() => jobsOf(W).some((j) => j.workflowId === WF_FAILS && j.terminal), sim, 500);
    const failed = jobsOf(W).find((j) => j.workflowId === WF_FAILS);
    expect(failed).toMatchObject({ state: 'failed', terminal: true });
    expect(failed?.reason).toMatch(/ended in state failed/);

    // a job still followed when the node goes leaves the tab with it; finished ones stay (24 h history)
    helper.getNode('submit').receive({ workflow_id: WF_TRANSCODE, payload: {} });
    await until(() => jobsOf(W).some((j) => !j.terminal), sim, 0);
    await helper.unload();
    expect(jobsOf(W).filter((j) => !j.terminal)).toEqual([]);
  });
});

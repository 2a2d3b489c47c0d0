import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  fixtureDocument,
  fixtureSpace,
  fixtureWorkflow,
  type Simulator,
  spaceIdFor,
  startSimulator,
  workflowIdFor,
} from '../../../lib/simulator';
import { nodeModule } from '../../support/node-modules';
import { errorsOf, helper, type Msg, record, sleep, until } from '../../support/poll-runtime';

/**
 * The service never gets more than one request for a followed job
 * in one interval, counted at the simulator (real clock) from the submission
 * on, through the second interval and past the hundredth, while some reads
 * fail with a 503 the client would otherwise retry at once (Retry-After: 0).
 */
const INTERVAL_MS = 50;
const INTERVALS = 120;
const JOBS = 12;
const WORKFLOW = workflowIdFor('long');

let sim: Simulator;

beforeAll(async () => {
  const space = fixtureSpace('follow', { workflows: [fixtureWorkflow('long', { job_duration_ms: 600_000 })] });
  sim = await startSimulator({ fixture: fixtureDocument(space) });
});
afterAll(async () => {
  await helper.unload();
  await sim.close();
});

/** The request times (ms) per job id: its submission, then every read of it. */
function requestTimes(submitted: Msg[]): Map<string, number[]> {
  const byKey = new Map(submitted.map((m) => [String(m.idempotency_key), String((m.payload as { id: string }).id)]));
  const times = new Map<string, number[]>([...byKey.values()].map((id) => [id, []]));
  for (const r of sim.requests()) {
    const id = r.route === 'submit' ? byKey.get(r.idempotency_key ?? '') : r.path.split('/').at(-1);
    if (id !== undefined) times.get(id)?.push(Date.parse(r.time));
  }
  return times;
}

describe('media-spaces-follow-job: requests per job per interval, at the simulator', () => {
  it('never sends two requests for one job within one interval, from the submission past the hundredth interval', async () => {
    await helper.load(
      [nodeModule('media-spaces-config'), nodeModule('media-spaces-submit-job'), nodeModule('media-spaces-follow-job')],
      [
        {
          id: 'cfg',
          type: 'media-spaces-config',
          workflowUrl: sim.workflowUrl,
          spaceId: spaceIdFor('follow'),
          workflowPrefix: '/workflow/v1',
          timeout: 2000,
          // the client's own retries stay on: the follower must not use them within an interval
          retries: 3,
        },
        { id: 'submit', type: 'media-spaces-submit-job', server: 'cfg', wires: [['follow', 'submitted']] },
        {
          id: 'follow',
          type: 'media-spaces-follow-job',
          server: 'cfg',
          interval: INTERVAL_MS,
          // a run of 503s backs a job off at most this long, so each job keeps most of its reads
          backoffMax: 400,
          wires: [['done'], ['progress']],
        },
        { id: 'submitted', type: 'helper' },
        { id: 'done', type: 'helper' },
        { id: 'progress', type: 'helper' },
      ],
      { cfg: { apiKey: 'follow-admin-key' } },
    );
    const submitted = record('submitted');
    const errors = errorsOf(helper.getNode('follow'));
    for (let i = 0; i < JOBS; i++) {
      helper.getNode('submit').receive({ workflow_id: WORKFLOW, idempotency_key: `spacing-${i}`, payload: {} });
    }
    await until(() => submitted.length === JOBS);
    sim.addFault({ route: 'job', kind: 'status', status: 503, retry_after: 0, probability: 0.2 });
    await sleep(INTERVAL_MS * INTERVALS);
    sim.clearFaults();
    // a run of 503s near the end backs a job off for up to 400 ms;
    // without faults every job is read again past the hundredth interval
    const coversHundredIntervals = () =>
      [...requestTimes(submitted).values()].every((list) => list.at(-1)! - list[0] > 100 * INTERVAL_MS);
    await until(coversHundredIntervals, undefined, 0, 15_000);

    expect(errors).toEqual([]);
    const times = requestTimes(submitted);
    expect(times.size).toBe(JOBS);
    for (const [job, list] of times) {
      // from the submission past the hundredth interval (fewer reads than intervals: a 503 backs off)
      expect(list.length, `requests for job ${job}`).toBeGreaterThan(INTERVALS / 3);
      expect(list.at(-1)! - list[0], `time covered for job ${job}`).toBeGreaterThan(100 * INTERVAL_MS);
      const gaps = list.slice(1).map((t, i) => t - list[i]);
      expect(Math.min(...gaps), `shortest gap between two requests for job ${job}`).toBeGreaterThanOrEqual(INTERVAL_MS);
    }
  });
});

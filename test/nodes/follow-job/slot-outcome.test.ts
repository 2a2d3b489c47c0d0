import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type SlotJobOutcome, slotJobs } from '../../../lib/schedule/slot-events';
import { type Simulator, startSimulator } from '../../../lib/simulator';
import { runtimeFeed } from '../../support/activity-feed';
import { nodeModule } from '../../support/node-modules';
import { pinClock, unpinClock } from '../../support/pinned-clock';
import {
  config,
  credentials,
  errorsOf,
  helper,
  outputs,
  record,
  sleep,
  until,
  WF_FAILS,
  WF_TRANSCODE,
} from '../../support/poll-runtime';

/**
 * Follow job tells the slot how its follow-up ended (media-spaces:slot-job)
 * when the message names the slot: a schedule's end message carries
 * msg.window.slotKey, which submit-job passes on. Real runtime, simulator.
 */
const nodes = [
  nodeModule('media-spaces-config'),
  nodeModule('media-spaces-submit-job'),
  nodeModule('media-spaces-follow-job'),
];
const flow = [
  config(''),
  { id: 'submit', type: 'media-spaces-submit-job', server: 'cfg', wires: [['follow']] },
  { id: 'follow', type: 'media-spaces-follow-job', server: 'cfg', interval: 20, wires: [['out1'], ['out2']] },
  ...outputs,
];

let sim: Simulator;
const seen: SlotJobOutcome[] = [];
const listen = (m: unknown) => seen.push(m as SlotJobOutcome);

beforeAll(async () => {
  sim = await startSimulator({ manualClock: true });
  slotJobs.subscribe(listen);
});
afterAll(async () => {
  slotJobs.unsubscribe(listen);
  await sim.close();
});
beforeEach(() => pinClock('2026-11-26T18:01:00Z'));
afterEach(async () => {
  unpinClock();
  seen.length = 0;
  await helper.unload();
});

async function load() {
  flow[0] = config(sim.workflowUrl);
  await helper.load(nodes, flow, credentials());
}

const SLOT = 'sched-1:news:2026-11-26T18:00:00Z';

describe('follow job reports the follow-up job of a slot', () => {
  it('publishes the job id, its final state and elapsed seconds under the slot key of msg.window', async () => {
    await load();
    const done = record('out1');
    helper.getNode('submit').receive({
      workflow_id: WF_TRANSCODE,
      payload: {},
      window: { id: 'news', slotKey: SLOT },
      idempotency_key: `${SLOT}:end`,
    });
    await until(() => done.length > 0, sim, 400);
    const job = done[0].payload as { id: string };
    expect(seen).toEqual([
      { slot: SLOT, job: { id: job.id, state: 'succeeded', workflowId: WF_TRANSCODE, elapsed: expect.any(Number) } },
    ]);
    expect(seen[0].job.elapsed).toBeGreaterThan(0);
  });

  it('publishes a failed job too, and msg.slot when the flow sets it', async () => {
    await load();
    const errors = errorsOf(helper.getNode('follow'));
    helper.getNode('submit').receive({ workflow_id: WF_FAILS, payload: {}, slot: 'other:w:2026-11-26T19:00:00Z' });
    await until(() => errors.length > 0, sim, 500);
    expect(seen).toEqual([
      {
        slot: 'other:w:2026-11-26T19:00:00Z',
        job: { id: expect.any(String), state: 'failed', workflowId: WF_FAILS, elapsed: expect.any(Number) },
      },
    ]);
  });

  it("shows the job in the sidebar's view of the slot a schedule reported", async () => {
    await load();
    const feed = runtimeFeed();
    const start = Date.parse('2026-11-26T18:00:00Z');
    const windows = [{ id: 'news', name: 'News', cron: '0 18 * * *', timezone: 'UTC', duration: 60 }];
    feed.registerSchedule({ nodeId: 'sched-node', name: 'News', paused: false, windows });
    const slot = { slotKey: SLOT, windowId: 'news', start, end: start + 60_000 };
    feed.reportSlot('sched-node', { ...slot, life: { stage: 'finished' }, outcome: { channel: 'created' } });
    const done = record('out1');
    helper.getNode('submit').receive({ workflow_id: WF_TRANSCODE, payload: {}, window: { id: 'news', slotKey: SLOT } });
    await until(() => done.length > 0, sim, 400);
    const job = done[0].payload as { id: string };
    const view = () =>
      feed
        .snapshot()
        .schedules.find((s) => s.nodeId === 'sched-node')
        ?.slots.find((s) => s.slotKey === SLOT);
    expect(view()?.outcome).toEqual({ channel: 'created', job: { id: job.id, state: 'succeeded' } });
    // the schedule reporting the slot again (a redeploy) keeps the job
    feed.reportSlot('sched-node', { ...slot, life: { stage: 'finished' }, outcome: { channel: 'created' } });
    expect(view()?.outcome?.job).toEqual({ id: job.id, state: 'succeeded' });
    feed.unregister('sched-node');
  });

  it('publishes nothing for a job no slot is named on', async () => {
    await load();
    const done = record('out1');
    helper.getNode('submit').receive({ workflow_id: WF_TRANSCODE, payload: {} });
    await until(() => done.length > 0, sim, 400);
    await sleep(30);
    expect(done).toHaveLength(1);
    expect(seen).toEqual([]);
  });
});

import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { RedisServer } from '../../support/redis-server';
import { connected, Instances, sleep } from './support';

let redis: RedisServer;
const instances = new Instances();

beforeAll(async () => {
  redis = await RedisServer.start();
});
afterEach(async () => {
  await instances.closeAll();
  await redis.cli('FLUSHALL');
});
afterAll(async () => {
  await redis.dispose();
});

const WF = 'aaaaaaaa-0000-4000-8000-000000000001';

describe('followed jobs', () => {
  it('registers one owner; others see it owned while its heartbeat lives', async () => {
    const coordinators = ['node-a', 'node-b'].map((id) =>
      instances.coordinator(redis.url, id, { jobHeartbeatMs: 300 }),
    );
    await connected(coordinators);
    const [a, b] = coordinators.map((c) => c.jobs);
    const results = await Promise.all(
      [a, b].map((r) => r.register({ jobId: 'job-1', workflowId: WF, meta: { slot: 'x' } })),
    );
    expect(results.map((r) => r.status).sort()).toEqual(['owned', 'registered']);
    const record = await a.get('job-1');
    expect(record).toMatchObject({ jobId: 'job-1', workflowId: WF, meta: { slot: 'x' } });
    expect(['node-a', 'node-b']).toContain(record?.owner);
    expect(await a.list()).toHaveLength(1);
  });

  it('keeps ownership by heartbeat, and hands jobs of a silent owner to one taker', async () => {
    // a heartbeat holds 600 ms and a beats every 200 ms: a stall of the test process or of Redis
    // up to 400 ms does not make a look silent
    const a = instances.coordinator(redis.url, 'node-a', { jobHeartbeatMs: 600 }).jobs;
    const b = instances.coordinator(redis.url, 'node-b', { jobHeartbeatMs: 600 }).jobs;
    const c = instances.coordinator(redis.url, 'node-c', { jobHeartbeatMs: 600 }).jobs;
    for (const id of ['j1', 'j2', 'j3'])
      expect((await a.register({ jobId: id, workflowId: WF })).status).toBe('registered');

    for (let i = 0; i < 3; i++) {
      await sleep(200);
      expect(await a.heartbeat(['j1', 'j2', 'j3', 'unknown'])).toEqual({ kept: ['j1', 'j2', 'j3'], lost: ['unknown'] });
      expect(await b.takeOver()).toEqual([]);
    }
    await sleep(700); // a stops heartbeating: it "crashed"
    const taken = await Promise.all([b.takeOver(), c.takeOver()]);
    const all = taken.flat();
    expect(all.map((r) => r.jobId).sort()).toEqual(['j1', 'j2', 'j3']);
    for (const r of all) expect(r.previousOwner).toBe('node-a');
    // a comes back and learns it lost them
    expect(await a.heartbeat(['j1', 'j2', 'j3'])).toEqual({ kept: [], lost: ['j1', 'j2', 'j3'] });
    expect((await a.register({ jobId: 'j1', workflowId: WF })).status).toBe('owned');
  });

  it('reports a terminal state exactly once under a race, and the job leaves the registry', async () => {
    const registries = ['node-a', 'node-b', 'node-c'].map((id) => instances.coordinator(redis.url, id).jobs);
    for (let n = 0; n < 30; n++) {
      const jobId = `job-${n}`;
      await registries[0].register({ jobId, workflowId: WF });
      const results = await Promise.all(registries.map((r) => r.reportOnce(jobId, 'completed', { n })));
      const winners = results.filter((r) => r.won);
      expect(winners).toHaveLength(1);
      for (const r of results) expect(r.report).toEqual(winners[0].report);
      expect(await registries[1].get(jobId)).toBeUndefined();
      expect((await registries[2].register({ jobId, workflowId: WF })).status).toBe('reported');
      expect((await registries[2].getReport(jobId))?.state).toBe('completed');
    }
  });

  it('releases only a job it owns', async () => {
    const a = instances.coordinator(redis.url, 'node-a').jobs;
    const b = instances.coordinator(redis.url, 'node-b').jobs;
    await a.register({ jobId: 'j1' });
    expect(await b.release('j1')).toBe(false);
    expect(await a.release('j1')).toBe(true);
    expect(await a.list()).toEqual([]);
  });
});

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Coordinator, JobRecord } from '../../../lib/coordination';
import { JobCoordination } from '../../../nodes/follow-job/job-coordination';
import type { CoordinationProvider } from '../../../nodes/shared/coordination-provider';
import { connected, Instances, waitFor } from '../../lib/coordination/support';
import { freePort, RedisServer } from '../../support/redis-server';

/**
 * The follow-job node's coordination (nodes/follow-job/job-coordination.ts)
 * for two instances on a real redis-server: one follower per job, take-over
 * when the follower goes silent, the terminal state reported once.
 */

/** Followers beat every third of it: a stall of up to 400 ms does not look like a silent follower. */
const HEARTBEAT_MS = 600;
let redis: RedisServer;
const instances = new Instances();
const closers: JobCoordination[] = [];

function provider(coordinator: Coordinator): CoordinationProvider {
  return {
    getCoordinator: () => coordinator,
    coordinationSettings: { whenUnreachable: 'skip' },
    coordinationStatus: () => coordinator.connection.status,
    onCoordinationStatus: (listener) => coordinator.connection.onStatus(listener),
  };
}

function follower(name: string, prefix: string, url = redis.url, options: { reportWaitMs?: number } = {}) {
  const coordinator = instances.coordinator(url, name, { keyPrefix: prefix, jobHeartbeatMs: HEARTBEAT_MS });
  const followed = new Set<string>();
  const adopted: JobRecord[] = [];
  const warnings: string[] = [];
  const coordination = new JobCoordination(
    provider(coordinator),
    undefined,
    {
      adopt: (record) => {
        adopted.push(record);
        followed.add(record.jobId);
      },
      drop: (jobId) => followed.delete(jobId),
      followed: () => [...followed].map((jobId) => ({ jobId, workflowId: 'wf-1', data: {} })),
      log: () => undefined,
      warn: (text) => warnings.push(text),
    },
    options,
  );
  closers.push(coordination);
  return { coordination, coordinator, followed, adopted, warnings };
}

beforeAll(async () => {
  redis = await RedisServer.start();
});
afterAll(async () => {
  for (const c of closers) c.close(false);
  await instances.closeAll();
  await redis.dispose();
});

describe('followed jobs shared by two instances', () => {
  it('one follower per job; a survivor takes a silent follower’s job over, with its message', async () => {
    const a = follower('a:1:x', 'jobs-1:');
    const b = follower('b:2:y', 'jobs-1:');
    // both up first: a second connection slower to come up than a's heartbeat would find the job silent
    await connected([a.coordinator, b.coordinator]);
    const data = { idempotency_key: 'rel:w0:2030-01-01T00:00:00Z:end', window: { slotKey: 'rel:w0' } };
    expect(await a.coordination.admit('job-1', 'wf-1', data)).toBe('follow');
    a.followed.add('job-1');
    expect(await b.coordination.admit('job-1', 'wf-1', data)).toBe('owned');
    await new Promise((r) => setTimeout(r, HEARTBEAT_MS * 2));
    expect(b.adopted).toEqual([]); // a's heartbeat holds
    a.coordination.close(false); // a dies: its heartbeat stops
    await waitFor(() => b.adopted.length === 1, 5000);
    expect(b.adopted[0]).toMatchObject({ jobId: 'job-1', workflowId: 'wf-1', meta: { data } });
  });

  it('keeps following a job whose record Redis lost (restart without persistence), registered again', async () => {
    const a = follower('a:1:x', 'jobs-4:');
    expect(await a.coordination.admit('job-4', 'wf-1', {})).toBe('follow');
    a.followed.add('job-4');
    await redis.cli('FLUSHALL');
    await new Promise((r) => setTimeout(r, HEARTBEAT_MS));
    expect(a.followed.has('job-4')).toBe(true);
    const b = follower('b:2:y', 'jobs-4:');
    expect(await b.coordination.admit('job-4', 'wf-1', {})).toBe('owned');
  });

  it('reports a terminal state exactly once, whoever asks first', async () => {
    const a = follower('a:1:x', 'jobs-2:');
    const b = follower('b:2:y', 'jobs-2:');
    await a.coordination.admit('job-2', 'wf-1', {});
    const answers = await Promise.all([
      a.coordination.report('job-2', 'succeeded'),
      b.coordination.report('job-2', 'succeeded'),
    ]);
    expect(answers.filter(Boolean)).toHaveLength(1);
    expect(await b.coordination.admit('job-2', 'wf-1', {})).toBe('reported');
  });

  it('a terminal state read while Redis restarts (with persistence) is reported once, not again by a survivor that takes the job over', async () => {
    const own = await RedisServer.start({ persistence: 'aof' });
    try {
      const a = follower('a:1:x', 'jobs-5:', own.url);
      const b = follower('b:2:y', 'jobs-5:', own.url);
      expect(await a.coordination.admit('job-5', 'wf-1', {})).toBe('follow');
      a.followed.add('job-5');
      await new Promise((r) => setTimeout(r, HEARTBEAT_MS));
      await own.stop();
      // a's follower reads the job terminal while Redis is down: it no longer follows it, and reports it
      a.followed.delete('job-5');
      const reportedByA = a.coordination.report('job-5', 'succeeded');
      // down for longer than a heartbeat: a's heartbeat on the job runs out meanwhile
      await new Promise((r) => setTimeout(r, HEARTBEAT_MS * 2));
      await own.start();
      // b, back first or not, may take the job over and read it terminal too
      const reportedByB = (async () => {
        const until = Date.now() + HEARTBEAT_MS * 6;
        while (b.adopted.length === 0 && Date.now() < until) await new Promise((r) => setTimeout(r, 20));
        return b.adopted.length > 0 ? b.coordination.report('job-5', 'succeeded') : false;
      })();
      const answers = await Promise.all([reportedByA, reportedByB]);
      expect(answers.filter(Boolean)).toHaveLength(1);
    } finally {
      await own.dispose();
    }
  });

  it('a terminal state reported alone (Redis out of use past the wait) is written to Redis once it is back', async () => {
    const own = await RedisServer.start({ persistence: 'aof' });
    try {
      const a = follower('a:1:x', 'jobs-6:', own.url, { reportWaitMs: 200 });
      expect(await a.coordination.admit('job-6', 'wf-1', {})).toBe('follow');
      a.followed.add('job-6');
      await own.stop();
      a.followed.delete('job-6');
      expect(await a.coordination.report('job-6', 'succeeded')).toBe(true);
      await own.start();
      const reader = instances.coordinator(own.url, 'reader:0:r', { keyPrefix: 'jobs-6:' });
      await connected([reader]);
      const until = Date.now() + 10_000;
      let report = await reader.jobs.getReport('job-6');
      while (!report && Date.now() < until) {
        await new Promise((r) => setTimeout(r, 50));
        report = await reader.jobs.getReport('job-6');
      }
      expect(report).toMatchObject({ state: 'succeeded', instance: 'a:1:x' });
      expect(await reader.jobs.get('job-6')).toBeUndefined();
      const b = follower('b:2:y', 'jobs-6:', own.url);
      expect(await b.coordination.admit('job-6', 'wf-1', {})).toBe('reported');
    } finally {
      await own.dispose();
    }
  });

  it('without Redis, follows and reports alone and warns once', async () => {
    const c = follower('c:3:z', 'jobs-3:', `redis://127.0.0.1:${await freePort()}`, { reportWaitMs: 300 });
    expect(await c.coordination.admit('job-3', 'wf-1', {})).toBe('follow');
    expect(await c.coordination.report('job-3', 'failed')).toBe(true);
    expect(c.warnings).toHaveLength(1);
    expect(c.warnings[0]).toMatch(/refused the connection/);
  });
});

import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import type * as Auth from '../../../lib/simulator/auth';
import type * as JobRoutes from '../../../lib/simulator/job-routes';
import { WF } from '../../support/fixture';
import { rejection, type SimHarness, startHarness } from '../../support/sim';

/** Which part of the simulator throws for the next request, as a bug in it would. */
const broken = vi.hoisted(() => ({ part: undefined as 'authorize' | 'submit' | undefined }));

vi.mock('../../../lib/simulator/auth', async (importOriginal) => {
  const real = await importOriginal<typeof Auth>();
  return {
    ...real,
    authorize: (...args: Parameters<typeof Auth.authorize>) => {
      if (broken.part === 'authorize') throw new Error('a bug in authorize');
      return real.authorize(...args);
    },
  };
});

vi.mock('../../../lib/simulator/job-routes', async (importOriginal) => {
  const real = await importOriginal<typeof JobRoutes>();
  return {
    ...real,
    submitJob: (...args: Parameters<typeof JobRoutes.submitJob>) => {
      if (broken.part === 'submit') throw new Error('a bug in submitJob');
      return real.submitJob(...args);
    },
  };
});

describe('simulator: a throw inside it answers 500 and the server goes on', () => {
  let h: SimHarness;

  beforeAll(async () => {
    h = await startHarness();
  });
  afterAll(async () => {
    await h.close();
  });
  beforeEach(() => {
    broken.part = undefined;
  });

  it('a throw in a pipeline step (authorisation): 500 with the error shape, logged once; the next request is served', async () => {
    const client = h.client({ retries: 0 });
    broken.part = 'authorize';
    const error = await rejection(client.listWorkflows());
    expect([error.status, error.code]).toEqual([500, 'server_error']);
    expect(error.message).toContain('internal error of the simulator');
    const logged = h.sim.requests().filter((r) => r.route === 'list');
    expect(logged.map((r) => r.status)).toEqual([500]);

    broken.part = undefined;
    expect((await client.listWorkflows()).status).toBe(200);
  });

  it('a throw in an operation: 500, and its Idempotency-Key is forgotten so that a retry runs it once', async () => {
    const client = h.client({ retries: 0 });
    broken.part = 'submit';
    const error = await rejection(client.submitJob(WF.simple, { job_name: 'once' }, { idempotencyKey: 'bug-1' }));
    expect(error.status).toBe(500);
    expect(await h.jobIds()).toEqual([]);

    broken.part = undefined;
    const res = await client.submitJob(WF.simple, { job_name: 'once' }, { idempotencyKey: 'bug-1' });
    expect([res.status, res.replayed]).toEqual([200, false]);
    expect(await h.jobIds()).toEqual([res.data.id]);
  });
});

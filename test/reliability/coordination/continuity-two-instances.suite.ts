import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Simulator, startSimulator } from '../../../lib/simulator';
import { RedisServer } from '../../support/redis-server';
import { sleep, waitFor } from '../support-restart/node-red';
import { Cluster, pidOf, redisReader, SCHEDULE_ID } from './cluster';

/**
 * Recording continuity on two instances sharing Redis: a 30 s window whose channel goes to ERROR about 10 s
 * in; the instance that started the slot is SIGKILLed right after the failure, before it can replace the
 * channel. The survivor replaces it (one replacement channel, not two), stops it at the end and follows up
 * once, with the replacement's recording.
 */

const DURATION_S = 30;

describe('continuity with two instances: the starter killed after the failure', () => {
  let sim: Simulator;
  let redis: RedisServer;
  let cluster: Cluster | undefined;

  beforeAll(async () => {
    sim = await startSimulator({ port: 0, host: '127.0.0.1' });
    redis = await RedisServer.start({ persistence: 'aof' });
  }, 60_000);
  afterAll(async () => {
    await cluster?.killAll();
    await sim?.close();
    await redis?.dispose();
  });

  it('one replacement channel, stopped at the end, one follow-up with it', async () => {
    // a once-a-minute window far enough ahead for both instances to be up
    const start = Math.ceil((Date.now() + 25_000) / 1000) * 1000;
    const second = new Date(start).getUTCSeconds();
    const windows = [{ id: 'w0', offsetS: 0, cron: `${second} * * * * *`, durationS: DURATION_S }];
    const c = new Cluster('continuity', sim, windows, {
      url: redis.url,
      keyPrefix: 'continuity:',
      whenUnreachable: 'skip',
    });
    cluster = c;
    await c.startAll();
    const reader = await redisReader(redis.url, 'continuity:');
    const key = `${SCHEDULE_ID}:w0:${new Date(start).toISOString().replace('.000Z', 'Z')}`;
    try {
      // the first channel created records 2 s after its creation and fails 8 s later
      sim.addChannelFailure({ next: 1, outcome: 'error', after_ms: 8000 });
      const done = await waitFor(() => reader.startOf('w0', start), 'the start done in Redis', { timeoutMs: 60_000 });
      const starter = c.current.findIndex((p) => p?.pid === pidOf(done.instance));
      expect(starter).toBeGreaterThanOrEqual(0);
      const failures = await fetch(`${sim.adminUrl}/channel-failures`).then(
        (r) => r.json() as Promise<{ channels: { at: string }[] }>,
      );
      const failsAt = Date.parse(failures.channels[0].at);
      await sleep(Math.max(0, failsAt + 100 - Date.now()));
      await c.current[starter]?.kill();
      // the survivor's follow-up of the slot
      await waitFor(
        () =>
          sim
            .requests()
            .some((r) => r.route === 'submit' && r.idempotency_key === `${key}:end` && (r.status ?? 0) < 300),
        'the follow-up',
        { timeoutMs: 60_000 },
      );
      await sleep(3000);
    } finally {
      await reader.close();
      c.saveLog();
    }
    const posts = sim.requests().filter((r) => r.method === 'POST');
    const created = (r: { status: number | null; replayed?: boolean }) =>
      r.status !== null && r.status >= 200 && r.status < 300 && r.replayed !== true;
    const channels = posts.filter((r) => r.route === 'create_channel' && r.idempotency_key?.startsWith(key));
    const byKey = new Map<string, number>();
    for (const r of channels.filter(created))
      byKey.set(String(r.idempotency_key), (byKey.get(String(r.idempotency_key)) ?? 0) + 1);
    expect(Object.fromEntries(byKey)).toEqual({ [key]: 1, [`${key}:restart:1`]: 1 });
    const submits = posts.filter((r) => r.route === 'submit' && r.idempotency_key === `${key}:end`);
    expect(submits.filter(created)).toHaveLength(1);
    // the replacement was stopped at the end by the survivor
    const stops = posts.filter(
      (r) => r.route === 'stop_channel' && r.idempotency_key?.startsWith(`${key}:restart:1:stop`),
    );
    expect(stops.filter(created).length).toBeGreaterThanOrEqual(1);
    const lines = c.lines().map((l) => l.text);
    expect(lines.filter((t) => /Unhandled|TypeError/.test(t))).toEqual([]);
    // the interruption reached a Catch node once, on the survivor
    expect(lines.filter((t) => t.includes('REL-ERROR') && t.includes('interrupted'))).toHaveLength(1);
  }, 180_000);
});

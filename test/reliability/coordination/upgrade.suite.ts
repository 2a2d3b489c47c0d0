import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, rmSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RedisConnection } from '../../../lib/coordination';
import { type Simulator, startSimulator } from '../../../lib/simulator';
import { RedisServer } from '../../support/redis-server';
import { httpJson, ROOT, usePackage, waitFor } from '../support-restart/node-red';
import { windowPlans } from '../support-restart/recording-flow';
import { slotFigures } from '../support-restart/slot-facts';
import { Cluster, DURATION_MS, PERIOD_MS, redisReader, slotCounts } from './cluster';

/**
 * An upgrade in place, as a user makes it: Node-RED runs the recording flow (schedule → create channel → back
 * into the schedule; end → submit job → follow job; a coordination node on a real redis-server; the file context
 * store) on an earlier release, packed from its commit into test/fixtures/upgrade: the one before the plan of dated
 * occurrences (1a351a2), and the last one before the slot's transition table (d607882), whose journals hold the
 * channel, earlier channels and gaps of a slot in progress. It records one slot to the end, is SIGKILLed while the next one records, and starts again
 * on the same user directory and Redis with this checkout's package. The slot in progress is stopped and followed
 * up once, the finished one is not acted on again, and the next one starts under the same key form as before:
 * slot keys, Idempotency-Keys and Redis keys carry on.
 */

const RELEASES = [
  // before the as-run node: it proves the new build runs by its as-run node
  { old: '1a351a2', newBuild: asRunLoaded },
  // before windows had a priority: it proves the new build runs by the schedule's priority field
  { old: 'd607882', newBuild: priorityField },
];
const WINDOWS = windowPlans(1);
const WINDOW = WINDOWS[0].id;

describe.each(RELEASES)(
  'upgrade from $old: a slot in progress and a finished one carry on',
  ({ old: OLD, newBuild }) => {
    let sim: Simulator;
    let redis: RedisServer;
    let cluster: Cluster;
    let oldPackage: string;

    beforeAll(async () => {
      const dir = join(ROOT, 'test', '.tmp', 'upgrade', OLD);
      oldPackage = join(dir, 'package');
      if (!existsSync(join(oldPackage, 'package.json'))) {
        rmSync(dir, { recursive: true, force: true });
        mkdirSync(dir, { recursive: true });
        const tarball = join(ROOT, 'test', 'fixtures', 'upgrade', `media-spaces-node-red-${OLD}.tgz`);
        execFileSync('tar', ['-xzf', tarball, '-C', dir]);
        // its dependencies as a user's install has them (the same ranges, resolved here)
        symlinkSync(join(ROOT, 'node_modules'), join(oldPackage, 'node_modules'), 'dir');
      }
      sim = await startSimulator({ port: 0, host: '127.0.0.1' });
      redis = await RedisServer.start();
      cluster = new Cluster(
        `upgrade-${OLD}`,
        sim,
        WINDOWS,
        { url: redis.url, keyPrefix: 'up:', whenUnreachable: 'skip' },
        1,
        oldPackage,
      );
    }, 60_000);

    afterAll(async () => {
      cluster?.saveLog();
      await cluster?.killAll();
      await sim?.close();
      await redis?.stop();
    });

    it('SIGKILL of the old build mid-window, restarted on the new one: stopped once, followed up once, keys unchanged', async () => {
      const space = sim.info().spaces[0].space_id;
      const figures = (start: number) => slotFigures(sim, space, WINDOW, start);
      const old = await cluster.start(0);
      // the build running is the old one
      expect(await newBuild(old.url)).toBe(false);
      const finished = Math.ceil(Math.max(Date.now() + 1500, old.startedAt + 2500) / PERIOD_MS) * PERIOD_MS;
      const inProgress = finished + PERIOD_MS;
      await waitFor(async () => (await figures(finished)).jobs.length > 0, 'the first slot followed up', {
        timeoutMs: 30_000,
      });
      const channelId = await waitFor(
        async () => {
          const f = await figures(inProgress);
          return f.channel?.state === 'RECORDING' ? f.channel.id : undefined;
        },
        'the second slot recording',
        { timeoutMs: 20_000 },
      );
      await cluster.current[0]?.kill();
      expect((await figures(inProgress)).stops.total).toBe(0);

      usePackage(cluster.dirs[0], ROOT);
      const upgraded = await cluster.start(0);
      expect(await newBuild(upgraded.url)).toBe(true);
      expect(upgraded.startedAt).toBeLessThan(inProgress + DURATION_MS);
      const next = inProgress + PERIOD_MS;
      await waitFor(async () => (await figures(inProgress)).jobs.length > 0, 'the slot in progress followed up', {
        timeoutMs: 30_000,
      });
      await waitFor(async () => (await figures(next)).jobs.length > 0, 'the next slot followed up', {
        timeoutMs: 40_000,
      });

      // the slot in progress: its channel stopped once, one follow-up carrying it
      const cut = await figures(inProgress);
      expect(cut.channel?.id).toBe(channelId);
      expect(cut.channel?.state).toBe('INACTIVE');
      expect(cut.stops.carriedOut).toBe(1);
      expect(cut.submits.carriedOut).toBe(1);
      expect(cut.jobs).toHaveLength(1);
      expect(JSON.stringify(cut.jobs[0].input?.media_nicknames)).toContain(channelId);

      // every slot, old and new, under the key form `rel:w0:<ISO start>`: one channel and one follow-up each
      const counts = slotCounts(sim, WINDOWS, finished, next + 1);
      expect(counts.map((c) => [c.start, c.channelCreated, c.submitCreated, c.stopsAccepted])).toEqual([
        [finished, 1, 1, 1],
        [inProgress, 1, 1, 1],
        [next, 1, 1, 1],
      ]);
      expect((await figures(finished)).jobs).toHaveLength(1);

      // Redis: the start the old build recorded is read by the new one's key layout, and the new one writes the same
      const reader = await redisReader(redis.url, 'up:');
      try {
        for (const start of [finished, inProgress, next]) expect(await reader.startOf(WINDOW, start)).toBeDefined();
      } finally {
        await reader.close();
      }
      const connection = new RedisConnection({ url: redis.url });
      try {
        await connection.whenReady(5000);
        const keys = (await connection.send(['KEYS', 'up:slot:*'])) as string[];
        expect(keys.length).toBeGreaterThan(0);
        // a cron slot is named by its time, never by an occurrence part
        expect(keys.filter((k) => k.includes(':o:'))).toEqual([]);
      } finally {
        await connection.close();
      }
      expect(upgraded.output()).not.toMatch(/missed|no channel came back/i);
    }, 150_000);
  },
);

/** Whether the Node-RED at `url` has loaded the as-run node type (added after 1a351a2). */
async function asRunLoaded(url: string): Promise<boolean> {
  const { json } = await httpJson(`${url}/nodes`);
  return (json as { types?: string[] }[]).some((set) => set.types?.includes('media-spaces-as-run'));
}

/** Whether the Node-RED at `url` serves the window form's priority field (added after d607882) to the editor. */
async function priorityField(url: string): Promise<boolean> {
  const { text } = await httpJson(`${url}/nodes`, { headers: { accept: 'text/html' } });
  return text.includes('ms-w-priority');
}

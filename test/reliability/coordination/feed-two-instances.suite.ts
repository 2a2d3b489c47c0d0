import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Simulator, startSimulator } from '../../../lib/simulator';
import { vcalendar, vevent } from '../../support/ical-text';
import { RedisServer } from '../../support/redis-server';
import { sleep, waitFor } from '../support-restart/node-red';
import { Cluster, SCHEDULE_ID } from './cluster';

/**
 * A calendar window on two instances sharing Redis, each reading its own copy of the calendar: one instance
 * read it after the programme was extended (its end 12 s later), the other before. One channel is created for
 * the occurrence (its key names the event's UID), and it is stopped once, at the later end: the instance that
 * read the calendar earlier does not stop the recording early.
 */

const calendar = (start: number, seconds: number) =>
  vcalendar(...vevent({ uid: 'bulletin@newsroom', title: 'REC Bulletin', start, seconds }));

describe('a calendar window with two instances', () => {
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

  it('one channel per occurrence; a move seen by one instance only still ends at the new end', async () => {
    const start = Math.ceil((Date.now() + 25_000) / 1000) * 1000;
    const c = new Cluster(
      'feed',
      sim,
      [{ id: 'cal', offsetS: 0, source: ['    ical: calendar.ics', '    padding: { after: 1s }'] }],
      { url: redis.url, keyPrefix: 'feed:', whenUnreachable: 'skip' },
    );
    cluster = c;
    // each instance reads the calendar.ics of its own user directory: the second one the extended programme
    writeFileSync(join(c.dirs[0], 'calendar.ics'), calendar(start, 10));
    writeFileSync(join(c.dirs[1], 'calendar.ics'), calendar(start, 22));
    const key = `${SCHEDULE_ID}:cal:bulletin@newsroom`;
    try {
      await c.startAll();
      await waitFor(
        () =>
          sim
            .requests()
            .some((r) => r.route === 'submit' && r.idempotency_key === `${key}:end` && (r.status ?? 0) < 300),
        'the follow-up',
        { timeoutMs: 90_000 },
      );
      await sleep(2000);
    } finally {
      c.saveLog();
    }
    const posts = sim.requests().filter((r) => r.method === 'POST' && r.status !== null && r.status < 300);
    const fresh = posts.filter((r) => r.replayed !== true);
    expect(fresh.filter((r) => r.route === 'create_channel' && r.idempotency_key === key)).toHaveLength(1);
    const stops = fresh.filter((r) => r.route === 'stop_channel' && r.idempotency_key === `${key}:stop`);
    expect(stops).toHaveLength(1);
    // the later end (start + 22 s + 1 s padding), within a second; not the earlier one (start + 11 s)
    expect(Math.abs(Date.parse(stops[0].time) - (start + 23_000))).toBeLessThan(1000);
    expect(fresh.filter((r) => r.route === 'submit' && r.idempotency_key === `${key}:end`)).toHaveLength(1);
    const lines = c.lines().map((l) => l.text);
    expect(lines.filter((t) => /Unhandled|TypeError/.test(t))).toEqual([]);
    expect(lines.filter((t) => t.includes('REL-ERROR'))).toEqual([]);
  }, 180_000);
});

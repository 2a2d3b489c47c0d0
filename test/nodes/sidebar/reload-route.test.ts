import { createRequire } from 'node:module';
import type { AddressInfo, Server } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FeedPlans } from '../../../lib/schedule/feed-plans';
import type { NodeAPI } from '../../../nodes/shared/node-red-types';
import type { ScheduleRegistration } from '../../../nodes/sidebar/activity-types';
import { ActivityFeed } from '../../../nodes/sidebar/feed';
import { registerActivityRoutes } from '../../../nodes/sidebar/routes';

/**
 * "Reload feed" (`POST /media-spaces/schedules/:id/windows/:window/reload`) for a window the schedule does not
 * have, or one that reads no feed: the schedule's feed plans refuse it with a plain error, which the route
 * used to answer with a 500. It answers 404 (no such window) or 409 (no feed to reload), in JSON naming the
 * window, and the schedule is not asked.
 */

const registration: ScheduleRegistration = {
  nodeId: 'sched1',
  name: 'Newsroom recordings',
  paused: false,
  windows: [
    { id: 'newsroom', name: 'Newsroom calendar', cron: '', timezone: 'UTC', duration: 3600, source: 'ical' },
    { id: 'evening', name: 'Evening news', cron: '0 18 * * *', timezone: 'UTC', duration: 3600 },
  ],
};

/** Node-RED's own express (the admin app's), as a bare app (it ships no types) */
const express = createRequire(import.meta.url)('express') as () => {
  listen(port: number, host: string, ready: () => void): Server;
};

let base = '';
let server: Server;
const asked: string[] = [];

beforeAll(async () => {
  const app = express();
  const feed = new ActivityFeed(() => undefined);
  // the schedule node's feed plans, as its controller hands them to the sidebar: no feed opened yet
  const plans = new FeedPlans(
    {
      scheduler: () => undefined,
      config: () => ({ timezone: 'UTC', windows: [] }),
      dir: undefined,
      access: () => 'no address',
    },
    () => undefined,
  );
  feed.registerSchedule(registration, {
    reloadFeed: (windowId) => {
      asked.push(windowId);
      return plans.reloadWindow(windowId);
    },
  });
  const RED = {
    auth: { needsPermission: () => (_req: unknown, _res: unknown, next: () => void) => next() },
    httpAdmin: app,
  } as unknown as Pick<NodeAPI, 'auth' | 'httpAdmin'>;
  registerActivityRoutes(RED, feed);
  await new Promise<void>((resolve) => {
    server = app.listen(0, '127.0.0.1', () => resolve());
  });
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  await new Promise((resolve) => server?.close(resolve));
});

const reload = async (node: string, window: string) => {
  const res = await fetch(`${base}/media-spaces/schedules/${node}/windows/${encodeURIComponent(window)}/reload`, {
    method: 'POST',
  });
  return { status: res.status, type: res.headers.get('content-type') ?? '', body: await res.json() };
};

describe('Reload feed for a window that is not there', () => {
  it('answers 404 in JSON naming the window, without asking the schedule', async () => {
    const answer = await reload('sched1', 'no-such-window');
    expect(answer.status).toBe(404);
    expect(answer.type).toMatch(/^application\/json/);
    expect(answer.body).toEqual({
      error: {
        code: 'not_found',
        message: 'the schedule "Newsroom recordings" has no window "no-such-window"',
        window: 'no-such-window',
      },
    });
    expect(asked).toEqual([]);
  });

  it('answers 409 for a window that reads no calendar or guide', async () => {
    const answer = await reload('sched1', 'evening');
    expect(answer.status).toBe(409);
    expect(answer.body.error).toMatchObject({ code: 'refused', window: 'evening' });
    expect(answer.body.error.message).toContain('"evening"');
    expect(asked).toEqual([]);
  });

  it('answers 404 for a schedule that is not deployed', async () => {
    const answer = await reload('nope', 'newsroom');
    expect(answer.status).toBe(404);
    expect(answer.body.error).toMatchObject({ code: 'not_found', window: 'newsroom' });
  });
});

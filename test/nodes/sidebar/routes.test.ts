import { createRequire } from 'node:module';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decodeActivity } from '../../../nodes/sidebar/activity-decode';
import type { ActivitySignal, ActivitySnapshot } from '../../../nodes/sidebar/activity-types';
import type { WireSnapshot } from '../../../nodes/sidebar/activity-wire';
import {
  httpJson,
  type NodeRedProcess,
  prepareUserDir,
  ROOT,
  startNodeRed,
  waitFor,
} from '../../reliability/support-restart/node-red';
import { activityFlow, adminAuthSettings, installFixtureNodes, PASSWORDS, type User } from './support';

const require = createRequire(import.meta.url);
interface Socket {
  once(event: 'open' | 'error', listener: (error?: Error) => void): void;
  on(event: 'message', listener: (data: unknown) => void): void;
  send(text: string): void;
  close(): void;
}
const WebSocket = require('ws') as new (url: string) => Socket;

/** The route's answer as the tab unpacks it. */
function unpacked(json: unknown): ActivitySnapshot {
  const wire = json as WireSnapshot;
  expect(wire.format).toBe(2);
  return decodeActivity(wire, wire.now);
}

/**
 * The sidebar's admin endpoints in a real Node-RED (this package linked
 * into its user directory, the plugin loaded from package.json) under
 * adminAuth, fed by the test-only schedule node through the feed's API.
 */
describe('sidebar admin routes under adminAuth', () => {
  const userDir = join(ROOT, 'test', '.tmp', 'sidebar-routes', `userdir-${process.pid}`);
  let red: NodeRedProcess;
  const tokens = {} as Record<User, string>;

  beforeAll(async () => {
    prepareUserDir({ dir: userDir, flows: activityFlow(), audit: true, settings: adminAuthSettings() });
    installFixtureNodes(userDir);
    red = await startNodeRed({ userDir });
    for (const [username, password] of Object.entries(PASSWORDS)) {
      const r = await httpJson(`${red.url}/auth/token`, {
        method: 'POST',
        body: { client_id: 'node-red-admin', grant_type: 'password', scope: '', username, password },
      });
      expect(r.status, `token for ${username}: ${r.text}`).toBe(200);
      tokens[username as User] = (r.json as { access_token: string }).access_token;
    }
  }, 90_000);

  afterAll(async () => {
    await red?.stop();
  });

  const activity = (user?: User) => httpJson(`${red.url}/media-spaces/activity`, { token: user && tokens[user] });
  const action = (user: User | undefined, id: string, name: string) =>
    httpJson(`${red.url}/media-spaces/schedules/${id}/${name}`, {
      method: 'POST',
      body: {},
      token: user && tokens[user],
    });

  it('loads the plugin without a warning about the package', () => {
    const ours = red
      .output()
      .split('\n')
      .filter((l) => /\[(warn|error)\]/.test(l) && /media-spaces/i.test(l));
    expect(ours).toEqual([]);
    expect(red.output()).not.toMatch(/media-spaces-sidebar.*(error|failed)/i);
  });

  it('answers readers with the state: the Evening news window at 18:00 London time, an hour long', async () => {
    for (const user of ['admin', 'viewer', 'operator'] as const) {
      const r = await activity(user);
      expect(r.status, user).toBe(200);
      const snap = unpacked(r.json);
      const [schedule] = snap.schedules;
      expect(schedule).toMatchObject({ nodeId: 'sidebarsched0001', name: 'News schedule', paused: false });
      expect(schedule.actions).toEqual(['pause', 'resume', 'start', 'skip']);
      const next = schedule.slots.find((s) => s.phase === 'upcoming');
      expect(next).toBeDefined();
      const local = new Intl.DateTimeFormat('en-GB', { timeZone: 'Europe/London', hour: '2-digit', minute: '2-digit' });
      expect(local.format(next?.start)).toBe('18:00');
      expect((next?.end ?? 0) - (next?.start ?? 0)).toBe(3_600_000);
    }
  });

  it('sends the planned starts the view asks for, and a 304 with nothing to a poll naming the answer it holds', async () => {
    const get = (query: string, token: string, etag?: string) =>
      fetch(`${red.url}/media-spaces/activity${query}`, {
        headers: { authorization: `Bearer ${token}`, ...(etag ? { 'if-none-match': etag } : {}) },
      });
    const week = await get('', tokens.viewer);
    const weekWire = (await week.json()) as WireSnapshot;
    const day = await get('?ahead=24', tokens.viewer);
    const dayWire = (await day.json()) as WireSnapshot;
    const starts = (w: WireSnapshot) =>
      decodeActivity(w, w.now).schedules[0].slots.filter((s) => s.phase === 'upcoming');
    // the daily Evening news: 7 or 8 starts in the week, 1 or 2 in the next day and its hour
    expect(starts(weekWire).length).toBeGreaterThanOrEqual(7);
    expect(starts(dayWire).length).toBeLessThanOrEqual(2);
    expect(starts(dayWire)[0]).toEqual(starts(weekWire)[0]);
    const etag = day.headers.get('etag') ?? '';
    expect(etag).not.toBe(week.headers.get('etag'));
    expect(day.headers.get('cache-control')).toContain('no-cache');

    const again = await get('?ahead=24', tokens.viewer, etag);
    expect(again.status).toBe(304);
    expect(await again.text()).toBe('');
    // another view is another answer
    expect((await get('', tokens.viewer, etag)).status).toBe(200);
    // a user without read permission learns nothing, even naming the answer
    const outsider = await get('?ahead=24', tokens.outsider, etag);
    expect(outsider.status).toBe(403);
    expect(outsider.headers.get('etag')).toBeNull();
    // a change is a new answer
    expect((await action('admin', 'sidebarsched0001', 'pause')).status).toBe(200);
    expect((await action('admin', 'sidebarsched0001', 'resume')).status).toBe(200);
    const changed = await get('?ahead=24', tokens.viewer, etag);
    expect(changed.status).toBe(200);
    expect(changed.headers.get('etag')).not.toBe(etag);
  });

  it('refuses: 401 without a token, 403 to a signed-in user without media-spaces.read, and nothing is leaked', async () => {
    expect((await activity()).status).toBe(401);
    const outsider = await activity('outsider');
    expect(outsider.status).toBe(403);
    expect(outsider.text).not.toContain('News schedule');
    const audit = red
      .output()
      .split('\n')
      .filter((l) => l.includes('"event":"permission.fail"') && l.includes('"username":"outsider"'));
    expect(audit.some((l) => l.includes('"permissions":"media-spaces.read"'))).toBe(true);
  });

  it('refuses actions to users without media-spaces.write (403) and does not call the schedule', async () => {
    expect((await action(undefined, 'sidebarsched0001', 'pause')).status).toBe(401);
    for (const user of ['viewer', 'outsider'] as const) {
      const r = await action(user, 'sidebarsched0001', 'pause');
      expect(r.status, user).toBe(403);
    }
    const after = unpacked((await activity('admin')).json);
    expect(after.schedules[0].paused).toBe(false);
  });

  it('pauses and resumes through the schedule control for a user with media-spaces.write', async () => {
    const paused = await action('operator', 'sidebarsched0001', 'pause');
    expect(paused.status, paused.text).toBe(200);
    expect(unpacked((paused.json as { snapshot: unknown }).snapshot).schedules[0].paused).toBe(true);
    expect(unpacked((await activity('viewer')).json).schedules[0].paused).toBe(true);
    const resumed = await action('admin', 'sidebarsched0001', 'resume');
    expect(resumed.status).toBe(200);
    expect(unpacked((await activity('viewer')).json).schedules[0].paused).toBe(false);
  });

  it('answers 404 for an unknown schedule or action, with a sentence saying which', async () => {
    const unknown = await action('admin', 'no-such-node', 'pause');
    expect(unknown.status).toBe(404);
    expect(unknown.json).toEqual({
      error: { code: 'refused', message: 'no deployed schedule has the id no-such-node' },
    });
    const bad = await action('admin', 'sidebarsched0001', 'explode');
    expect(bad.status).toBe(404);
    expect((bad.json as { error: { message: string } }).error.message).toBe(
      'unknown action "explode": use pause, resume, start, skip',
    );
  });

  it('publishes over comms only a retained, data-free change signal', async () => {
    const signals: ActivitySignal[] = [];
    const ws = new WebSocket(`${red.url.replace('http', 'ws')}/comms`);
    await new Promise<void>((resolve, reject) => {
      ws.once('open', () => resolve());
      ws.once('error', reject);
    });
    let authorised = false;
    ws.on('message', (data) => {
      const parsed = JSON.parse(String(data)) as unknown;
      if ((parsed as { auth?: string }).auth === 'ok') authorised = true;
      for (const m of Array.isArray(parsed) ? parsed : [parsed]) {
        const msg = m as { topic?: string; data?: ActivitySignal };
        if (msg.topic === 'media-spaces/activity' && msg.data) signals.push(msg.data);
      }
    });
    // the outsider may connect to comms (status.read) but may not read the activity
    ws.send(JSON.stringify({ auth: tokens.outsider }));
    await waitFor(() => authorised, 'comms to accept the token');
    ws.send(JSON.stringify({ subscribe: 'media-spaces/activity' }));
    // retained: the current revision arrives at once, without a change
    await waitFor(() => signals.length > 0, 'the retained signal');
    const before = signals.length;
    expect((await action('admin', 'sidebarsched0001', 'skip')).status).toBe(200);
    await waitFor(() => signals.length > before, 'a signal after the action');
    ws.close();
    for (const s of signals) expect(Object.keys(s).sort()).toEqual(['epoch', 'jobsRev', 'rev', 'schedulesRev']);
    expect(signals.at(-1)?.schedulesRev).toBeGreaterThan(signals[0].schedulesRev);
  });
});

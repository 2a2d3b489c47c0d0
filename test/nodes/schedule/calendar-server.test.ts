import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Simulator, startSimulator } from '../../../lib/simulator';
import { icsUtc, vcalendar, vevent } from '../../support/ical-text';
import { helper, waitFor } from '../../support/node-red-runtime';
import { caldav, startRadicale } from '../../support/radicale';
import { loadScheduleChain } from '../../support/schedule-chain';

/**
 * A schedule window reading a calendar from a real CalDAV server (Debian's radicale), in a real runtime with
 * the demo's wiring: an event written over CalDAV is recorded with its padding, a recurring event's EXDATE
 * skips that day, and with the server stopped the planned event is still recorded while the badge says the
 * feed is stale.
 */

const require = createRequire(import.meta.url);
let sim: Simulator;
let radicale: ChildProcess;
let base = '';
let dir = '';
const NEWSROOM = { user: 'newsroom', password: 'unused' };

beforeAll(async () => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'calendar-server-'));
  // a user directory of its own: without one, feeds keep their last good copy in a folder of the system's
  // temporary directory, by window and address, and a radicale of an earlier run on the same port left one
  helper.init(require.resolve('node-red'), { userDir: dir });
  sim = await startSimulator();
  // rights "public": the calendar is read without a user, as a published calendar address is
  const started = await startRadicale(dir, undefined, 'public');
  radicale = started.child;
  base = started.url;
  expect(await caldav(base, NEWSROOM, 'MKCALENDAR', '/newsroom/cal/')).toBe(201);
});
afterAll(async () => {
  await helper.unload();
  await sim.close();
  if (radicale.exitCode === null) radicale.kill();
  rmSync(dir, { recursive: true, force: true });
});

const iso = (ms: number) => new Date(ms).toISOString().replace('.000', '');
const event = (uid: string, start: number, seconds: number, title: string, extra: string[] = []) =>
  vcalendar(...vevent({ uid, start, seconds, title, extra }));

describe('a calendar on a CalDAV server', () => {
  it('records the events with their padding, skips an EXDATE, and records on while the server is down', {
    timeout: 60_000,
  }, async () => {
    const a = Math.ceil((Date.now() + 6000) / 1000) * 1000;
    expect(await caldav(base, NEWSROOM, 'PUT', '/newsroom/cal/a.ics', event('a@newsroom', a, 3, 'REC Bulletin'))).toBe(
      201,
    );
    // a daily event whose today's instance is taken out: its next occurrence is tomorrow's
    const daily = a + 3600_000;
    expect(
      await caldav(
        base,
        NEWSROOM,
        'PUT',
        '/newsroom/cal/daily.ics',
        event('daily@newsroom', daily, 600, 'REC Daily', ['RRULE:FREQ=DAILY;COUNT=3', `EXDATE:${icsUtc(daily)}`]),
      ),
    ).toBe(201);
    const scheduleId = `caldav-${process.pid}-${Date.now()}`;
    const seen = await loadScheduleChain(sim, {
      yaml: `windows:
  - id: newsroom
    ical: ${base}/newsroom/cal/
    match: { title: "^REC " }
    padding: { before: 2s, after: 3s }
    timezone: Europe/London
    channel: { name: "{{occurrence.title}}" }
`,
      scheduleId,
    });
    const sched = helper.getNode('sched');
    const statuses: string[] = [];
    sched.on('call:status', (...args: unknown[]) => {
      const call = args[0] as { args: [{ text?: string }] };
      statuses.push(call.args[0]?.text ?? '');
    });
    await waitFor(() => {
      sched.receive({ topic: 'list', count: 5 });
      const last = seen.ctl.at(-1) as unknown as { topic?: string; payload?: Array<{ slotKey: string }> } | undefined;
      return last?.topic === 'list' && (last.payload?.length ?? 0) >= 2;
    }, 10_000);
    const listed = (
      seen.ctl.at(-1) as unknown as { payload: Array<{ slotKey: string; start: string; title?: string }> }
    ).payload;
    expect(listed.map((u) => [u.slotKey, u.start, u.title])).toEqual([
      [`${scheduleId}:newsroom:a@newsroom`, iso(a - 2000), 'REC Bulletin'],
      [`${scheduleId}:newsroom:daily@newsroom/${iso(daily + 86_400_000)}`, iso(daily + 86_400_000 - 2000), 'REC Daily'],
      [
        `${scheduleId}:newsroom:daily@newsroom/${iso(daily + 2 * 86_400_000)}`,
        iso(daily + 2 * 86_400_000 - 2000),
        'REC Daily',
      ],
    ]);

    // the calendar server stops before the event: the plan in use is the last good one
    radicale.kill();
    await new Promise((resolve) => radicale.once('exit', resolve));
    sched.receive({ topic: 'reload' });
    await waitFor(() => statuses.some((t) => t.includes('feed stale')), 10_000);
    await waitFor(() => seen.end.length === 1, 20_000);
    const end = seen.end[0] as { window: { start: string; end: string; slotKey: string }; channel: { name: string } };
    expect(end.window).toMatchObject({
      start: iso(a - 2000),
      end: iso(a + 6000),
      slotKey: `${scheduleId}:newsroom:a@newsroom`,
    });
    expect(end.channel.name).toBe('REC Bulletin');
    const created = sim
      .requests()
      .filter((r) => r.route === 'create_channel' && r.idempotency_key?.startsWith(scheduleId));
    expect(created).toHaveLength(1);
    expect(Math.abs(Date.parse(created[0].time) - (a - 2000))).toBeLessThan(1000);
    const stops = sim.requests().filter((r) => r.path.endsWith('/stop') && r.idempotency_key?.startsWith(scheduleId));
    expect(stops).toHaveLength(1);
    expect(Math.abs(Date.parse(stops[0].time) - (a + 6000))).toBeLessThan(1000);
    expect(seen.caught).toEqual([]);
  });
});

import diagnostics_channel from 'node:diagnostics_channel';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { SlotTransition } from '../../../lib/schedule/slot-events';
import { type Simulator, startSimulator } from '../../../lib/simulator';
import { runtimeFeed } from '../../support/activity-feed';
import { vcalendar, vevent } from '../../support/ical-text';
import { helper, waitFor } from '../../support/node-red-runtime';
import { type ChainMsg, loadScheduleChain } from '../../support/schedule-chain';

/**
 * Windows whose occurrences come from a calendar file or from `windows` messages, in a real runtime with the
 * demo's wiring against the simulator: each occurrence recorded from start − padding to end + padding under its
 * own slot key, a moved occurrence recorded at its new time, a cancelled one reported and not recorded.
 */

const require = createRequire(import.meta.url);
let sim: Simulator;
let dir: string;

beforeAll(async () => {
  helper.init(require.resolve('node-red'));
  sim = await startSimulator();
  dir = mkdtempSync(path.join(os.tmpdir(), 'feed-windows-'));
});
afterAll(async () => {
  await sim.close();
  rmSync(dir, { recursive: true, force: true });
});
afterEach(async () => {
  await helper.unload();
});

const ics = (stamp: number, events: Array<{ uid: string; start: number; end: number; title: string }>) =>
  vcalendar(...events.flatMap((e) => vevent({ ...e, stamp })));

/** the next whole second at least `ahead` ms from now */
const second = (ahead: number) => Math.ceil((Date.now() + ahead) / 1000) * 1000;
const creates = (prefix: string) =>
  sim.requests().filter((r) => r.route === 'create_channel' && r.idempotency_key?.startsWith(prefix));

describe('a calendar window', () => {
  it('records each event from start − padding to end + padding, under the event UID, its title in the channel', {
    timeout: 60_000,
  }, async () => {
    const file = path.join(dir, 'newsroom.ics');
    const a = second(4000);
    writeFileSync(
      file,
      ics(Date.now(), [
        { uid: 'rec-a@test', start: a, end: a + 3000, title: 'REC Morning' },
        { uid: 'other@test', start: a, end: a + 3000, title: 'Lunch' },
      ]),
    );
    const scheduleId = `cal-${process.pid}-${Date.now()}`;
    const seen = await loadScheduleChain(sim, {
      yaml: `windows:
  - id: newsroom
    ical: ${JSON.stringify(file)}
    match: { title: "^REC " }
    padding: { before: 1s, after: 2s }
    timezone: Europe/London
    channel: { name: "{{occurrence.title}}" }
`,
      scheduleId,
    });
    await waitFor(() => seen.end.length === 1, 15_000);
    const end = seen.end[0] as ChainMsg & { window: { start: string; end: string; slotKey: string } };
    expect(end.window.start).toBe(new Date(a - 1000).toISOString().replace('.000', ''));
    expect(end.window.end).toBe(new Date(a + 5000).toISOString().replace('.000', ''));
    expect(end.window.slotKey).toBe(`${scheduleId}:newsroom:rec-a@test`);
    const made = creates(scheduleId);
    expect(made).toHaveLength(1);
    // created at the padded start (the timer's own lateness only)
    expect(Date.parse(made[0].time) - (a - 1000)).toBeLessThan(1000);
    const channel = end.channel as { name?: string };
    expect(channel.name).toBe('REC Morning');
    // the sidebar names the recorded programme on its slot
    const slots =
      runtimeFeed()
        .snapshot()
        .schedules.find((v) => v.nodeId === 'sched')?.slots ?? [];
    expect(slots.filter((v) => v.phase === 'past').map((v) => v.title)).toEqual(['REC Morning']);
    expect(seen.caught).toEqual([]);
  });

  it('follows the calendar on reload: a moved event records at its new time, a cancelled one is reported', {
    timeout: 60_000,
  }, async () => {
    const file = path.join(dir, 'moves.ics');
    const early = second(60_000);
    writeFileSync(
      file,
      ics(Date.now(), [
        { uid: 'move@test', start: early, end: early + 2000, title: 'Moved' },
        { uid: 'gone@test', start: early + 10_000, end: early + 12_000, title: 'Gone' },
      ]),
    );
    const scheduleId = `move-${process.pid}-${Date.now()}`;
    const seen = await loadScheduleChain(sim, {
      yaml: `windows:
  - id: cal
    ical: ${JSON.stringify(file)}
    timezone: UTC
`,
      scheduleId,
    });
    const sched = helper.getNode('sched');
    await waitFor(() => {
      sched.receive({ topic: 'list' });
      const last = seen.ctl.at(-1) as { topic?: string; payload?: unknown[] } | undefined;
      return last?.topic === 'list' && last.payload?.length === 2;
    }, 10_000);
    const soon = second(3000);
    writeFileSync(file, ics(Date.now(), [{ uid: 'move@test', start: soon, end: soon + 3000, title: 'Moved' }]));
    sched.receive({ topic: 'reload' });
    await waitFor(() => seen.ctl.some((m) => m.topic === 'cancelled'), 10_000);
    const cancelled = seen.ctl.find((m) => m.topic === 'cancelled') as { payload: { slot: string; why: string } };
    expect(cancelled.payload).toMatchObject({ slot: `${scheduleId}:cal:gone@test`, why: 'cancelled' });
    await waitFor(() => seen.end.length === 1, 15_000);
    expect((seen.end[0].window as { start: string }).start).toBe(new Date(soon).toISOString().replace('.000', ''));
    expect(creates(scheduleId).map((r) => r.idempotency_key)).toEqual([`${scheduleId}:cal:move@test`]);
    // a cancellation someone chose is no alarm: no Catch error
    expect(seen.caught).toEqual([]);
  });
});

describe('a calendar file written by the flow at deploy', () => {
  /** What the schedule node warned, as Node-RED logged it. */
  const warned = () =>
    (helper.log().args as Array<[{ level: number; id?: string; msg?: unknown }]>)
      .map(([entry]) => entry)
      .filter((e) => e.level === 30 && e.id === 'sched')
      .map((e) => String(e.msg));

  it('is read on the reload that follows its first write, with no warning that it was not there yet', {
    timeout: 30_000,
  }, async () => {
    const file = path.join(dir, 'written-later.ics');
    const seen = await loadScheduleChain(sim, {
      yaml: `windows:
  - id: later
    ical: ${JSON.stringify(file)}
    timezone: UTC
`,
      scheduleId: `later-${process.pid}-${Date.now()}`,
    });
    const sched = helper.getNode('sched');
    // the schedule looked for the file at deploy, before the flow wrote it
    await new Promise((resolve) => setTimeout(resolve, 500));
    const start = second(60_000);
    writeFileSync(file, ics(Date.now(), [{ uid: 'later@test', start, end: start + 2000, title: 'Later' }]));
    sched.receive({ topic: 'reload' });
    await waitFor(() => {
      sched.receive({ topic: 'list' });
      const last = seen.ctl.at(-1) as { topic?: string; payload?: unknown[] } | undefined;
      return last?.topic === 'list' && last.payload?.length === 1;
    }, 10_000);
    expect(warned()).toEqual([]);
    expect(seen.caught).toEqual([]);
  });

  it('is warned of when it is still not there a few seconds after deploy', { timeout: 30_000 }, async () => {
    await loadScheduleChain(sim, {
      yaml: `windows:
  - id: never
    ical: ${JSON.stringify(path.join(dir, 'never-written.ics'))}
    timezone: UTC
`,
      scheduleId: `never-${process.pid}-${Date.now()}`,
    });
    await waitFor(() => warned().length > 0, 15_000);
    expect(warned()).toEqual(['window "never": the feed is stale: the feed file does not exist']);
  });
});

describe('a messages window', () => {
  it('records the windows an upstream flow sends, and names a bad entry without taking any', {
    timeout: 60_000,
  }, async () => {
    const scheduleId = `msgs-${process.pid}-${Date.now()}`;
    const seen = await loadScheduleChain(sim, {
      yaml: `windows:
  - id: fed
    messages: true
    padding: { after: 1s }
    timezone: UTC
`,
      scheduleId,
    });
    const sched = helper.getNode('sched');
    const start = second(2500);
    sched.receive({
      topic: 'windows',
      payload: [
        {
          id: 'news-1',
          start: new Date(start).toISOString(),
          end: new Date(start + 3000).toISOString(),
          title: 'News',
        },
        { start: 'tomorrow' },
      ],
    });
    await waitFor(() => seen.caught.length === 1, 5000);
    expect(String((seen.caught[0].error as { message: string }).message)).toContain('payload[1].start');
    sched.receive({
      topic: 'windows',
      payload: [
        {
          id: 'news-1',
          start: new Date(start).toISOString(),
          end: new Date(start + 3000).toISOString(),
          title: 'News',
        },
      ],
    });
    await waitFor(() => seen.ctl.some((m) => m.topic === 'windows'), 5000);
    const reply = seen.ctl.find((m) => m.topic === 'windows') as { payload: Record<string, unknown> };
    expect(reply.payload).toMatchObject({ window_id: 'fed', occurrences: 1 });
    await waitFor(() => seen.end.length === 1, 10_000);
    expect(seen.end[0].window).toMatchObject({
      slotKey: `${scheduleId}:fed:news-1`,
      end: new Date(start + 4000).toISOString().replace('.000', ''),
    });
    expect(creates(scheduleId)).toHaveLength(1);
  });

  it('names the occurrences that lose a conflict over max_channels before they happen, in a conflict report and on the timeline', {
    timeout: 60_000,
  }, async () => {
    const scheduleId = `limit-${process.pid}-${Date.now()}`;
    const seen = await loadScheduleChain(sim, {
      yaml: `max_channels: 1
windows:
  - id: fed
    messages: true
    timezone: UTC
`,
      scheduleId,
    });
    const sched = helper.getNode('sched');
    const at = second(3600_000);
    const entry = (id: string, from: number, minutes: number) => ({
      id,
      start: new Date(from).toISOString(),
      end: new Date(from + minutes * 60_000).toISOString(),
      title: id,
    });
    sched.receive({
      topic: 'windows',
      payload: [entry('first', at, 30), entry('second', at + 600_000, 30), entry('third', at + 7200_000, 30)],
    });
    await waitFor(() => seen.ctl.some((m) => m.topic === 'conflict'), 5000);
    const report = seen.ctl.find((m) => m.topic === 'conflict') as { payload: Record<string, unknown> };
    // one report per occurrence that loses (the later start, all else equal), before it happens
    expect(report.payload).toEqual({
      slot: `${scheduleId}:fed:second`,
      window_id: 'fed',
      start: new Date(at + 600_000).toISOString().replace('.000', ''),
      end: new Date(at + 2400_000).toISOString().replace('.000', ''),
      title: 'second',
      lost_to: ['first'],
      lost_to_slots: [`${scheduleId}:fed:first`],
      limit: 1,
      reason: 'conflict: lost to first',
    });
    const slots =
      runtimeFeed()
        .snapshot()
        .schedules.find((s) => s.nodeId === 'sched')?.slots ?? [];
    expect(slots.filter((v) => v.conflict).map((v) => v.title)).toEqual(['second']);
    // the same plan again: no second report; nothing is dropped from the plan
    sched.receive({
      topic: 'windows',
      payload: [entry('first', at, 30), entry('second', at + 600_000, 30), entry('third', at + 7200_000, 30)],
    });
    sched.receive({ topic: 'list', count: 5 });
    await waitFor(() => seen.ctl.some((m) => m.topic === 'list'), 5000);
    expect(seen.ctl.filter((m) => m.topic === 'conflict')).toHaveLength(1);
    expect(seen.ctl.find((m) => m.topic === 'list')?.payload).toHaveLength(3);
  });
});

describe('the next-start gauge of a window whose guide runs out', () => {
  it('is told the last start, then that there is none once it has started', { timeout: 30_000 }, async () => {
    const planned: SlotTransition[] = [];
    const listen = (t: unknown) => {
      if ((t as SlotTransition).to === 'planned') planned.push(t as SlotTransition);
    };
    diagnostics_channel.subscribe('media-spaces:slot', listen);
    try {
      const scheduleId = `runs-out-${process.pid}-${Date.now()}`;
      await loadScheduleChain(sim, {
        yaml: `windows:
  - id: fed
    messages: true
    timezone: UTC
`,
        scheduleId,
      });
      const start = second(2500);
      helper.getNode('sched').receive({
        topic: 'windows',
        payload: [{ id: 'last', start: new Date(start).toISOString(), end: new Date(start + 2000).toISOString() }],
      });
      const mine = () => planned.filter((t) => t.slot.startsWith(scheduleId));
      await waitFor(() => mine().some((t) => !t.withdrawn), 5000);
      expect(Date.parse(mine()[0].scheduled.start)).toBe(start);
      // the guide has nothing after it: once it started, its start is withdrawn and nothing replaces it
      await waitFor(() => mine().some((t) => t.withdrawn), 10_000);
      expect(Date.now()).toBeGreaterThanOrEqual(start - 50);
      expect(mine().map((t) => [Date.parse(t.scheduled.start), t.withdrawn === true])).toEqual([
        [start, false],
        [start, true],
      ]);
    } finally {
      diagnostics_channel.unsubscribe('media-spaces:slot', listen);
    }
  });
});

import { createRequire } from 'node:module';
import type { HelperNode } from 'node-red-node-test-helper';
import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { runtimeFeed } from '../../support/activity-feed';
import { nodeModule } from '../../support/node-modules';
import { helper } from '../../support/node-red-runtime';

/**
 * The schedule node in a real Node-RED runtime (dist/): the skip command, and
 * what it reports into the Media Spaces sidebar's activity feed (windows,
 * paused, slots with channel and outcome, the tab's actions, unregistering).
 * Fake setTimeout/Date; delivery (setImmediate) and I/O stay real.
 */

const require = createRequire(import.meta.url);
const scheduleNode = nodeModule('media-spaces-schedule');
const at = { z: 'tab', x: 100, y: 100 };
const T = (iso: string) => Date.parse(iso);
let SID = 'sb0';
let count = 0;
type Msg = Record<string, unknown> & { payload?: unknown; window?: Record<string, unknown> };

const YAML = `schedule_id: studio-b
windows:
  - id: news
    name: Evening news
    cron: "0 18 * * *"
    timezone: Europe/London
    duration: 90m
`;

function flow(name = 'News schedule') {
  return [
    { id: 'tab', type: 'tab', label: 'sidebar' },
    {
      id: SID,
      ...at,
      type: 'media-spaces-schedule',
      name,
      source: 'yaml',
      yaml: YAML,
      catchUp: true,
      wires: [['start'], ['end'], ['ctl']],
    },
    { id: 'start', ...at, type: 'helper' },
    { id: 'end', ...at, type: 'helper' },
    { id: 'ctl', ...at, type: 'helper' },
    { id: 'catcher', ...at, type: 'catch', scope: [SID], uncaught: false, wires: [['caught']] },
    { id: 'caught', ...at, type: 'helper' },
  ];
}

function record(id: string): Msg[] {
  const seen: Msg[] = [];
  (helper.getNode(id) as HelperNode).on('input', (m) => seen.push(m as Msg));
  return seen;
}

async function settle(turns = 30): Promise<void> {
  for (let i = 0; i < turns; i++) await new Promise((resolve) => setImmediate(resolve));
}

async function advance(ms: number): Promise<void> {
  await vi.advanceTimersByTimeAsync(ms);
  await settle();
}

/** These schedules have no server: their badge says so first. */
const NO_SERVER = 'no server: recordings will not be stopped; ';

function statusText(): string {
  const node = helper.getNode(SID) as unknown as { status: { args: [{ text?: string }][] } };
  return node.status.args.at(-1)?.[0]?.text ?? '';
}

function scheduleView() {
  return runtimeFeed()
    .snapshot()
    .schedules.find((s) => s.nodeId === SID);
}

function contextState(): Promise<Record<string, unknown>> {
  return new Promise((resolve) =>
    (helper.getNode(SID) as unknown as { context(): { get(k: string, cb: (e: unknown, v: unknown) => void): void } })
      .context()
      .get('mediaSpacesSchedule', (_e, v) => resolve(v as Record<string, unknown>)),
  );
}

beforeAll(() => {
  helper.init(require.resolve('node-red'));
});

afterEach(async () => {
  await helper.unload();
  vi.useRealTimers();
  SID = `sb${++count}`;
});

describe('media-spaces-schedule skip command', () => {
  it('skips the next start: persisted, in the status and the list; the start after it happens', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'], now: T('2024-11-22T10:00:00Z') });
    await helper.load([scheduleNode], flow());
    const start = record('start');
    const ctl = record('ctl');
    const caught = record('caught');
    await settle();

    helper.getNode(SID).receive({ topic: 'skip' });
    await settle();
    expect(caught).toEqual([]);
    expect(ctl.at(-1)).toMatchObject({
      topic: 'skip',
      payload: {
        skipped: true,
        window_id: 'news',
        start: '2024-11-22T18:00:00Z',
        local: 'Fri 22 Nov 18:00 Europe/London',
        slotKey: 'studio-b:news:2024-11-22T18:00:00Z',
      },
    });
    await vi.waitFor(
      () =>
        expect(statusText()).toBe(
          `${NO_SERVER}next: Sat 23 Nov 18:00 Europe/London; skipping Evening news Fri 22 Nov 18:00`,
        ),
      { timeout: 5000 },
    );
    expect(await contextState()).toMatchObject({
      skipped: { 'studio-b:news:2024-11-22T18:00:00Z': expect.any(Number) },
    });

    helper.getNode(SID).receive({ topic: 'list', count: 2 });
    await settle();
    expect(ctl.at(-1)?.payload).toMatchObject([
      { start: '2024-11-22T18:00:00Z', skipped: true },
      { start: '2024-11-23T18:00:00Z' },
    ]);
    expect((ctl.at(-1)?.payload as Msg[] | undefined)?.[1]?.skipped).toBeUndefined();

    // an unknown window is an error for Catch
    helper.getNode(SID).receive({ topic: 'skip', window_id: 'nope' });
    await settle();
    expect(caught.map((m) => String((m.error as Msg).message))).toEqual([
      expect.stringMatching(/no window with id "nope"/),
    ]);

    // a redeploy keeps the skip
    await helper.setFlows(flow('News schedule, renamed'), 'full');
    const startAfter = record('start');
    await settle();
    await advance(T('2024-11-22T18:00:01Z') - Date.now());
    expect(start).toEqual([]);
    expect(startAfter).toEqual([]);
    await advance(T('2024-11-23T18:00:00Z') - Date.now());
    expect(startAfter.map((m) => (m.window as Msg).slotKey)).toEqual(['studio-b:news:2024-11-23T18:00:00Z']);
  });
});

describe('media-spaces-schedule in the sidebar feed', () => {
  it('registers its windows, reports slots with channel and outcome, obeys the tab, and unregisters on close', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'], now: T('2024-11-22T10:00:00Z') });
    await helper.load([scheduleNode], flow());
    const start = record('start');
    const end = record('end');
    await settle();
    const feed = runtimeFeed();
    const view = scheduleView();
    expect(view).toMatchObject({
      name: 'News schedule',
      z: 'tab',
      paused: false,
      actions: ['pause', 'resume', 'start', 'skip'],
      windows: [{ id: 'news', name: 'Evening news', timezone: 'Europe/London', duration: 5400, enabled: true }],
    });
    expect(view?.slots[0]).toMatchObject({ windowId: 'news', start: T('2024-11-22T18:00:00Z'), phase: 'upcoming' });

    await feed.act(SID, 'pause');
    expect(scheduleView()?.paused).toBe(true);
    await vi.waitFor(() => expect(statusText()).toBe(`${NO_SERVER}paused`), { timeout: 5000 });
    await feed.act(SID, 'resume');
    expect(scheduleView()?.paused).toBe(false);
    await vi.waitFor(() => expect(statusText()).toBe(`${NO_SERVER}next: Fri 22 Nov 18:00 Europe/London`), {
      timeout: 5000,
    });

    // "start now": the schedule's own trigger, a start message on output 1
    await feed.act(SID, 'start', 'news');
    await settle();
    expect(start).toHaveLength(1);
    expect(start[0].window).toMatchObject({ reason: 'manual', start: '2024-11-22T10:00:00Z' });
    const slotStart = T('2024-11-22T10:00:00Z');
    const active = () => scheduleView()?.slots.find((s) => s.start === slotStart);
    expect(active()).toMatchObject({ phase: 'active', end: slotStart + 5400_000 });
    expect(active()?.channel).toBeUndefined();

    // the channel routed back, as create-channel returns it
    helper.getNode(SID).receive({ payload: { id: 'ch-7', state: 'PENDING' }, window: start[0].window });
    await settle();
    expect(active()).toMatchObject({ phase: 'active', channel: { id: 'ch-7', state: 'PENDING' } });

    // skip from the tab: the next start (18:00) is skipped, and the timeline draws it so at once
    await feed.act(SID, 'skip');
    const skipped = scheduleView()?.slots.find((s) => s.start === T('2024-11-22T18:00:00Z'));
    expect(skipped?.life).toMatchObject({ stage: 'skipped', note: 'skipped on request' });

    await advance(90 * 60_000);
    expect(active()).toMatchObject({ phase: 'past', outcome: { channel: 'created' }, channel: { id: 'ch-7' } });
    // its follow-up job, as a follow-job node tells of it by the slot key the end message carries
    expect(end).toHaveLength(1);
    feed.slotJob(String((end[0].window as Msg).slotKey), { id: 'job-9', state: 'failed' });
    expect(active()?.outcome).toEqual({ channel: 'created', job: { id: 'job-9', state: 'failed' } });
    await vi.waitFor(
      () =>
        expect(statusText()).toBe(
          `${NO_SERVER}next: Sat 23 Nov 18:00 Europe/London; skipping Evening news Fri 22 Nov 18:00`,
        ),
      { timeout: 5000 },
    );

    // a slot without a channel routed back ends failed, saying why
    await feed.act(SID, 'start', 'news');
    await settle();
    const second = Date.now() - (Date.now() % 1000);
    await advance(90 * 60_000 + 20_000);
    const failed = scheduleView()?.slots.find((s) => s.start === second);
    expect(failed).toMatchObject({ phase: 'past', outcome: { channel: 'failed' } });
    expect(failed?.outcome?.reason).toMatch(/no channel came back/);

    await helper.unload();
    expect(
      runtimeFeed()
        .snapshot()
        .schedules.filter((s) => s.nodeId === SID),
    ).toEqual([]);
  });
});

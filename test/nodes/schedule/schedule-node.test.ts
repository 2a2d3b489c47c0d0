import * as fs from 'node:fs';
import { createRequire } from 'node:module';
import * as path from 'node:path';
import type { HelperNode } from 'node-red-node-test-helper';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { type Simulator, startSimulator } from '../../../lib/simulator';
import { nodeModule } from '../../support/node-modules';
import { CONFIG_ID, configNode, credentials, DEMO, helper, NODES } from '../../support/node-red-runtime';

/**
 * media-spaces-schedule in a real Node-RED runtime, loaded from dist/ (run
 * `npm run build` first). Time is driven with vitest's fake timers (setTimeout,
 * clearTimeout, Date); message delivery (setImmediate) and I/O stay real.
 */

const require = createRequire(import.meta.url);
const scheduleNode = nodeModule('media-spaces-schedule');

const T = (iso: string) => Date.parse(iso);
const TMP = path.join(__dirname, '..', '..', '.tmp', `schedule-node-${process.pid}`);
const at = { z: 'tab', x: 100, y: 100 };
const fsCjs = require('node:fs') as typeof fs;

/**
 * The schedule node's id, new for each test: a node hands its state to its
 * successor with the same id (a redeploy), so reusing one id would carry
 * state from test to test.
 */
let SID = 's0';
let sidCount = 0;

type Msg = Record<string, unknown> & {
  payload?: unknown;
  window?: Record<string, unknown>;
  error?: Record<string, unknown>;
};

interface Recorder {
  start: Msg[];
  end: Msg[];
  ctl: Msg[];
  caught: Msg[];
  completed: Msg[];
  chan: Msg[];
  job: Msg[];
}

const YAML = `schedule_id: studio-a
windows:
  - id: news
    name: Evening news
    cron: "0 18 * * *"
    timezone: Europe/London
    duration: 90m
    channel:
      tags: [news]
    followup:
      workflow_id: ${DEMO.workflows.transcode}
      job_name: "Archive {{window.name}} {{slot.date}}"
      media_nicknames:
        Source: "{{channel.recording.outputs[0].location_url}}"
      variables:
        ChannelId: "{{channel.id}}"
`;

/** tab + schedule "s" (start -> "start", end -> "end", control -> "ctl") + Catch and Complete scoped to it. */
function scheduleFlow(props: Record<string, unknown>, extra: Record<string, unknown>[] = []) {
  return [
    { id: 'tab', type: 'tab', label: 'schedule' },
    {
      id: SID,
      ...at,
      type: 'media-spaces-schedule',
      name: '',
      source: 'yaml',
      catchUp: true,
      wires: [['start'], ['end'], ['ctl']],
      ...props,
    },
    { id: 'start', ...at, type: 'helper' },
    { id: 'end', ...at, type: 'helper' },
    { id: 'ctl', ...at, type: 'helper' },
    { id: 'catcher', ...at, type: 'catch', scope: [SID], uncaught: false, wires: [['caught']] },
    { id: 'caught', ...at, type: 'helper' },
    { id: 'completer', ...at, type: 'complete', scope: [SID], uncaught: false, wires: [['completed']] },
    { id: 'completed', ...at, type: 'helper' },
    ...extra,
  ];
}

function record(): Recorder {
  const rec: Recorder = { start: [], end: [], ctl: [], caught: [], completed: [], chan: [], job: [] };
  for (const id of Object.keys(rec) as (keyof Recorder)[]) {
    const node: HelperNode | null | undefined = helper.getNode(id);
    node?.on('input', (m) => rec[id].push(m as Msg));
  }
  return rec;
}

/** Lets queued deliveries and I/O run; waits (in real time) until the condition holds. */
async function until(condition: () => boolean, ms = 5000): Promise<void> {
  const started = performance.now();
  while (!condition()) {
    if (performance.now() - started > ms) throw new Error(`condition not met within ${ms} ms`);
    await new Promise((resolve) => setImmediate(resolve));
  }
}

/** Lets everything queued run (a few turns of the event loop). */
/** Like until, moving fake time half a second per look (for waits that poll on timers). */
async function untilAdvancing(condition: () => boolean, ms: number): Promise<void> {
  const started = performance.now();
  while (!condition()) {
    if (performance.now() - started > ms) throw new Error(`condition not met within ${ms} ms`);
    await advance(500);
  }
}

async function settle(turns = 30): Promise<void> {
  for (let i = 0; i < turns; i++) await new Promise((resolve) => setImmediate(resolve));
}

async function advance(ms: number): Promise<void> {
  await vi.advanceTimersByTimeAsync(ms);
  await settle();
}

/** Advances the fake clock to `ms` before (negative) or after the instant. */
async function advanceTo(iso: string, offsetMs = 0): Promise<void> {
  await advance(T(iso) + offsetMs - Date.now());
}

/** What the badge of a schedule without a server starts with (these flows have none). */
const NO_SERVER = 'no server: recordings will not be stopped; ';

/** The badge is throttled (shared StatusBoard): waits, moving fake time, until it shows the expected text. */
async function expectStatus(expected: string): Promise<void> {
  await vi.waitFor(() => expect(statusTexts().at(-1)).toBe(expected), { timeout: 5000 });
}

function lastStatus(): { fill?: string; shape?: string; text?: string } | undefined {
  const node = helper.getNode(SID) as unknown as { status: { args: [{ fill?: string; shape?: string }][] } };
  return node.status.args.at(-1)?.[0];
}

function statusTexts(): string[] {
  const node = helper.getNode(SID) as unknown as { status: { args: [{ text?: string }][] } };
  return node.status.args.map((a) => a[0]?.text ?? '');
}

/** Sends one message into the schedule node and waits for its one outcome. */
async function send(rec: Recorder, msg: Msg): Promise<{ outputs: Msg[]; caught: Msg[]; completed: Msg[] }> {
  const before = {
    start: rec.start.length,
    end: rec.end.length,
    ctl: rec.ctl.length,
    caught: rec.caught.length,
    completed: rec.completed.length,
  };
  helper.getNode(SID).receive(msg);
  await until(() => rec.caught.length + rec.completed.length > before.caught + before.completed);
  await settle();
  return {
    outputs: [...rec.start.slice(before.start), ...rec.end.slice(before.end), ...rec.ctl.slice(before.ctl)],
    caught: rec.caught.slice(before.caught),
    completed: rec.completed.slice(before.completed),
  };
}

function useClock(iso: string): void {
  vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'], now: T(iso) });
}

beforeEach(() => {
  SID = `s${++sidCount}`;
});

const unhandled: unknown[] = [];
const onUnhandled = (reason: unknown) => unhandled.push(reason);

beforeAll(() => {
  helper.init(require.resolve('node-red'));
  fs.mkdirSync(TMP, { recursive: true });
  process.on('unhandledRejection', onUnhandled);
});

afterAll(() => {
  process.off('unhandledRejection', onUnhandled);
  fs.rmSync(TMP, { recursive: true, force: true });
});

afterEach(async () => {
  await helper.unload();
  vi.useRealTimers();
  vi.restoreAllMocks();
  expect(unhandled).toEqual([]);
});

describe('media-spaces-schedule node', () => {
  it('says in yellow that a schedule without a server will not stop its recordings; with one, nothing of it', async () => {
    useClock('2024-11-22T17:59:00Z');
    await helper.load([scheduleNode], scheduleFlow({ yaml: YAML }));
    await settle();
    await expectStatus(`${NO_SERVER}next: Fri 22 Nov 18:00 Europe/London`);
    expect(lastStatus()).toMatchObject({ fill: 'yellow', shape: 'ring' });
    await helper.unload();

    // no request is made before a window ends: the server's address is never called
    const server = configNode({ workflowUrl: 'http://127.0.0.1:9', liveCaptureUrl: 'http://127.0.0.1:9' } as Simulator);
    await helper.load([NODES.config, scheduleNode], [...scheduleFlow({ yaml: YAML, server: CONFIG_ID }), server]);
    await settle();
    await expectStatus('next: Fri 22 Nov 18:00 Europe/London');
    expect(lastStatus()).toMatchObject({ fill: 'blue', shape: 'ring' });
  });

  it('emits the start at the cron instant and the end after the duration, with the status', async () => {
    useClock('2024-11-22T17:59:00Z');
    await helper.load([scheduleNode], scheduleFlow({ yaml: YAML }));
    const rec = record();
    await settle();
    await expectStatus(NO_SERVER + 'next: Fri 22 Nov 18:00 Europe/London');

    await advanceTo('2024-11-22T18:00:00Z', -1);
    expect(rec.start).toHaveLength(0);
    await advance(1);
    expect(rec.start).toHaveLength(1);
    const start = rec.start[0];
    expect(start).toMatchObject({
      payload: { name: 'Evening news 2024-11-22 18:00', tags: ['news'] },
      idempotency_key: 'studio-a:news:2024-11-22T18:00:00Z',
      window: {
        id: 'news',
        name: 'Evening news',
        start: '2024-11-22T18:00:00Z',
        end: '2024-11-22T19:30:00Z',
        timezone: 'Europe/London',
        slotKey: 'studio-a:news:2024-11-22T18:00:00Z',
        reason: 'scheduled',
      },
    });
    // no create channel in this flow: the window is open, nothing says it records
    await expectStatus(NO_SERVER + 'starting: Evening news until 19:30');

    await advanceTo('2024-11-22T19:30:00Z', -1);
    expect(rec.end).toHaveLength(0);
    await advance(1);
    expect(rec.end).toHaveLength(1);
    expect(rec.end[0]).toMatchObject({
      workflow_id: DEMO.workflows.transcode,
      job_name: 'Archive Evening news 2024-11-22',
      idempotency_key: 'studio-a:news:2024-11-22T18:00:00Z:end',
      payload: { media_nicknames: { Source: '' }, variables: { ChannelId: '' } },
      unresolved: ['channel.id', 'channel.recording.outputs[0].location_url'],
    });
    expect(rec.end[0].channel).toBeUndefined();
    await expectStatus(NO_SERVER + 'next: Sat 23 Nov 18:00 Europe/London');
    expect(rec.caught).toHaveLength(0);
  });

  it('remembers the channel routed back and resolves the follow-up against it', async () => {
    useClock('2024-11-22T17:59:59Z');
    await helper.load([scheduleNode], scheduleFlow({ yaml: YAML }));
    const rec = record();
    await advance(1000);
    const window = rec.start[0].window as Msg;
    const channel = {
      id: '5d0c7a43-3c1b-4b9a-9e0f-0c5f6c1b2a3d',
      recording: { outputs: [{ location_url: 's3://rec/news.mp4', format: 'mp4' }] },
    };
    const ack = await send(rec, { payload: channel, window, statusCode: 201 });
    expect(ack.caught).toEqual([]);
    expect(ack.outputs).toHaveLength(1);
    expect(ack.outputs[0]).toMatchObject({
      topic: 'channel',
      payload: { slotKey: window.slotKey, channel_id: channel.id, remembered: true },
    });

    await advance(90 * 60_000);
    expect(rec.end).toHaveLength(1);
    expect(rec.end[0]).toMatchObject({
      channel,
      payload: { media_nicknames: { Source: 's3://rec/news.mp4' }, variables: { ChannelId: channel.id } },
      window: { slotKey: window.slotKey },
    });
    expect(rec.end[0].unresolved).toBeUndefined();

    // the channel the end used, routed back again (create channel told the schedule first): acknowledged
    const again = await send(rec, { payload: channel, window });
    expect(again.caught).toEqual([]);
    expect(again.outputs[0]).toMatchObject({ topic: 'channel', payload: { remembered: false, known: true } });
    // another channel for a slot no longer in progress is an error for Catch
    const late = await send(rec, { payload: { ...channel, id: '0b6a3c1e-7d2f-4e8a-9c1b-2d3e4f5a6b7c' }, window });
    expect(late.outputs).toEqual([]);
    expect(late.caught).toHaveLength(1);
    expect(String(late.caught[0].error?.message)).toMatch(/no window of this schedule is in progress for slot/);
  });

  it('reports malformed YAML with its line and field to Catch, and shows it in the status', async () => {
    const yaml = `windows:
  - id: ok
    cron: "0 18 * * *"
    duration: 1h
  - id: bad
    name: Late
    cron: "61 * * * *"
    duration: 1h
`;
    await helper.load([scheduleNode], scheduleFlow({ yaml }));
    const rec = record();
    await until(() => rec.caught.length === 1);
    const caught = rec.caught[0];
    const line = 'line 7: windows[1].cron: "61 * * * *" is not a valid cron expression (minute 61 out of range 0-59)';
    expect(String(caught.error?.message)).toContain(line);
    expect(caught.payload).toMatchObject({ source: 'yaml', issues: [line] });
    expect(caught.topic).toBe('config');
    expect(statusTexts().at(-1)).toMatch(/^line 7: windows\[1\]\.cron: "61 \* \* \* \*" is not a valid cron/);
    // nothing is scheduled, and control messages say why
    const trig = await send(rec, { topic: 'trigger', window_id: 'ok' });
    expect(trig.caught).toHaveLength(1);
    expect(String(trig.caught[0].error?.message)).toMatch(/no window with id "ok"/);
  });

  it('answers control messages with exactly one output or one Catch each', async () => {
    useClock('2024-11-22T10:00:00Z');
    await helper.load([scheduleNode], scheduleFlow({ yaml: YAML }));
    const rec = record();
    await settle();

    const trig = await send(rec, { topic: 'trigger', window_id: 'news' });
    expect(trig.caught).toEqual([]);
    expect(trig.completed).toHaveLength(1);
    expect(trig.outputs).toHaveLength(1);
    expect(rec.start[0]).toMatchObject({
      idempotency_key: 'studio-a:news:2024-11-22T10:00:00Z',
      window: { reason: 'manual', end: '2024-11-22T11:30:00Z' },
      payload: { name: 'Evening news 2024-11-22 10:00' },
    });

    const paused = await send(rec, { payload: { command: 'pause' } });
    expect(paused.outputs).toEqual([expect.objectContaining({ topic: 'pause', payload: { paused: true } })]);
    await expectStatus(NO_SERVER + 'paused; starting: Evening news until 11:30');

    const list = await send(rec, { topic: 'list', payload: { count: 2 } });
    expect(list.outputs).toHaveLength(1);
    expect(list.outputs[0]).toMatchObject({
      topic: 'list',
      paused: true,
      payload: [
        { window_id: 'news', start: '2024-11-22T18:00:00Z', local: 'Fri 22 Nov 18:00 Europe/London' },
        { window_id: 'news', start: '2024-11-23T18:00:00Z' },
      ],
      active: [{ slotKey: 'studio-a:news:2024-11-22T10:00:00Z', window_id: 'news' }],
    });

    // a command that takes no window ignores a window_id it does not use
    const ignored = await send(rec, { topic: 'pause', window_id: null });
    expect(ignored.outputs).toEqual([expect.objectContaining({ payload: { paused: true } })]);
    const resumed = await send(rec, { payload: 'resume' });
    expect(resumed.outputs).toEqual([expect.objectContaining({ payload: { paused: false } })]);

    const reload = await send(rec, { topic: 'reload' });
    expect(reload.outputs[0]).toMatchObject({ payload: { reloaded: true, windows: ['news'] } });

    const failures: [Msg, RegExp][] = [
      [{ topic: 'explode' }, /unknown command "explode" in msg\.topic/],
      [{ payload: { command: 42 } }, /unknown command 42 in msg\.payload\.command/],
      [{}, /not a schedule control message/],
      [{ topic: 'trigger' }, /trigger needs msg\.window_id/],
      [{ topic: 'trigger', window_id: 'nope' }, /no window with id "nope" \(windows: news\)/],
      // window_id goes through the one resolver: the request form first, and the error names where it was read
      [{ topic: 'skip', window_id: 5 }, /msg\.window_id must be the id of a window \(text\), got number/],
      [{ payload: { command: 'trigger', window_id: ['news'] } }, /msg\.payload\.window_id must be the id of a window/],
      // an empty window_id is a mistake (a drop-down left empty), never "any window"
      [{ payload: { command: 'trigger', window_id: '' }, window_id: 'news' }, /msg\.payload\.window_id must be the id/],
      [{ topic: 'skip', window_id: '' }, /msg\.window_id must be the id of a window/],
      [{ window: { slotKey: 'studio-a:news:x' }, payload: 'not a channel' }, /must carry the created channel/],
      // an id the client could not read or stop the channel by is no channel (lib/channel-ref.ts)
      [{ window: { slotKey: 'studio-a:news:x' }, payload: { id: '' } }, /must carry the created channel/],
      [{ window: { slotKey: 'studio-a:news:x' }, payload: { id: '   ' } }, /must carry the created channel/],
      [{ window: { slotKey: 'other:news:x' }, payload: { id: 'c' } }, /no window of this schedule is in progress/],
    ];
    for (const [msg, pattern] of failures) {
      const outcome = await send(rec, msg);
      expect(outcome.outputs, JSON.stringify(msg)).toEqual([]);
      expect(outcome.completed).toEqual([]);
      expect(outcome.caught).toHaveLength(1);
      expect(String(outcome.caught[0].error?.message)).toMatch(pattern);
      expect((outcome.caught[0]._error as Record<string, unknown>)?.code).toBe('invalid_input');
    }

    // the manual slot still ends on time
    await advance(90 * 60_000);
    expect(rec.end.map((m) => (m.window as Msg).slotKey)).toEqual(['studio-a:news:2024-11-22T10:00:00Z']);
  });

  it('reloads when the YAML file changes; a broken change is caught with its line and the old windows stay', async () => {
    const file = path.join(TMP, 'reload.yaml');
    // this test runs on the real clock: the window starts 12 hours from now, so that it is never open
    // (a run between 18:00 and 19:30 in London would see "recording", not "next: ")
    const hour = (new Date().getUTCHours() + 12) % 24;
    fs.writeFileSync(file, YAML.replace('cron: "0 18 * * *"', `cron: "0 ${hour} * * *"`));
    const unwatch = vi.spyOn(fsCjs, 'unwatchFile');
    await helper.load([scheduleNode], scheduleFlow({ source: 'file', file, watchInterval: 25 }));
    const rec = record();
    await until(() => statusTexts().some((t) => t.startsWith(`${NO_SERVER}next: `)));

    const listIds = async () => {
      const out = await send(rec, { topic: 'list', payload: { count: 3 } });
      // the reply, not a catch-up start of the reloaded window emitted meanwhile (06:00-10:00 in New York)
      const reply = out.outputs.find((o) => o.topic === 'list');
      return [...new Set(((reply?.payload ?? []) as { window_id: string }[]).map((u) => u.window_id))];
    };
    expect(await listIds()).toEqual(['news']);

    // let the watcher take its first reading before the change (mtime resolution)
    await new Promise((resolve) => setTimeout(resolve, 60));
    fs.writeFileSync(
      file,
      'windows:\n  - id: morning\n    cron: "*/5 6-9 * * *"\n    timezone: America/New_York\n    duration: 5m\n',
    );
    await waitReal(async () => (await listIds()).includes('morning'));

    fs.writeFileSync(file, 'windows:\n  - id: morning\n    cron: "*/5 6-9 * * *"\n    duration: 5x\n');
    await until(() => rec.caught.length === 1, 5000);
    expect(String(rec.caught[0].error?.message)).toContain('line 4: windows[0].duration: "5x" is not a duration');
    expect(rec.caught[0].topic).toBe('reload');
    expect(await listIds()).toEqual(['morning']);

    // the reload command reports the same problem for its own message
    const reload = await send(rec, { topic: 'reload' });
    expect(reload.caught).toHaveLength(1);
    expect(String(reload.caught[0].error?.message)).toContain('line 4: windows[0].duration');

    await helper.unload();
    expect(unwatch).toHaveBeenCalledWith(file, expect.any(Function));
  });

  it('the reload command answers with the windows as reloaded from the file, not those it replaced', async () => {
    const file = path.join(TMP, 'reload-command.yaml');
    const hour = (new Date().getUTCHours() + 12) % 24;
    fs.writeFileSync(file, YAML.replace('cron: "0 18 * * *"', `cron: "0 ${hour} * * *"`));
    // the file is watched only once a minute: the reload command is what reads the change
    await helper.load([scheduleNode], scheduleFlow({ source: 'file', file, watchInterval: 60_000 }));
    const rec = record();
    await until(() => statusTexts().some((t) => t.startsWith(`${NO_SERVER}next: `)));
    fs.writeFileSync(
      file,
      `windows:\n  - id: morning\n    cron: "0 ${hour} * * *"\n    duration: 5m\n  - id: late\n    cron: "30 ${hour} * * *"\n    duration: 5m\n`,
    );
    const reload = await send(rec, { topic: 'reload' });
    expect(reload.caught).toEqual([]);
    expect(reload.outputs).toEqual([
      expect.objectContaining({
        topic: 'reload',
        payload: expect.objectContaining({ reloaded: true, windows: ['morning', 'late'] }),
      }),
    ]);
  });

  it('keeps a window in progress across a redeploy: no second start, the end at its time, the state in context', async () => {
    useClock('2024-11-22T17:59:00Z');
    const flow = scheduleFlow({ yaml: YAML });
    await helper.load([scheduleNode], flow);
    let rec = record();
    await advance(60_000);
    expect(rec.start).toHaveLength(1);
    const state = await new Promise<Record<string, unknown>>((resolve) =>
      (helper.getNode(SID) as unknown as { context(): { get(k: string, cb: (e: unknown, v: unknown) => void): void } })
        .context()
        .get('mediaSpacesSchedule', (_e, v) => resolve(v as Record<string, unknown>)),
    );
    expect(state).toMatchObject({
      active: [{ key: 'studio-a:news:2024-11-22T18:00:00Z' }],
      emitted: { 'studio-a:news:2024-11-22T18:00:00Z': { phase: 'start' } },
    });

    await advance(30 * 60_000);
    // a full redeploy with the node changed (renamed): closed and started again
    const changed = flow.map((n) => (n.id === SID ? { ...n, name: 'renamed' } : n));
    await helper.setFlows(changed, 'full');
    rec = record();
    await settle();
    expect(rec.start).toHaveLength(0);
    await expectStatus(NO_SERVER + 'starting: Evening news until 19:30');

    await advanceTo('2024-11-22T19:30:00Z', -1);
    expect(rec.end).toHaveLength(0);
    await advance(1);
    expect(rec.end.map((m) => (m.window as Msg).slotKey)).toEqual(['studio-a:news:2024-11-22T18:00:00Z']);
    expect(rec.start).toHaveLength(0);
  });

  it('catches up a start missed before the deploy while the window is still open', async () => {
    useClock('2024-11-22T18:20:00Z');
    await helper.load([scheduleNode], scheduleFlow({ yaml: YAML }));
    const rec = record();
    await until(() => rec.start.length === 1);
    expect(rec.start[0].window).toMatchObject({ reason: 'catch-up', start: '2024-11-22T18:00:00Z' });
    await advance(70 * 60_000);
    expect(rec.end).toHaveLength(1);
  });

  it('follows the editor list and stops every timer on close', async () => {
    useClock('2024-11-22T14:00:00Z');
    const windows = [{ id: 'w', cron: '30 6 * * mon-fri', timezone: 'America/New_York', duration: '1h' }];
    await helper.load([scheduleNode], scheduleFlow({ source: 'editor', windows, scheduleId: 'ed' }));
    const rec = record();
    await settle();
    await expectStatus(NO_SERVER + 'next: Mon 25 Nov 06:30 America/New_York');
    expect(vi.getTimerCount()).toBeGreaterThan(0);
    await helper.unload();
    expect(vi.getTimerCount()).toBe(0);
    await vi.advanceTimersByTimeAsync(7 * 24 * 3600_000);
    await settle();
    expect(rec.start).toHaveLength(0);
  });

  it('serves the editor preview: issues with lines, cron in words, next five starts', async () => {
    await helper.load([scheduleNode], scheduleFlow({ yaml: YAML }));
    const ok = await helper.request().post('/media-spaces/schedule/preview').send({ yaml: YAML });
    expect(ok.status).toBe(200);
    const body = ok.body as { ok: boolean; windows: { description: string; next: unknown[] }[] };
    expect(body.ok).toBe(true);
    expect(body.windows[0].description).toBe('every day at 18:00');
    expect(body.windows[0].next).toHaveLength(5);

    const bad = await helper
      .request()
      .get('/media-spaces/schedule/preview')
      .query({ yaml: 'windows:\n  - id: a\n    cron: "0 18 * * 9"\n    duration: 1h\n' });
    expect(bad.status).toBe(200);
    expect(bad.body).toMatchObject({
      ok: false,
      issues: [
        {
          line: 3,
          text: 'line 3: windows[0].cron: "0 18 * * 9" is not a valid cron expression (day of week 9 out of range 0-7)',
        },
      ],
    });
    const empty = await helper.request().post('/media-spaces/schedule/preview').send({});
    expect(empty.status).toBe(400);
  });
});

/** Polls an async condition in real time (file watching is not driven by fake timers). */
async function waitReal(condition: () => Promise<boolean>, ms = 5000): Promise<void> {
  const started = Date.now();
  while (!(await condition())) {
    if (Date.now() - started > ms) throw new Error(`condition not met within ${ms} ms`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describe('schedule -> create-channel -> schedule -> submit-job against the simulator', () => {
  let sim: Simulator;
  beforeAll(async () => {
    sim = await startSimulator();
  });
  afterAll(async () => {
    await sim.close();
  });

  it('creates one channel per slot even when the start is replayed after the state was lost, then submits the follow-up', async () => {
    useClock('2024-11-22T18:10:00Z');
    const yaml = `windows:
  - id: news
    name: News
    cron: "0 18 * * *"
    timezone: UTC
    duration: 1h
    channel:
      description: "{{window.name}} from {{slot.local_start}}"
      tags: [news]
    followup:
      workflow: Transcode to H.264 proxy
      job_name: "Proxy of {{channel.name}}"
`;
    const schedule = {
      id: SID,
      ...at,
      type: 'media-spaces-schedule',
      source: 'yaml',
      yaml,
      scheduleId: 'studio-b',
      catchUp: true,
      server: CONFIG_ID,
      wires: [['cc'], ['end', 'sj'], ['ctl']],
    };
    const rest = [
      { id: 'tab', type: 'tab', label: 'chain' },
      configNode(sim),
      { id: 'cc', ...at, type: 'media-spaces-create-channel', name: '', server: CONFIG_ID, wires: [[SID, 'chan']] },
      { id: 'chan', ...at, type: 'helper' },
      { id: 'sj', ...at, type: 'media-spaces-submit-job', name: '', server: CONFIG_ID, wires: [['job']] },
      { id: 'job', ...at, type: 'helper' },
      { id: 'end', ...at, type: 'helper' },
      { id: 'ctl', ...at, type: 'helper' },
      { id: 'catcher', ...at, type: 'catch', scope: null, uncaught: false, wires: [['caught']] },
      { id: 'caught', ...at, type: 'helper' },
    ];
    const before = sim.counts().channels;
    const jobsBefore = sim.counts().jobs;
    await helper.load([NODES.config, NODES.channel, NODES.submit, scheduleNode], [...rest, schedule], credentials());
    let rec = record();
    // catch-up on deploy: start -> create channel (HTTP) -> back into the schedule -> acknowledged
    await until(() => rec.ctl.length === 1, 8000);
    expect(rec.caught).toEqual([]);
    const created = rec.chan[0];
    expect(created.statusCode).toBeGreaterThanOrEqual(200);
    const channel = created.payload as { id: string; name: string };
    expect(channel.name).toBe('News 2024-11-22 18:00');
    expect(rec.ctl[0]).toMatchObject({
      payload: { channel_id: channel.id, slotKey: 'studio-b:news:2024-11-22T18:00:00Z' },
    });
    expect(sim.counts().channels).toBe(before + 1);

    // the schedule node is removed (its state goes) and added again: the start is replayed
    await helper.setFlows(rest, 'full', credentials());
    await helper.setFlows([...rest, schedule], 'full', credentials());
    rec = record();
    await until(() => rec.ctl.length === 1, 8000);
    expect(rec.caught).toEqual([]);
    expect(rec.chan[0].idempotency_key).toBe('studio-b:news:2024-11-22T18:00:00Z');
    expect((rec.chan[0].payload as { id: string }).id).toBe(channel.id);
    expect(sim.counts().channels).toBe(before + 1);

    // the end carries the channel, its workflow name looked up, and submit-job runs the follow-up
    await advance(50 * 60_000);
    // the recording is stopped, then read every second until it has finished: fake time moves meanwhile
    await untilAdvancing(() => rec.end.length === 1 && (rec.job.length === 1 || rec.caught.length > 0), 8000);
    expect(rec.caught).toEqual([]);
    expect(rec.end[0]).toMatchObject({
      channel: { id: channel.id, state: 'INACTIVE' },
      workflow: 'Transcode to H.264 proxy',
      workflow_id: DEMO.workflows.transcode,
      job_name: 'Proxy of News 2024-11-22 18:00',
      payload: {},
      window: { slotKey: 'studio-b:news:2024-11-22T18:00:00Z' },
      idempotency_key: 'studio-b:news:2024-11-22T18:00:00Z:end',
    });
    expect(rec.job[0]).toMatchObject({ payload: { name: 'Proxy of News 2024-11-22 18:00' } });
    expect(sim.counts().jobs).toBe(jobsBefore + 1);
    expect(sim.counts().channels).toBe(before + 1);
  });
});

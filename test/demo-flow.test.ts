import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { createServer } from 'node:net';
import { join } from 'node:path';
import helper from 'node-red-node-test-helper';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type Simulator, startSimulator } from '../lib/simulator';
import { decodeActivity } from '../nodes/sidebar/activity-decode';
import type { ActivitySnapshot } from '../nodes/sidebar/activity-types';
import type { WireSnapshot } from '../nodes/sidebar/activity-wire';
import { NODE_TYPES, nodeModule } from './support/node-modules';

const require = createRequire(import.meta.url);
const root = join(__dirname, '..');
const { pointFlowAtSimulator } = require('../scripts/demo-userdir.cjs');

const NODE_FILES = [
  'config',
  'list-workflows',
  'submit-job',
  'create-channel',
  'delete-event',
  'schedule',
  'follow-job',
  'wait-workflow',
  'watch-workflows',
];
const core = (file: string) => require(`@node-red/nodes/core/${file}`);
// the demo's own core nodes: change nodes write its Debug lines, a filter (rbe) drops repeated progress
const modules = [
  ...NODE_FILES.map((n) => nodeModule(`media-spaces-${n}`)),
  core('function/15-change.js'),
  core('function/10-switch.js'),
  core('function/rbe.js'),
  core('common/20-inject.js'),
];

type Msg = Record<string, any>;

function until(check: () => boolean, timeoutMs: number, what: string): Promise<void> {
  const started = Date.now();
  return new Promise((resolve, reject) => {
    const tick = () => {
      if (check()) resolve();
      else if (Date.now() - started > timeoutMs) reject(new Error(`timed out waiting for ${what}`));
      else setTimeout(tick, 50);
    };
    tick();
  });
}

/**
 * The recording-automation example, as `npm start` deploys it, with the
 * debug nodes swapped for test helpers and the schedule sped up: a window
 * every 6 seconds, 4 seconds long.
 */
function demoFlow(sim: Simulator) {
  const example = JSON.parse(readFileSync(join(root, 'examples/recording-automation.json'), 'utf8')) as Msg[];
  const { flow, credentials } = pointFlowAtSimulator(example, sim.info());
  // the test runtime loads only these nodes and the core catch; comments are for people
  const runnable = (flow as Msg[]).filter((n) => n.type !== 'comment');
  for (const node of runnable) {
    if (node.type === 'debug') {
      node.type = 'helper';
    }
    if (node.type === 'media-spaces-schedule') {
      node.yaml = node.yaml
        .replace('cron: "* * * * *"', 'cron: "*/6 * * * * *"')
        .replace('duration: 40s', 'duration: 4s');
      // a window caught up in its last seconds would end before its recording starts
      node.catchUp = false;
    }
    if (node.type === 'media-spaces-follow-job') node.interval = 200;
  }
  // taps beside the Debug lines: the whole message of each step, as the node sent it
  const taps: Array<[string, number, string]> = [
    ['rec0channel00001', 0, 'tap-channel'],
    ['rec0channel00001', 1, 'tap-states'],
    ['rec0watch0000001', 0, 'tap-done'],
    ['rec0rbe000000001', 0, 'tap-progress'],
  ];
  for (const [source, port, tap] of taps) {
    runnable.find((n) => n.id === source)?.wires[port].push(tap);
    runnable.push({ id: tap, type: 'helper', z: 'f10w00000000rec1' });
  }
  return { flow: runnable, credentials };
}

describe('the demo flow in a real Node-RED runtime', () => {
  let sim: Simulator;
  beforeAll(async () => {
    helper.init(require.resolve('node-red'));
    sim = await startSimulator();
  });
  afterEach(async () => {
    await helper.unload();
  });
  afterAll(async () => {
    await sim.close();
  });

  it('creates a channel, submits the follow-up with the recording as its media, and follows the job to succeeded', async () => {
    const { flow, credentials } = demoFlow(sim);
    await helper.load(modules, flow, credentials);
    const seen: Record<string, Msg[]> = { channel: [], states: [], done: [], progress: [], error: [], story: [] };
    const collect = (id: string, into: Msg[]) => helper.getNode(id).on('input', (msg: Msg) => into.push(msg));
    collect('tap-channel', seen.channel);
    collect('tap-states', seen.states);
    collect('tap-done', seen.done);
    collect('tap-progress', seen.progress);
    collect('rec0dbgerr000001', seen.error);
    collect('rec0story0000001', seen.story);

    await until(() => seen.done.length > 0 || seen.error.length > 0, 30_000, 'the follow-up job to finish');
    expect(seen.error).toEqual([]);
    // the story's line for the same output passes one more node than the tap, so it may come a hop later
    await until(
      () => seen.story.some((m) => /^4 job succeeded: /.test(String(m.payload))),
      5_000,
      'the story line of the finished job',
    );

    const finished = seen.done[0];
    const createdMsg = seen.channel.find((m) => `Proxy of ${m.payload.name}` === finished.payload.name);
    expect(createdMsg?.statusCode).toBe(201);
    const channel = createdMsg?.payload;
    expect(channel).toMatchObject({ name: expect.stringMatching(/^Demo recording /), tags: ['demo', 'schedule'] });

    expect(finished.payload).toMatchObject({
      state: 'succeeded',
      progress: 100,
      workflow_id: 'aaaaaaaa-0000-4000-8000-000000000006',
      name: `Proxy of ${channel.name}`,
    });
    expect(finished.payload.elapsed_time).toMatch(/^0:00:0\d/);
    expect(seen.progress.some((m) => m.payload.state === 'in-process')).toBe(true);
    // the channel is seen recording while its window is open
    const recordingSeen = seen.states.find((m) => m.channel_id === channel.id && m.state === 'RECORDING');
    expect(recordingSeen?.window).toMatchObject({ name: 'Demo recording' });

    // the Debug sidebar's story: one line of text per step, in order, progress only when it changes
    const lines = seen.story.map((m) => m.payload as string);
    // one line each, short enough for the Debug sidebar to show whole (it cuts strings after 80 characters)
    expect(lines.filter((l) => typeof l !== 'string' || /\n|\[object/.test(l) || l.length > 80)).toEqual([]);
    expect(seen.story.every((m) => m.topic === undefined)).toBe(true);
    const step = (re: RegExp, from = 0) => lines.findIndex((l, i) => i >= from && re.test(l));
    const created = step(new RegExp(`^2 channel created: ${channel.name} \\(PENDING\\)$`));
    const opened = lines.findLastIndex(
      (l, i) => i < created && /^1 window opened: Demo recording, \d\d:\d\d:\d\d to \d\d:\d\d:\d\d UTC$/.test(l),
    );
    const order = [
      opened,
      created,
      step(new RegExp(`^2 recording: ${channel.name} is RECORDING$`), created),
      step(/^3 window closed, recording stopped and finished: 2 files$/, created),
      step(new RegExp(`^3 follow-up submitted: job Proxy of ${channel.name} \\(created\\)$`), created),
      step(new RegExp(`^4 job succeeded: Proxy of ${channel.name} in 0:00:0\\d`), created),
    ];
    expect(
      order.every((i) => i >= 0),
      lines.join('\n'),
    ).toBe(true);
    expect([...order].sort((a, b) => a - b)).toEqual(order);
    const progress = lines.filter((l) => l.startsWith('4 job progress'));
    expect(progress.length).toBeGreaterThan(0);
    expect(progress.filter((l, i) => l === progress[i - 1])).toEqual([]);

    const space = sim.info().spaces[0].space_id;
    const jobs = (await (await fetch(`${sim.adminUrl}/spaces/${space}/jobs`)).json()).jobs as Msg[];
    const job = jobs.find((j) => j.id === finished.payload.id);
    const channelNow = await (
      await fetch(`${sim.liveCaptureUrl}/livecapture/v1/${space}/channels/${channel.id}`, {
        headers: { authorization: `Bearer ${sim.info().spaces[0].access_token}` },
      })
    ).json();
    // the window's end stopped the recording: nothing records on, and the follow-up had the finished files
    expect(channelNow.state).toBe('INACTIVE');
    const recordedFile = channelNow.recording.outputs[0].location_url;
    expect(recordedFile).toMatch(/^s3:\/\//);
    expect(job?.input).toEqual({
      variables: [{ name: 'Programme', typecode: 'String', value: 'Demo recording' }],
      media_nicknames: [{ identifier: 'recording', files: [recordedFile] }],
    });
    // one channel and one job per window, however many requests it took
    expect(jobs.filter((j) => j.name === `Proxy of ${channel.name}`)).toHaveLength(1);
  }, 40_000);

  it('pauses from its "pause the demo" inject: no window starts and no line is written until "resume the demo"', {
    timeout: 60_000,
  }, async () => {
    const { flow, credentials } = demoFlow(sim);
    await helper.load(modules, flow, credentials);
    const story: Msg[] = [];
    const replies: Msg[] = [];
    helper.getNode('rec0story0000001').on('input', (msg: Msg) => story.push(msg));
    helper.getNode('rec0missed000001').on('input', (msg: Msg) => replies.push(msg));
    const creates = () => sim.requests().filter((r) => r.route === 'create_channel').length;
    const opened = (from: number) =>
      story.slice(from).filter((m) => /^1 (window opened|nothing recorded)/.test(m.payload));
    try {
      // as the editor's inject button does
      helper.getNode('rec0pause0000001').receive({});
      await until(() => replies.some((m) => m.topic === 'pause'), 5_000, 'the schedule to answer pause');
      const linesBefore = story.length;
      // a window is due every 6 s in the sped-up demo: two go by, skipped, with no channel and no line of theirs
      await until(() => replies.filter((m) => m.payload?.why === 'paused').length >= 2, 20_000, 'two paused windows');
      const createdWhilePaused = creates();
      await new Promise((r) => setTimeout(r, 1_000));
      expect(creates()).toBe(createdWhilePaused);
      expect(opened(linesBefore)).toEqual([]);
      const linesAtResume = story.length;
      helper.getNode('rec0resume000001').receive({});
      await until(() => opened(linesAtResume).length > 0, 20_000, 'a window to open after resume');
      expect(String(opened(linesAtResume)[0].payload)).toMatch(/^1 window opened: /);
    } finally {
      // the paused state is kept in the node's context, which outlives this flow in the test runtime
      helper.getNode('rec0resume000001')?.receive({});
    }
  });

  it('a window that records nothing says so in one whole line, short enough for the Debug sidebar', async () => {
    sim.addFault({ route: 'create_channel', kind: 'status', status: 503 });
    try {
      const { flow, credentials } = demoFlow(sim);
      await helper.load(modules, flow, credentials);
      const story: string[] = [];
      const errors: string[] = [];
      helper.getNode('rec0story0000001').on('input', (msg: Msg) => story.push(String(msg.payload)));
      helper.getNode('rec0dbgerr000001').on('input', (msg: Msg) => errors.push(String(msg.error?.message)));
      await until(() => story.some((l) => l.startsWith('1 nothing recorded')), 30_000, 'the missed line');
      const missed = story.find((l) => l.startsWith('1 nothing recorded')) as string;
      expect(missed.length).toBeLessThanOrEqual(80);
      // whole: every parenthesis it opens it closes, and it says what went wrong
      expect(missed.split('(').length).toBe(missed.split(')').length);
      expect(missed).toMatch(/^1 nothing recorded: (.*503.*|the channel could not be created in \d+ attempts)$/);
      // the whole reason is the Catch's line
      await until(() => errors.some((e) => /503/.test(e)), 5_000, 'the error line');
    } finally {
      sim.clearFaults();
    }
  }, 40_000);
});

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

describe('npm start', () => {
  it('serves the editor with the demo flow deployed, and stops cleanly on Ctrl-C', async () => {
    const [simPort, editorPort] = [await freePort(), await freePort()];
    const child = spawn(process.execPath, [join(root, 'scripts/demo.mjs')], {
      cwd: root,
      env: { ...process.env, SIM_PORT: String(simPort), PORT: String(editorPort) },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    child.stdout.on('data', (c) => {
      out += c;
    });
    child.stderr.on('data', (c) => {
      out += c;
    });
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    try {
      await until(() => out.includes('Media Spaces demo is running'), 30_000, `the demo to start:\n${out}`);
      const runningAt = Date.now();
      expect(out).toContain(`http://127.0.0.1:${editorPort}/`);
      const editor = await fetch(`http://127.0.0.1:${editorPort}/`);
      expect(editor.status).toBe(200);
      const flows = (await (await fetch(`http://127.0.0.1:${editorPort}/flows`)).json()) as Msg[];
      const types = new Set(flows.map((n) => n.type));
      for (const t of [
        'media-spaces-schedule',
        'media-spaces-create-channel',
        'media-spaces-submit-job',
        'media-spaces-follow-job',
      ]) {
        expect(types).toContain(t);
      }
      // credentials are preset, but the editor never gets them back
      const config = flows.find((n) => n.type === 'media-spaces-config') as Msg;
      expect(config).not.toHaveProperty('apiKey');
      expect(config).not.toHaveProperty('accessToken');
      expect(config).not.toHaveProperty('credentials');
      const nodes = await (
        await fetch(`http://127.0.0.1:${editorPort}/nodes`, { headers: { accept: 'application/json' } })
      ).json();
      const ours = (nodes as Msg[]).filter((n) => n.module === '@media-spaces/node-red');
      expect(ours.flatMap((n) => n.types).sort()).toEqual([...NODE_TYPES].sort());
      expect(ours.filter((n) => !n.enabled || n.err).map((n) => `${n.name}: ${n.err}`)).toEqual([]);
      await expectSidebarPopulated(editorPort, runningAt);
    } finally {
      child.kill('SIGINT');
    }
    expect(await exited).toBe(0);
    expect(out).not.toMatch(/\[error\]/);
  }, 120_000);
});

/**
 * The Media Spaces sidebar of the demo (GET /media-spaces/activity, what the
 * tab shows): the demo's schedule with its upcoming windows at once, and
 * within the first minute a slot the schedule reported in progress (its
 * channel routed back) or a job the follow-job node follows.
 */
async function expectSidebarPopulated(editorPort: number, runningAt: number): Promise<void> {
  const activity = async (): Promise<ActivitySnapshot> => {
    const wire = (await (await fetch(`http://127.0.0.1:${editorPort}/media-spaces/activity`)).json()) as WireSnapshot;
    return decodeActivity(wire, wire.now);
  };
  const first = await activity();
  const schedule = first.schedules.find((s) => s.nodeId === 'rec0schedule0001');
  expect(schedule).toMatchObject({
    name: 'Every minute',
    paused: false,
    actions: ['pause', 'resume', 'start', 'skip'],
    windows: [{ id: 'demo-recording', name: 'Demo recording', timezone: 'UTC', duration: 40 }],
  });
  expect(schedule?.slots.filter((s) => s.phase === 'upcoming').length).toBeGreaterThan(60);
  let busy = false;
  while (!busy && Date.now() - runningAt < 60_000) {
    await new Promise((resolve) => setTimeout(resolve, 500));
    const now = await activity();
    const slots = now.schedules.find((s) => s.nodeId === 'rec0schedule0001')?.slots ?? [];
    busy =
      slots.some((s) => s.phase === 'active' && s.channel) || now.jobs.some((j) => j.nodeId === 'rec0watch0000001');
  }
  expect(busy, 'a reported slot in progress or a followed job within the first minute').toBe(true);
}

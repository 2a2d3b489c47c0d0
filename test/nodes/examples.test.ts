import { execFile } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import type { HelperNode, NodeModule } from 'node-red-node-test-helper';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createClient } from '../../lib/client';
import { type Simulator, startSimulator } from '../../lib/simulator';
import { nodeModule } from '../support/node-modules';
import { ALL_NODES, DEMO, helper, initRuntime, waitFor } from '../support/node-red-runtime';

/**
 * Every example flow in examples/, loaded as a user would import it (on its
 * own tab, the config node pointed at the test simulator and credentials
 * supplied, since exports carry none), then run from its inject node.
 */

const require = createRequire(import.meta.url);
const core = (file: string) => require(`@node-red/nodes/core/common/${file}`) as NodeModule;
const CORE_NODES = [core('20-inject.js'), core('21-debug.js'), core('90-comment.js'), core('../function/15-change.js')];
// the recording examples: a function writes the feed, a file node stores it; a switch and a filter tell the story
const FEED_NODES = [
  core('../function/10-function.js'),
  core('../function/10-switch.js'),
  core('../function/rbe.js'),
  core('../storage/10-file.js'),
];
const POLLING_NODES = [nodeModule('media-spaces-wait-workflow'), nodeModule('media-spaces-watch-workflows')];
const SCHEDULE_NODES = [
  nodeModule('media-spaces-schedule'),
  nodeModule('media-spaces-follow-job'),
  nodeModule('media-spaces-as-run'),
];

type FlowNode = Record<string, unknown> & { id: string; type: string; z?: string; wires?: string[][] };

let sim: Simulator;

beforeAll(async () => {
  initRuntime();
  sim = await startSimulator();
});

afterAll(async () => {
  await sim.close();
});

beforeEach(() => sim.reset());

afterEach(async () => {
  await helper.unload();
});

function readExample(name: string): FlowNode[] {
  return JSON.parse(readFileSync(new URL(`../../examples/${name}`, import.meta.url), 'utf8')) as FlowNode[];
}

interface Loaded {
  flow: FlowNode[];
  /** Messages each debug node received, by debug node name. */
  debug: Record<string, Array<Record<string, unknown>>>;
  run(injectProps?: Record<string, unknown>): void;
}

async function loadExample(name: string, adjust?: (flow: FlowNode[]) => void): Promise<Loaded> {
  const flow = readExample(name);
  adjust?.(flow);
  const config = flow.find((n) => n.type === 'media-spaces-config');
  if (!config) throw new Error(`${name} has no config node`);
  // what the user does after importing: point it at their service, enter credentials
  expect(config.workflowUrl).toBe('http://127.0.0.1:8787');
  expect(config.spaceId).toBe(DEMO.space);
  expect(config).not.toHaveProperty('apiKey');
  expect(config).not.toHaveProperty('credentials');
  config.workflowUrl = sim.workflowUrl;
  await helper.load([...CORE_NODES, ...FEED_NODES, ...ALL_NODES, ...POLLING_NODES, ...SCHEDULE_NODES], flow, {
    [config.id]: { apiKey: DEMO.keys.admin, accessToken: DEMO.token },
  });

  const debug: Loaded['debug'] = {};
  for (const node of flow.filter((n) => n.type === 'debug')) {
    const name = String(node.name);
    debug[name] = [];
    helper.getNode(node.id).on('input', (msg) => debug[name].push(msg));
  }
  const inject = flow.find((n) => n.type === 'inject');
  if (!inject) throw new Error(`${name} has no inject node`);
  return {
    flow,
    debug,
    run: () => (helper.getNode(inject.id) as HelperNode).receive({}),
  };
}

/** The instant the samples in examples/feeds/ were written at. */
const SAMPLE_TIME = Date.UTC(2026, 10, 30, 9, 0, 0);

function atSampleTime<T>(fn: () => T): T {
  const now = Date.now;
  Date.now = () => SAMPLE_TIME;
  try {
    return fn();
  } finally {
    Date.now = now;
  }
}

describe('examples', () => {
  it('each example is one inject -> operation node -> debug, with a comment, a Catch and the demo config', () => {
    const expected: Record<string, string> = {
      'list-workflows.json': 'media-spaces-list-workflows',
      'submit-job.json': 'media-spaces-submit-job',
      'create-channel.json': 'media-spaces-create-channel',
      'delete-event.json': 'media-spaces-delete-event',
    };
    for (const [file, type] of Object.entries(expected)) {
      const flow = readExample(file);
      // create-channel's example also stops the recording it started: a second inject and a change node
      const extra = file === 'create-channel.json' ? ['inject', 'change'] : [];
      const types = flow.map((n) => n.type).sort();
      expect(types, file).toEqual(
        ['catch', 'comment', 'debug', 'debug', 'inject', 'media-spaces-config', 'tab', type, ...extra].sort(),
      );
      const op = flow.find((n) => n.type === type)!;
      const inject = flow.find((n) => n.type === 'inject')!;
      expect(inject.wires, file).toEqual([[op.id]]);
      const comment = flow.find((n) => n.type === 'comment')!;
      expect(String(comment.info), file).toMatch(/demo-admin-key/);
      expect(JSON.stringify(flow), file).not.toMatch(/"(apiKey|accessToken)"/);
    }
  });

  it("every example's Catch is wired to a Debug node that shows msg.error.message, and nothing else catches", () => {
    const files = readdirSync(new URL('../../examples/', import.meta.url)).filter((f) => f.endsWith('.json'));
    expect(files.length).toBeGreaterThanOrEqual(9);
    for (const file of files) {
      const nodes = readExample(file);
      const byId = new Map(nodes.map((n) => [n.id, n]));
      const catches = nodes.filter((n) => n.type === 'catch');
      expect(catches, file).toHaveLength(1);
      const targets = (catches[0].wires ?? []).flat().map((id) => byId.get(id));
      expect(targets.length, file).toBeGreaterThan(0);
      for (const target of targets) {
        // Node-RED's Debug reads `complete` as a msg property, "msg." prefix or not
        expect([target?.type, target?.targetType, String(target?.complete).replace(/^msg\./, '')], file).toEqual([
          'debug',
          'msg',
          'error.message',
        ]);
      }
    }
  });

  it('every example carries the same config node (one id, one name), so importing several adds it once', () => {
    const files = readdirSync(new URL('../../examples/', import.meta.url)).filter((f) => f.endsWith('.json'));
    expect(files.length).toBeGreaterThanOrEqual(7);
    const configs = files.map((f) => readExample(f).filter((n) => n.type === 'media-spaces-config'));
    for (const [i, found] of configs.entries()) expect(found, files[i]).toHaveLength(1);
    expect(new Set(configs.map(([c]) => JSON.stringify(c))).size).toBe(1);
    expect(configs[0][0]).toMatchObject({ id: 'c0nf16000000d3m0', name: 'Simulator demo space' });
    for (const f of files) {
      const notes = readExample(f)
        .filter((n) => n.type === 'comment' || n.type === 'tab')
        .map((n) => String(n.info ?? ''))
        .join('\n');
      // an installed package has no npm scripts; its bin is media-spaces-sim
      expect(notes, f).not.toMatch(/npm run/);
      expect(notes, f).toMatch(/npx media-spaces-sim/);
    }
  });

  it('every example opens on a tab of its own, named after the example, that holds all its nodes', () => {
    const files = readdirSync(new URL('../../examples/', import.meta.url)).filter((f) => f.endsWith('.json'));
    const labels = new Set<string>();
    for (const f of files) {
      const flow = readExample(f);
      const tabs = flow.filter((n) => n.type === 'tab');
      expect(tabs, f).toHaveLength(1);
      const label = String(tabs[0].label);
      // "list-workflows.json" -> "List workflows", "wait-workflow.json" -> "Wait for a workflow"
      const words = f.replace(/\.json$/, '').split('-');
      expect(
        words.every((w) => label.toLowerCase().includes(w)),
        `${f}: ${label}`,
      ).toBe(true);
      labels.add(label);
      const onCanvas = flow.filter((n) => n.type !== 'tab' && n.type !== 'media-spaces-config');
      expect(
        onCanvas.filter((n) => n.z !== tabs[0].id).map((n) => n.id),
        f,
      ).toEqual([]);
    }
    expect(labels.size).toBe(files.length);
  });

  it('list-workflows.json lists the active workflows', async () => {
    const example = await loadExample('list-workflows.json');
    example.run();
    await waitFor(() => example.debug['active workflows'].length > 0);
    const msg = example.debug['active workflows'][0];
    expect(msg.statusCode).toBe(200);
    const workflows = msg.payload as Array<{ status: string; id: string }>;
    expect(workflows.length).toBeGreaterThan(5);
    expect(workflows.every((w) => w.status === 'active')).toBe(true);
    expect(workflows.map((w) => w.id)).toContain(DEMO.workflows.transcode);
    expect(example.debug.errors).toEqual([]);
  });

  it('submit-job.json submits a job to the render workflow with merged, typed inputs', async () => {
    const example = await loadExample('submit-job.json');
    example.run();
    await waitFor(() => example.debug.job.length + example.debug.errors.length > 0);
    expect(example.debug.errors).toEqual([]);
    const msg = example.debug.job[0];
    expect(msg.statusCode).toBe(200);
    expect(msg.payload).toMatchObject({
      workflow_id: DEMO.workflows.render,
      name: 'review evening-news',
      state: 'created',
    });
    expect(sim.counts().jobs).toBe(1);
  });

  it('create-channel.json creates one channel, and a resend with the same idempotency key creates no second', async () => {
    const example = await loadExample('create-channel.json');
    example.run();
    await waitFor(() => example.debug.channel.length + example.debug.errors.length > 0);
    expect(example.debug.errors).toEqual([]);
    const msg = example.debug.channel[0];
    expect(msg.payload).toMatchObject({
      name: 'Studio 1 evening',
      description: 'Evening news recording',
      continuous_recording: true,
      recording_duration: 2,
      tags: ['news', 'evening'],
      expected_properties: '{"video":"1080p50"}',
    });
    example.run();
    await waitFor(() => example.debug.channel.length > 1);
    const id = (msg.payload as { id: string }).id;
    expect((example.debug.channel[1].payload as { id: string }).id).toBe(id);
    expect(sim.counts().channels).toBe(1);

    // nothing is left recording: "stop the recording" stops the channel remembered in flow context
    const stop = example.flow.find((n) => n.type === 'inject' && n.name === 'stop the recording');
    sim.advance(3000); // the simulated channel records 2 s after its creation
    (helper.getNode(String(stop?.id)) as HelperNode).receive({});
    await waitFor(() => example.debug.channel.length > 2 || example.debug.errors.length > 0);
    expect(example.debug.errors).toEqual([]);
    expect(example.debug.channel[2].payload).toMatchObject({ id, state: 'FINISHING_RECORDING' });
    sim.advance(3000);
    const client = createClient({
      workflowUrl: sim.workflowUrl,
      spaceId: DEMO.space,
      accessToken: DEMO.token,
    });
    expect((await client.getChannel(id)).data.state).toBe('INACTIVE');
    await client.close();
  });

  it('wait-workflow.json passes the message on once QC check is active, with its id', async () => {
    const example = await loadExample('wait-workflow.json');
    example.run();
    await waitFor(() => example.debug.active.length + example.debug.errors.length > 0);
    expect(example.debug.errors).toEqual([]);
    const msg = example.debug.active[0];
    expect(msg.workflow).toMatchObject({ name: 'QC check', status: 'active' });
    expect(msg.workflow_id).toBe((msg.workflow as { id: string }).id);
  });

  it('watch-workflows.json answers "poll now" with the whole list; the baseline sends no change', async () => {
    const example = await loadExample('watch-workflows.json');
    example.run();
    await waitFor(() => example.debug.workflows.length + example.debug.errors.length > 0);
    expect(example.debug.errors).toEqual([]);
    const msg = example.debug.workflows[0];
    expect(msg.statusCode).toBe(200);
    const workflows = msg.payload as Array<{ id: string }>;
    expect(workflows.map((w) => w.id)).toContain(DEMO.workflows.transcode);
    expect(msg.changes).toEqual([]);
    expect(example.debug.changes).toEqual([]);
  });

  it('delete-event.json: the placeholder id reaches the Catch as not_found; a real id is deleted', async () => {
    const example = await loadExample('delete-event.json');
    example.run();
    await waitFor(() => example.debug.errors.length > 0);
    const failed = example.debug.errors[0] as { error: { code: string; cause: { status: number } } };
    expect(failed.error.code).toBe('not_found');
    expect(failed.error.cause.status).toBe(404);
    expect(example.debug.deleted).toEqual([]);

    // with an event that exists: a channel brings its events once it records
    const client = createClient({
      workflowUrl: sim.workflowUrl,
      spaceId: DEMO.space,
      accessToken: DEMO.token,
    });
    await client.createChannel({ name: 'for the example' });
    await client.close();
    sim.advance(60_000);
    const res = await fetch(`${sim.adminUrl}/spaces/${DEMO.space}/events`);
    const [event] = ((await res.json()) as { events: Array<{ id: string }> }).events;
    const op = example.flow.find((n) => n.type === 'media-spaces-delete-event')!;
    helper.getNode(op.id).receive({ event_id: event.id });
    await waitFor(() => example.debug.deleted.length > 0);
    expect(example.debug.deleted[0]).toMatchObject({ statusCode: 204, payload: null, event_id: event.id });
  });
  describe('the recording examples, each writing its own feed in the directory Node-RED runs in', () => {
    let dir: string;
    let cwd: string;
    beforeAll(() => {
      // the file node and the schedule both read a relative path from the working directory
      cwd = process.cwd();
      dir = mkdtempSync(path.join(os.tmpdir(), 'feed-examples-'));
      process.chdir(dir);
    });
    afterAll(() => {
      process.chdir(cwd);
      rmSync(dir, { recursive: true, force: true });
    });

    /** The example sped up through its own settings: the function's lengths and the window's padding. */
    const speedUp = (lengths: Record<string, number>) => (flow: FlowNode[]) => {
      const func = flow.find((n) => n.type === 'function')!;
      for (const [name, seconds] of Object.entries(lengths)) {
        const before = String(func.func);
        func.func = before.replace(new RegExp(`const ${name} = \\d+;`), `const ${name} = ${seconds};`);
        expect(func.func, name).not.toBe(before);
      }
      const schedule = flow.find((n) => n.type === 'media-spaces-schedule')!;
      const yaml = String(schedule.yaml);
      schedule.yaml = yaml.replace('padding: { before: 10s, after: 20s }', 'padding: { before: 1s, after: 2s }');
      expect(schedule.yaml).not.toBe(yaml);
    };

    /** Warnings the package's nodes logged (the feed not there yet at deploy would be one). */
    const ourWarnings = () =>
      (helper.log().args as Array<[{ level: number; type?: string; msg?: unknown }]>)
        .map(([entry]) => entry)
        .filter((e) => e.level === 30 && String(e.type).startsWith('media-spaces'))
        .map((e) => String(e.msg));

    const lines = (example: Loaded) => example.debug['what happened'].map((m) => String(m.payload));

    it('record-from-calendar.json records a "REC " event of the calendar it writes, under the event\'s slot key, and follows it up', {
      timeout: 60_000,
    }, async () => {
      const example = await loadExample('record-from-calendar.json', speedUp({ EVERY_S: 12, BULLETIN_S: 4 }));
      await waitFor(
        () => lines(example).some((l) => l.startsWith('5 job succeeded')) || example.debug.error.length > 0,
        45_000,
      );
      expect(example.debug.error).toEqual([]);
      const created = sim.requests().filter((r) => r.route === 'create_channel');
      const keys = [...new Set(created.map((r) => r.idempotency_key))];
      expect(keys.length).toBeGreaterThan(0);
      for (const key of keys)
        expect(key).toMatch(
          /^calendar-demo:newsroom:rec-bulletin@media-spaces\.example\/\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/,
        );
      const story = lines(example);
      expect(story[0]).toMatch(
        /^1 calendar written: REC Bulletin every 0\.2 minutes from \d\d:\d\d:\d\d UTC, 300 times$/,
      );
      expect(story.some((l) => /^2 window opened: REC Bulletin, \d\d:\d\d:\d\d to \d\d:\d\d:\d\d UTC/.test(l))).toBe(
        true,
      );
      expect(story.some((l) => l.startsWith('3 channel created: REC Bulletin'))).toBe(true);
      expect(story.some((l) => /^4 window closed, recording stopped and finished: \d+ files$/.test(l))).toBe(true);
      expect(story.some((l) => l.startsWith('4 follow-up submitted: job Proxy of REC Bulletin'))).toBe(true);
      // the planning meeting is no "REC " event
      expect(story.filter((l) => /Planning/.test(l))).toEqual([]);
      expect(ourWarnings()).toEqual([]);
    });

    it('record-from-epg.json records News on the mapped channel once per episode from its live source, and follows it up', {
      timeout: 60_000,
    }, async () => {
      const example = await loadExample('record-from-epg.json', speedUp({ NEWS_S: 4, SHORT_S: 2 }));
      await waitFor(
        () => lines(example).some((l) => l.startsWith('5 job succeeded')) || example.debug.error.length > 0,
        45_000,
      );
      expect(example.debug.error).toEqual([]);
      const created = sim.requests().filter((r) => r.route === 'create_channel');
      const keys = [...new Set(created.map((r) => r.idempotency_key))];
      expect(keys.length).toBeGreaterThan(0);
      // an episode's key, the same for its repeat: recorded once
      for (const key of keys) expect(key).toMatch(/^epg-demo:news:demo1\.example\/\d+\.\d+\.$/);
      expect(created.length).toBe(keys.length);
      const story = lines(example);
      expect(story[0]).toMatch(/^1 guide written: \d+ programmes on demo1\.example from \d\d:\d\d:\d\d UTC$/);
      expect(story.some((l) => /^3 channel created: News S\d+E\d+ \(/.test(l))).toBe(true);
      expect(story.some((l) => /^4 window closed, recording stopped and finished: \d+ files$/.test(l))).toBe(true);
      // the guide's channel maps to the demo's live source: the end message carries the recorded channel
      const ends = example.debug['what happened'].filter((m) => String(m.payload).startsWith('4 window closed'));
      for (const end of ends) {
        expect(end.channel).toMatchObject({ source_id: '5f0c6a1e-3b7d-4c2a-9e21-0d4b7c9a1f00' });
        expect((end.channel as { name: string }).name).toMatch(/^News S\d+E\d+$/);
        expect((end.window as { slotKey: string }).slotKey).toMatch(/^epg-demo:news:demo1\.example\//);
      }
      expect(ourWarnings()).toEqual([]);
    });

    it("record-from-epg.json's guide is valid XMLTV (tv_validate_file), and examples/feeds/guide.xml is what it writes", async () => {
      const flow = readExample('record-from-epg.json');
      const write = new Function('msg', String(flow.find((n) => n.type === 'function')!.func)) as (
        msg: Record<string, unknown>,
      ) => { payload: string };
      const file = path.join(dir, 'guide-validate.xml');
      writeFileSync(file, write({}).payload);
      const { stdout } = await promisify(execFile)('tv_validate_file', [file], {
        env: { ...process.env, XMLTV_SUPPLEMENT: '/usr/share/xmltv' },
      });
      expect(stdout.trim()).toBe('Validated ok.');
      const sample = readFileSync(new URL('../../examples/feeds/guide.xml', import.meta.url), 'utf8');
      expect(atSampleTime(() => write({}).payload)).toBe(sample);
    });

    it("examples/feeds/newsroom.ics is what record-from-calendar.json's function writes", () => {
      const flow = readExample('record-from-calendar.json');
      const write = new Function('msg', String(flow.find((n) => n.type === 'function')!.func)) as (
        msg: Record<string, unknown>,
      ) => { payload: string };
      const sample = readFileSync(new URL('../../examples/feeds/newsroom.ics', import.meta.url), 'utf8');
      expect(atSampleTime(() => write({}).payload)).toBe(sample);
    });
  });
});

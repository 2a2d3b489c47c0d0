import { readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
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
const POLLING_NODES = [nodeModule('media-spaces-wait-workflow'), nodeModule('media-spaces-watch-workflows')];

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

async function loadExample(name: string): Promise<Loaded> {
  const flow = readExample(name);
  const config = flow.find((n) => n.type === 'media-spaces-config');
  if (!config) throw new Error(`${name} has no config node`);
  // what the user does after importing: point it at their service, enter credentials
  expect(config.workflowUrl).toBe('http://127.0.0.1:8787');
  expect(config.spaceId).toBe(DEMO.space);
  expect(config).not.toHaveProperty('apiKey');
  expect(config).not.toHaveProperty('credentials');
  config.workflowUrl = sim.workflowUrl;
  await helper.load([...CORE_NODES, ...ALL_NODES, ...POLLING_NODES], flow, {
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
});

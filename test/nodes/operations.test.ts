import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { createClient } from '../../lib/client';
import {
  credentialsFor,
  fixtureDocument,
  fixtureSpace,
  type Simulator,
  spaceIdFor,
  startSimulator,
} from '../../lib/simulator';
import {
  DEMO,
  helper,
  initRuntime,
  loadOperation,
  type Msg,
  onlyFailure,
  onlyOutput,
  trigger,
} from '../support/node-red-runtime';

/**
 * The four operation nodes in a real Node-RED runtime against the simulator
 * over real HTTP: output shapes, message overrides, list modes, and every
 * error status reaching a Catch node with the error record.
 */

let sim: Simulator;
const unhandled: unknown[] = [];
const onUnhandled = (reason: unknown) => unhandled.push(reason);

beforeAll(async () => {
  initRuntime();
  sim = await startSimulator();
  process.on('unhandledRejection', onUnhandled);
});

afterAll(async () => {
  process.off('unhandledRejection', onUnhandled);
  await sim.close();
});

beforeEach(() => sim.reset());

afterEach(async () => {
  await helper.unload();
  expect(unhandled).toEqual([]);
});

/** Asserts the error record on a caught message, where Node-RED 4 puts it. */
function expectCaughtError(caught: Msg, expected: { status?: number; code: string; field?: string }) {
  const error = caught.error as Record<string, unknown> & { cause: Record<string, unknown> };
  expect(error.code).toBe(expected.code);
  expect(error.source).toMatchObject({ id: 'op' });
  expect(typeof error.message).toBe('string');
  expect(error.cause).toMatchObject({ code: expected.code, message: error.message });
  // the record set on the message before done(err); the runtime renames it to _error
  expect(caught._error).toMatchObject({ code: expected.code, message: error.message });
  if (expected.status === undefined) {
    expect(error.cause.status).toBeUndefined();
    expect(caught.statusCode).toBeUndefined();
  } else {
    expect(error.cause.status).toBe(expected.status);
    expect(caught._error?.status).toBe(expected.status);
    expect(caught.statusCode).toBe(expected.status);
  }
  if (expected.field) {
    expect(Object.keys(error.cause.fieldErrors as object).join(' ')).toContain(expected.field);
  }
  return error;
}

describe('list workflows', () => {
  it('all mode: one message with every workflow across pages; other properties pass through', async () => {
    await loadOperation(sim, 'media-spaces-list-workflows', { mode: 'all', maxResults: '100' });
    const out = onlyOutput(await trigger({ payload: 1, topic: 'keep me' }));
    expect(out.statusCode).toBe(200);
    expect(out.topic).toBe('keep me');
    const workflows = out.payload as Array<{ id: string; status: string }>;
    expect(workflows.length).toBeGreaterThan(300);
    expect(new Set(workflows.map((w) => w.id)).size).toBe(workflows.length);
    expect(workflows.map((w) => w.id)).toContain(DEMO.workflows.transcode);
    // the simulator saw one request per page of 100
    const lists = sim.requests().filter((r) => r.route === 'list');
    expect(lists.length).toBe(Math.ceil(workflows.length / 100));
  });

  it('status filter from the node, overridden by msg.status', async () => {
    await loadOperation(sim, 'media-spaces-list-workflows', { mode: 'all', statusFilter: 'idle' });
    const idle = onlyOutput(await trigger({})).payload as Array<{ status: string }>;
    expect(idle.length).toBeGreaterThan(0);
    expect(idle.every((w) => w.status === 'idle')).toBe(true);
    const archived = onlyOutput(await trigger({ status: 'archived' })).payload as Array<{ status: string }>;
    expect(archived.length).toBeGreaterThan(0);
    expect(archived.every((w) => w.status === 'archived')).toBe(true);
  });

  it('page mode: {workflows, next_page_token}; msg.max_results and msg.page_token let a flow loop', async () => {
    await loadOperation(sim, 'media-spaces-list-workflows', { mode: 'page', maxResults: '50' });
    const first = onlyOutput(await trigger({ max_results: 3 }));
    const page1 = first.payload as { workflows: Array<{ id: string }>; next_page_token: string | null };
    expect(page1.workflows).toHaveLength(3);
    expect(typeof page1.next_page_token).toBe('string');
    const second = onlyOutput(await trigger({ max_results: '3', page_token: page1.next_page_token }));
    const page2 = second.payload as { workflows: Array<{ id: string }>; next_page_token: string | null };
    expect(page2.workflows).toHaveLength(3);
    expect(page2.workflows[0].id).not.toBe(page1.workflows[0].id);
    const query = sim.requests().filter((r) => r.route === 'list')[1].query;
    expect(query).toMatchObject({ max_results: '3', page_token: page1.next_page_token });
  });

  it('page mode: the last page has next_page_token null', async () => {
    await loadOperation(sim, 'media-spaces-list-workflows', {
      mode: 'page',
      statusFilter: 'deleted',
      maxResults: '100',
    });
    const out = onlyOutput(await trigger({}));
    expect(out.payload).toMatchObject({ next_page_token: null });
  });

  it('split mode: one message per workflow with msg.parts for a join node, then one completion', async () => {
    await loadOperation(sim, 'media-spaces-list-workflows', { mode: 'split', statusFilter: 'archived' });
    const outcome = await trigger({ topic: 't', parts: { id: 'outer', index: 2, count: 5, type: 'array', len: 1 } });
    expect(outcome.caught).toHaveLength(0);
    expect(outcome.completed).toHaveLength(1);
    const n = outcome.outputs.length;
    expect(n).toBeGreaterThan(1);
    const ids = new Set<unknown>();
    outcome.outputs.forEach((m, i) => {
      const parts = m.parts as Record<string, unknown>;
      expect(parts).toMatchObject({ index: i, count: n, type: 'array', len: 1 });
      // an incoming parts object is kept nested, as the split node does
      expect(parts.parts).toMatchObject({ id: 'outer', index: 2 });
      expect((m.payload as { status: string }).status).toBe('archived');
      expect(m.topic).toBe('t');
      expect(m.statusCode).toBe(200);
      ids.add(parts.id);
    });
    expect(ids.size).toBe(1);
  });

  it('split mode with no workflows: no output, still exactly one completion', async () => {
    const empty = await startSimulator({ fixture: fixtureDocument(fixtureSpace('empty', { workflows: [] })) });
    try {
      const creds = credentialsFor('empty');
      await loadOperation(
        empty,
        'media-spaces-list-workflows',
        { mode: 'split' },
        { apiKey: creds.access, configProps: { spaceId: spaceIdFor('empty') } },
      );
      const outcome = await trigger({});
      expect(outcome).toMatchObject({ outputs: [], caught: [] });
      expect(outcome.completed).toHaveLength(1);
    } finally {
      await helper.unload();
      await empty.close();
    }
  });

  it('400 from the service (a forged page token) reaches Catch with the field', async () => {
    await loadOperation(sim, 'media-spaces-list-workflows', { mode: 'page' });
    const caught = onlyFailure(await trigger({ page_token: 'not-a-real-token', topic: 'kept' }));
    expectCaughtError(caught, { status: 400, code: 'invalid_request', field: 'page_token' });
    expect(caught.topic).toBe('kept');
    expect(caught.error?.cause?.traceId).toMatch(/^[0-9a-f]+$/);
  });

  it('401 wrong key', async () => {
    await loadOperation(sim, 'media-spaces-list-workflows', {}, { apiKey: 'not-a-key' });
    const error = expectCaughtError(onlyFailure(await trigger({})), { status: 401, code: 'unauthorized' });
    expect(error.message).toMatch(/\(HTTP 401 from List workflows\)$/);
    expect(error.message).not.toContain('not-a-key');
  });

  it('403 inactive subscription', async () => {
    await loadOperation(
      sim,
      'media-spaces-list-workflows',
      {},
      { apiKey: DEMO.keys.inactive, configProps: { spaceId: DEMO.inactiveSpace } },
    );
    expectCaughtError(onlyFailure(await trigger({})), { status: 403, code: 'subscription_inactive' });
  });
});

describe('submit job', () => {
  it('submits with the node settings; payload has the job; label data stays', async () => {
    await loadOperation(sim, 'media-spaces-submit-job', {
      workflowId: DEMO.workflows.transcode,
      workflowIdType: 'str',
      jobName: 'proxy for {{msg.topic}}',
    });
    const out = onlyOutput(await trigger({ topic: 'clip-7', payload: {} }));
    expect(out.statusCode).toBe(200);
    expect(out.payload).toMatchObject({ workflow_id: DEMO.workflows.transcode, name: 'proxy for clip-7' });
    expect(typeof (out.payload as { id: unknown }).id).toBe('string');
    expect(out.topic).toBe('clip-7');
    expect(sim.counts().jobs).toBeGreaterThan(0);
  });

  it('msg.workflow_id and msg.job_name override the node; the short form is checked against declared typecodes', async () => {
    await loadOperation(sim, 'media-spaces-submit-job', {
      workflowId: DEMO.workflows.transcode,
      jobName: 'from the node',
      jobInputs: JSON.stringify({ variables: { Title: 'Node title', SourceUri: 's3://media/in/a.mxf' } }),
      jobInputsType: 'json',
    });
    const out = onlyOutput(
      await trigger({
        workflow_id: DEMO.workflows.render,
        job_name: 'from the message',
        payload: { variables: { VideoBitrateKbps: 8000, Title: 'Message title' } },
      }),
    );
    expect(out.payload).toMatchObject({ workflow_id: DEMO.workflows.render, name: 'from the message' });
  });

  it('payload in the description’s full form, with msg.idempotency_key: a resend replays the same job', async () => {
    await loadOperation(sim, 'media-spaces-submit-job', { workflowId: DEMO.workflows.publish });
    const payload = {
      job_name: 'publish once',
      usage: { input: { variables: [{ name: 'Visibility', typecode: 'String', value: 'unlisted' }] } },
    };
    const first = onlyOutput(await trigger({ payload, idempotency_key: 'publish-2024-06-01' }));
    const again = onlyOutput(await trigger({ payload, idempotency_key: 'publish-2024-06-01' }));
    expect((again.payload as { id: string }).id).toBe((first.payload as { id: string }).id);
    expect((first.payload as { name: string }).name).toBe('publish once');
    const keys = sim
      .requests()
      .filter((r) => r.route === 'submit')
      .map((r) => r.idempotency_key);
    expect(keys).toEqual(['publish-2024-06-01', 'publish-2024-06-01']);
  });

  it('a value that breaks its declared typecode is refused by name before anything is sent', async () => {
    await loadOperation(sim, 'media-spaces-submit-job', { workflowId: DEMO.workflows.render });
    const caught = onlyFailure(
      await trigger({
        payload: { variables: { Title: 't', SourceUri: 's3://x/y.mxf', VideoBitrateKbps: 'fast' } },
      }),
    );
    const error = expectCaughtError(caught, { code: 'invalid_input', field: 'variables.VideoBitrateKbps' });
    expect(error.message).toContain('variables.VideoBitrateKbps');
    expect(sim.requests().filter((r) => r.route === 'submit')).toHaveLength(0);
  });

  it('401 missing scope: an access-scope key may list but not submit', async () => {
    await loadOperation(
      sim,
      'media-spaces-submit-job',
      { workflowId: DEMO.workflows.transcode },
      {
        apiKey: DEMO.keys.access,
      },
    );
    const error = expectCaughtError(onlyFailure(await trigger({})), { status: 401, code: 'unauthorized' });
    expect(error.message).toMatch(/scope/);
  });

  it('404 unknown workflow', async () => {
    await loadOperation(sim, 'media-spaces-submit-job', { workflowId: DEMO.workflows.unknown });
    expectCaughtError(onlyFailure(await trigger({})), { status: 404, code: 'not_found' });
  });

  it('422 inactive workflow, with the field map', async () => {
    await loadOperation(sim, 'media-spaces-submit-job', { workflowId: DEMO.workflows.idle });
    expectCaughtError(onlyFailure(await trigger({})), { status: 422, code: 'invalid_options', field: 'workflow_id' });
  });

  it('422 missing required inputs names each input', async () => {
    await loadOperation(sim, 'media-spaces-submit-job', { workflowId: DEMO.workflows.render });
    const error = expectCaughtError(onlyFailure(await trigger({})), {
      status: 422,
      code: 'invalid_options',
      field: 'variables.Title',
    });
    expect(Object.keys(error.cause.fieldErrors as object)).toEqual(
      expect.arrayContaining(['variables.SourceUri', 'variables.VideoBitrateKbps']),
    );
  });

  it('403 inactive subscription', async () => {
    await loadOperation(
      sim,
      'media-spaces-submit-job',
      { workflowId: 'cccccccc-0000-4000-8000-000000000001' },
      { apiKey: DEMO.keys.inactive, configProps: { spaceId: DEMO.inactiveSpace } },
    );
    expectCaughtError(onlyFailure(await trigger({})), { status: 403, code: 'subscription_inactive' });
  });

  it('workflow id from a typed input (flow context)', async () => {
    await loadOperation(sim, 'media-spaces-submit-job', { workflowId: 'wf', workflowIdType: 'msg' });
    const out = onlyOutput(await trigger({ wf: DEMO.workflows.transcode }));
    expect(out.payload).toMatchObject({ workflow_id: DEMO.workflows.transcode });
  });
});

describe('create channel', () => {
  const settings = {
    channelName: 'Studio 1',
    description: 'news at six',
    sourceId: 'bbbbbbbb-1111-4111-8111-111111111111',
    expectedProperties: '{"video":"1080p50"}',
    continuousRecording: 'true',
    recordingDuration: '4',
    region: 'eu-west-1',
    tags: 'news, studio-1',
  };

  it('every field from the node settings; status shows the state', async () => {
    await loadOperation(sim, 'media-spaces-create-channel', settings);
    const out = onlyOutput(await trigger({ payload: undefined, topic: 'rec' }));
    expect(out.statusCode).toBe(201);
    expect(out.topic).toBe('rec');
    expect(out.payload).toMatchObject({
      name: 'Studio 1',
      description: 'news at six',
      source_id: settings.sourceId,
      expected_properties: '{"video":"1080p50"}',
      continuous_recording: true,
      recording_duration: 4,
      region: 'eu-west-1',
      tags: ['news', 'studio-1'],
    });
    expect(sim.counts().channels).toBe(1);
  });

  it('msg.payload merges over the settings: objects become JSON strings, null removes a field', async () => {
    await loadOperation(sim, 'media-spaces-create-channel', settings);
    const out = onlyOutput(
      await trigger({
        payload: {
          name: 'Studio 2',
          expected_properties: { audio: 'stereo' },
          tags: ['late'],
          region: null,
        },
        idempotency_key: 'studio-2-slot-1',
      }),
    );
    expect(out.payload).toMatchObject({
      name: 'Studio 2',
      description: 'news at six',
      expected_properties: '{"audio":"stereo"}',
      tags: ['late'],
      recording_duration: 4,
    });
    expect((out.payload as { region: string }).region).not.toBe('eu-west-1');
    const entry = sim.requests().find((r) => r.route === 'create_channel');
    expect(entry?.idempotency_key).toBe('studio-2-slot-1');
  });

  it('no name anywhere: refused before sending (the service would answer 422), naming the field', async () => {
    await loadOperation(sim, 'media-spaces-create-channel', {});
    expectCaughtError(onlyFailure(await trigger({ payload: { description: 'nameless' } })), {
      code: 'invalid_input',
      field: 'name',
    });
  });

  it('401 wrong access token', async () => {
    await loadOperation(sim, 'media-spaces-create-channel', settings, { accessToken: 'wrong-token' });
    const error = expectCaughtError(onlyFailure(await trigger({})), { status: 401, code: 'unauthorized' });
    expect(error.message).not.toContain('wrong-token');
  });
});

describe('delete event', () => {
  /** A channel brings its events; they become visible once its recording starts. */
  async function eventIds(): Promise<string[]> {
    const client = createClient({
      workflowUrl: sim.workflowUrl,
      liveCaptureUrl: sim.liveCaptureUrl,
      spaceId: DEMO.space,
      accessToken: DEMO.token,
    });
    try {
      await client.createChannel({ name: 'events' });
    } finally {
      await client.close();
    }
    sim.advance(60 * 60_000);
    const res = await fetch(`${sim.adminUrl}/spaces/${DEMO.space}/events`);
    const body = (await res.json()) as { events: Array<{ id: string }> };
    return body.events.map((e) => e.id);
  }

  it('msg.event_id overrides the setting; 404 for an unknown event reaches Catch', async () => {
    await loadOperation(sim, 'media-spaces-delete-event', { eventId: 'fixed-id', eventIdType: 'str' });
    const caught = onlyFailure(await trigger({ event_id: 'no-such-event' }));
    expectCaughtError(caught, { status: 404, code: 'not_found' });
    expect(sim.requests().at(-1)?.path).toContain('/events/no-such-event');
  });

  it('deletes an existing event: payload null for the empty 204 body, msg.event_id set', async () => {
    const ids = await eventIds();
    expect(ids.length).toBeGreaterThan(0);
    await loadOperation(sim, 'media-spaces-delete-event', { eventId: 'event_id', eventIdType: 'msg' });
    const out = onlyOutput(await trigger({ event_id: ids[0] }));
    expect(out.statusCode).toBe(204);
    expect(out.payload).toBeNull();
    expect(out.event_id).toBe(ids[0]);
  });

  it('401 wrong token', async () => {
    await loadOperation(
      sim,
      'media-spaces-delete-event',
      { eventId: 'e1', eventIdType: 'str' },
      {
        accessToken: 'nope',
      },
    );
    expectCaughtError(onlyFailure(await trigger({})), { status: 401, code: 'unauthorized' });
  });
});

describe('status', () => {
  it('blue while requesting with a count, then green with the result', async () => {
    await loadOperation(sim, 'media-spaces-list-workflows', { mode: 'all', statusFilter: 'archived' });
    const node = helper.getNode('op');
    const seen: unknown[] = [];
    const original = node.status as (s: unknown) => void;
    node.status = (s: unknown) => {
      seen.push(s);
      original.call(node, s);
    };
    // both requests are held 2 s: the second starts while the first is still out
    sim.addFault({ route: 'list', kind: 'latency', latency_ms: 2000, count: 2 });
    const a = trigger({});
    // the badge changes at most every 250 ms, so the second request starts once that has passed
    await vi.waitFor(() => expect(seen).toContainEqual({ fill: 'blue', shape: 'dot', text: 'requesting' }), {
      timeout: 1500,
    });
    await new Promise((resolve) => setTimeout(resolve, 300));
    const b = trigger({});
    await Promise.all([a, b]);
    expect(seen).toContainEqual({ fill: 'blue', shape: 'dot', text: 'requesting' });
    expect(seen).toContainEqual({ fill: 'blue', shape: 'dot', text: 'requesting (2)' });
    await vi.waitFor(
      () =>
        expect(seen.at(-1)).toMatchObject({
          fill: 'green',
          shape: 'dot',
          text: expect.stringMatching(/^\d+ workflows$/),
        }),
      { timeout: 5000 },
    );
  });

  it('red ring with the HTTP status and code', async () => {
    await loadOperation(sim, 'media-spaces-delete-event', { eventId: 'gone', eventIdType: 'str' });
    const node = helper.getNode('op');
    const seen: unknown[] = [];
    node.status = (s: unknown) => seen.push(s);
    onlyFailure(await trigger({}));
    await vi.waitFor(() => expect(seen.at(-1)).toEqual({ fill: 'red', shape: 'ring', text: '404: not found' }), {
      timeout: 5000,
    });
  });
});

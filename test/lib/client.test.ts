import { inspect } from 'node:util';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createClient, type MediaSpacesClient } from '../../lib/client';
import { isMediaSpacesError, type MediaSpacesError } from '../../lib/errors';
import { Channel, type Workflow, WorkflowJob } from '../../lib/schemas';
import { Transport } from '../../lib/transport';
import {
  BIG_COUNT,
  BIG_SPACE,
  INACTIVE_SPACE,
  KEYS,
  SPACE,
  TOKENS,
  UNKNOWN_SPACE,
  VALID_SHORT_INPUTS,
  WF,
} from '../support/fixture';
import { FAST_RETRY, rejection, type SimHarness, startHarness } from '../support/sim';
import { json, startStub } from '../support/stub-server';

const WORKFLOW_PATH = `/workflow/v1/${SPACE}`;
const LIVE_PATH = `/livecapture/v1/${SPACE}`;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

let h: SimHarness;
let client: MediaSpacesClient;

const requests = () => h.sim.requests();

describe('against the simulator (manual clock)', () => {
  beforeEach(async () => {
    h = await startHarness();
    client = h.client();
  });

  afterEach(async () => {
    await h.close();
  });

  describe('listWorkflows', () => {
    it('returns one page with its continuation token', async () => {
      const res = await client.listWorkflows({ maxResults: 2 });
      expect(res.status).toBe(200);
      expect(res.attempts).toBe(1);
      expect(res.data.workflows.map((w) => w.id)).toEqual([WF.simple, WF.inputs]);
      expect(res.data.workflows[0]).toEqual({
        name: 'Simple transcode',
        description: 'needs no inputs',
        id: WF.simple,
        created_at: '2024-01-02T09:00:00.000Z',
        updated_at: '2024-01-02T09:00:00.000Z',
        status: 'active',
      });
      expect(res.data.next_page_token).toEqual(expect.any(String));
      expect(requests()).toHaveLength(1);
      expect(requests()[0]).toMatchObject({
        method: 'GET',
        path: `${WORKFLOW_PATH}/workflows`,
        query: { max_results: '2' },
        route: 'list',
        status: 200,
        idempotency_key: null,
        authorization_present: true,
      });
    });

    it('returns every workflow of a small space on one page without a token', async () => {
      const res = await client.listWorkflows();
      expect(res.data.workflows.map((w) => w.status)).toEqual([
        'active',
        'active',
        'active',
        'idle',
        'archived',
        'deleted',
      ]);
      expect(res.data.next_page_token ?? null).toBeNull();
      expect(requests()[0].query).toEqual({});
    });

    it.each([
      ['active', [WF.simple, WF.inputs, WF.fails]],
      ['idle', [WF.idle]],
      ['archived', [WF.archived]],
      ['deleted', [WF.deleted]],
    ])('filters by status %s', async (status, ids) => {
      const res = await client.listWorkflows({ status });
      expect(res.data.workflows.map((w) => w.id)).toEqual(ids);
      expect(res.data.workflows.every((w) => w.status === status)).toBe(true);
      expect(requests()[0].query).toEqual({ status });
    });

    it('checks max_results and status before sending anything', async () => {
      for (const maxResults of [0, 101, -1, 1.5, Number.NaN, '5' as unknown as number]) {
        const err = await rejection(client.listWorkflows({ maxResults }));
        expect(err.code).toBe('invalid_input');
        expect(err.fieldErrors).toEqual({ max_results: 'must be between 1 and 100' });
        expect(err.message).toMatch(/^max_results must be a whole number from 1 to 100/);
      }
      const bad = await rejection(client.listWorkflows({ status: 'running' }));
      expect(bad.fieldErrors).toHaveProperty('status');
      expect(requests()).toHaveLength(0);

      await client.listWorkflows({ maxResults: 1 });
      await client.listWorkflows({ maxResults: 100 });
      expect(requests().map((r) => r.query.max_results)).toEqual(['1', '100']);
    });

    it('follows a page token to the next page', async () => {
      const first = await client.listWorkflows({ maxResults: 4 });
      expect(first.data.workflows).toHaveLength(4);
      const token = first.data.next_page_token as string;
      const second = await client.listWorkflows({ maxResults: 4, pageToken: token });
      expect(second.data.workflows.map((w) => w.id)).toEqual([WF.archived, WF.deleted]);
      expect(second.data.next_page_token ?? null).toBeNull();
      expect(requests()[1].query).toEqual({ max_results: '4', page_token: token });
    });

    it('reports a page token the service refuses as a problem with its pointer and trace id', async () => {
      const err = await rejection(client.listWorkflows({ pageToken: 'not-a-real-token' }));
      expect(err.status).toBe(400);
      expect(err.code).toBe('invalid_request');
      expect(err.fieldErrors).toEqual({ page_token: expect.stringContaining('page_token') });
      expect(err.traceId).toEqual(expect.any(String));
      expect(requests()).toHaveLength(1);
    });

    it('uses configurable names for the token and status parameters', async () => {
      const c = h.client({ statusParam: 'state', pageTokenParam: 'continuation' });
      await c.listWorkflows({ status: 'idle', pageToken: 'abc' });
      expect(requests()[0].query).toEqual({ state: 'idle', continuation: 'abc' });
    });

    it('serves both workflow prefixes and rejects any other', async () => {
      const api = h.client({ workflowPrefix: '/workflow/api/v1' });
      const viaApi = await api.listWorkflows({ status: 'active' });
      const viaDefault = await client.listWorkflows({ status: 'active' });
      expect(viaApi.data).toEqual(viaDefault.data);
      expect(requests().map((r) => r.path)).toEqual([
        `/workflow/api/v1/${SPACE}/workflows`,
        `/workflow/v1/${SPACE}/workflows`,
      ]);
      const job = await api.submitJob(WF.simple, {});
      expect(job.status).toBe(200);
      expect(requests()[2].path).toBe(`/workflow/api/v1/${SPACE}/workflows/${WF.simple}/jobs`);

      expect(() => h.client({ workflowPrefix: '/workflow/v2' as '/workflow/v1' })).toThrow(
        /workflowPrefix must be one of/,
      );
    });

    it('accepts a base URL with a trailing slash', async () => {
      const c = h.client({ workflowUrl: `${h.sim.workflowUrl}/` });
      expect((await c.listWorkflows()).data.workflows).toHaveLength(6);
      expect(requests()[0].path).toBe(`${WORKFLOW_PATH}/workflows`);
    });

    it('reads a workflow with its declared inputs (extension)', async () => {
      const res = await client.getWorkflow(WF.inputs);
      expect(res.data.id).toBe(WF.inputs);
      expect(res.data.inputs?.variables?.map((v) => [v.name, v.typecode])).toEqual([
        ['Start', 'TimeCode'],
        ['Priority', 'Byte'],
      ]);
      expect(res.data.inputs?.labels?.[0].parameters?.[0]).toMatchObject({ name: 'Level', maximum_value: '10' });
    });
  });

  describe('submitJob', () => {
    it('submits the full form and answers 200 with the job', async () => {
      const res = await client.submitJob(WF.inputs, {
        job_name: 'full form',
        usage: {
          input: {
            variables: [{ name: 'Start', typecode: 'TimeCode', value: '10:00:00:00@29.97' }],
            media_nicknames: [
              {
                identifier: 'src',
                files: ['s3://b/a.mxf'],
                data: 'aGVsbG8=',
                datafilename: 'a.txt',
                binary_mode: false,
              },
            ],
            attachments: [{ identifier: 'subs', file: 's3://b/subs.srt' }],
            labels: [{ identifier: 'qc', parameters: [{ name: 'Level', typecode: 'Int32', value: '10' }] }],
          },
        },
      });
      expect(res.status).toBe(200);
      expect(res.replayed).toBe(false);
      expect(WorkflowJob.parse(res.data)).toEqual(res.data);
      expect(res.data).toMatchObject({
        name: 'full form',
        workflow_id: WF.inputs,
        workflow_name: 'Ingest with inputs',
        state: 'created',
        progress: 0,
        elapsed_time: null,
      });
      expect(res.data.id).toMatch(UUID);
      expect(await h.jobIds()).toEqual([res.data.id]);
    });

    it('submits the short form, typed from the declared inputs', async () => {
      const wf = await client.getWorkflow(WF.inputs);
      const res = await client.submitJob(WF.inputs, VALID_SHORT_INPUTS, {
        declared: wf.data.inputs,
        jobName: 'short form',
      });
      expect(res.status).toBe(200);
      expect(res.data.name).toBe('short form');
      expect(h.sim.counts().jobs).toBe(1);
    });

    it('merges the node settings under the message', async () => {
      const res = await client.submitJob(
        WF.inputs,
        { variables: { Start: '02:00:00:00@50' } },
        { base: { ...VALID_SHORT_INPUTS, variables: { Start: 'not a timecode at all' } } },
      );
      expect(res.status).toBe(200);
    });

    it('sends an Idempotency-Key on every POST, the given one verbatim', async () => {
      await client.submitJob(WF.simple, {});
      await client.submitJob(WF.simple, {}, { idempotencyKey: 'slot-2024-05-01T10:00Z' });
      const keys = requests().map((r) => r.idempotency_key);
      expect(keys[0]).toMatch(UUID);
      expect(keys[1]).toBe('slot-2024-05-01T10:00Z');
      const err = await rejection(client.submitJob(WF.simple, {}, { idempotencyKey: 'has space' }));
      expect(err.code).toBe('invalid_input');
      expect(requests()).toHaveLength(2);
    });

    it('replays the job for a repeated Idempotency-Key instead of creating another', async () => {
      const a = await client.submitJob(WF.simple, { job_name: 'once' }, { idempotencyKey: 'k-1' });
      const b = await client.submitJob(WF.simple, { job_name: 'once' }, { idempotencyKey: 'k-1' });
      expect(b.replayed).toBe(true);
      expect(b.data.id).toBe(a.data.id);
      expect(h.sim.counts().jobs).toBe(1);
      const c = await rejection(client.submitJob(WF.simple, { job_name: 'other' }, { idempotencyKey: 'k-1' }));
      expect(c.status).toBe(422);
      expect(c.fieldErrors).toHaveProperty('Idempotency-Key');
    });

    it('rejects a bad value by variable name before sending', async () => {
      const wf = await client.getWorkflow(WF.inputs);
      h.sim.reset();
      const err = await rejection(
        client.submitJob(
          WF.inputs,
          { ...VALID_SHORT_INPUTS, variables: { Start: '00:00:00:25@25' } },
          { declared: wf.data.inputs },
        ),
      );
      expect(err.code).toBe('invalid_input');
      expect(err.message).toContain('variables.Start: "00:00:00:25@25" must be a TimeCode');
      expect(requests()).toHaveLength(0);
    });

    it('reports the service 422 field map for missing inputs', async () => {
      const err = await rejection(client.submitJob(WF.inputs, {}));
      expect(err.status).toBe(422);
      expect(err.code).toBe('invalid_options');
      expect(Object.keys(err.fieldErrors).sort()).toEqual([
        'attachments.subs',
        'labels.qc',
        'media_nicknames.src',
        'variables.Start',
      ]);
    });

    it('reports a parameter outside its declared range from the service', async () => {
      const err = await rejection(
        client.submitJob(WF.inputs, { ...VALID_SHORT_INPUTS, labels: { qc: { Level: 11 } } }),
      );
      expect(err.status).toBe(422);
      expect(err.fieldErrors).toEqual({ 'labels.qc.parameters.Level': 'must be at most 10' });
    });

    it.each([
      ['idle', WF.idle],
      ['archived', WF.archived],
      ['deleted', WF.deleted],
    ])('refuses a job for a workflow that is %s', async (status, id) => {
      const err = await rejection(client.submitJob(id, {}));
      expect(err.status).toBe(422);
      expect(err.fieldErrors.workflow_id).toContain(status);
      expect(h.sim.counts().jobs).toBe(0);
    });
  });

  describe('getJob', () => {
    it('follows a job through its lifecycle as the clock advances', async () => {
      const { data: job } = await client.submitJob(WF.simple, { job_name: 'life' });
      const state = async () => (await client.getJob(WF.simple, job.id)).data;

      expect(await state()).toMatchObject({ state: 'created', progress: 0, elapsed_time: null });
      h.sim.advance(500);
      expect(await state()).toMatchObject({ state: 'in-process', progress: 0, elapsed_time: null });
      h.sim.advance(5_000);
      expect(await state()).toMatchObject({ state: 'in-process', progress: 50, elapsed_time: null });
      h.sim.advance(5_000);
      const done = await state();
      expect(done).toMatchObject({ id: job.id, state: 'succeeded', progress: 100, elapsed_time: '0:00:10.5' });
      expect(Date.parse(done.updated_at!) - Date.parse(done.created_at!)).toBe(10_500);
      expect(requests().find((r) => r.route === 'job')?.path).toBe(
        `${WORKFLOW_PATH}/workflows/${WF.simple}/jobs/${job.id}`,
      );
    });

    it('reaches failed for a workflow whose jobs fail', async () => {
      const { data: job } = await client.submitJob(WF.fails, {});
      h.sim.advance(2_500);
      expect((await client.getJob(WF.fails, job.id)).data).toMatchObject({
        state: 'failed',
        elapsed_time: '0:00:02.5',
      });
    });

    it('answers 404 for an unknown job and 400 for a job id that is not a GUID', async () => {
      const missing = await rejection(client.getJob(WF.simple, '0f8fad5b-d9cb-469f-a165-70867728950e'));
      expect(missing.code).toBe('not_found');
      const bad = await rejection(client.getJob(WF.simple, 'job-1'));
      expect(bad.status).toBe(400);
      expect(bad.code).toBe('invalid_request');
      expect(bad.message).toContain('job_id must be a GUID');
    });
  });

  describe('channels and events', () => {
    const request = {
      name: 'Studio A',
      description: 'evening news',
      source_id: '9b1deb4d-3b7d-4bad-9bdd-2b0d7b3dcb6d',
      expected_properties: JSON.stringify({ video: { width: 1920, height: 1080, fps: 25 } }),
      continuous_recording: true,
      recording_duration: 1,
      region: 'eu-west-1',
      tags: ['news'],
    };

    it('creates a channel and follows it from PENDING to INACTIVE with outputs', async () => {
      const created = await client.createChannel(request);
      expect(created.status).toBe(201);
      expect(Channel.parse(created.data)).toEqual(created.data);
      expect(created.data).toMatchObject({
        name: 'Studio A',
        description: 'evening news',
        source_id: request.source_id,
        expected_properties: request.expected_properties,
        continuous_recording: true,
        recording_duration: 1,
        region: 'eu-west-1',
        tags: ['news'],
      });
      // "recording" has no value before the recording starts: left out, not null
      expect(created.data).not.toHaveProperty('recording');
      expect(JSON.parse(created.data.expected_properties as string)).toEqual({
        video: { width: 1920, height: 1080, fps: 25 },
      });
      expect(client.channelState(created.data)).toBe('PENDING');
      expect(requests()[0]).toMatchObject({ method: 'POST', path: `${LIVE_PATH}/channels`, status: 201 });

      const id = created.data.id;
      const read = async () => (await client.getChannel(id)).data;
      h.sim.advance(1_000);
      expect(client.channelState(await read())).toBe('ACTIVE');
      h.sim.advance(1_000);
      const recording = await read();
      expect(client.channelState(recording)).toBe('RECORDING');
      expect(recording.recording).toMatchObject({
        channel_id: id,
        outputs: expect.arrayContaining([expect.objectContaining({ format: 'mxf' })]),
      });
      expect(recording.recording).not.toHaveProperty('ended_at');
      // a continuous recording goes on past its window; only the stop extension ends it
      h.sim.advance(3_600_000);
      expect(client.channelState(await read())).toBe('RECORDING');
      const stop = await fetch(`${h.sim.liveCaptureUrl}${LIVE_PATH}/channels/${id}/stop`, {
        method: 'POST',
        headers: { authorization: `Bearer ${TOKENS.main}` },
      });
      expect(stop.status).toBe(200);
      expect(client.channelState(await read())).toBe('FINISHING_RECORDING');
      h.sim.advance(2_000);
      const finished = await read();
      expect(client.channelState(finished)).toBe('INACTIVE');
      expect(finished.recording?.outputs?.map((o) => o.format)).toEqual(['mxf']);
      expect(finished.recording?.ended_at).toEqual(expect.any(String));
      expect(requests().at(-1)?.path).toBe(`${LIVE_PATH}/channels/${id}`);
    });

    it('reads the state from the configured fields', () => {
      const c = h.client({ channelStateFields: ['phase', 'state'] });
      expect(c.channelState({ phase: 'ERROR', state: 'ACTIVE' })).toBe('ERROR');
      expect(c.channelState({ state: 'ACTIVE' })).toBe('ACTIVE');
      expect(client.channelState({ status: 'DRAFT' })).toBe('DRAFT');
      expect(client.channelState({ state: 3 })).toBeUndefined();
    });

    it('checks the create request before sending', async () => {
      for (const bad of [
        { name: 'x', expected_properties: '{not json' },
        { name: 'x', source_id: 'cam-1' },
        { name: 'x', recording_duration: 1.5 },
        { name: 'x', colour: 'red' },
        'a string',
      ]) {
        const err = await rejection(client.createChannel(bad));
        expect(err.code).toBe('invalid_input');
        expect(err.message).toMatch(/^Invalid channel request: /);
        expect(Object.keys(err.fieldErrors).length).toBeGreaterThan(0);
      }
      const err = await rejection(client.createChannel({ name: 'x', colour: 'red' }));
      expect(err.fieldErrors).toEqual({ colour: 'is not a known field' });
      expect(requests()).toHaveLength(0);
    });

    it('requires a name, as the simulator does: the client refuses first with the same field message', async () => {
      const err = await rejection(client.createChannel({ description: 'nameless' }));
      expect(err.code).toBe('invalid_input');
      expect(err.fieldErrors).toEqual({ name: 'name is required' });
      expect(requests()).toHaveLength(0);
      const service = await fetch(`${h.sim.liveCaptureUrl}${LIVE_PATH}/channels`, {
        method: 'POST',
        headers: { authorization: `Bearer ${TOKENS.main}`, 'content-type': 'application/json' },
        body: JSON.stringify({ description: 'nameless' }),
      });
      expect(service.status).toBe(422);
      expect(await service.json()).toEqual({ errors: { name: 'name is required' } });
    });

    it('deletes an event with 204, then answers 404 for it', async () => {
      await client.createChannel({ name: 'events' });
      expect(await h.eventIds()).toEqual([]);
      h.sim.advance(2_000);
      const [first, second] = await h.eventIds();
      expect(h.sim.counts().events).toBe(2);

      const res = await client.deleteEvent(first);
      expect(res.status).toBe(204);
      expect(res.data).toBeNull();
      expect(await h.eventIds()).toEqual([second]);
      expect(requests().at(-1)).toMatchObject({ method: 'DELETE', path: `${LIVE_PATH}/events/${first}`, status: 204 });

      const again = await rejection(client.deleteEvent(first));
      expect(again.status).toBe(404);
      expect(again.code).toBe('not_found');
      expect(again.message).toContain(`event ${first} not found`);
    });

    it('answers 404 for an event of a recording that has not started', async () => {
      await client.createChannel({ name: 'later' });
      const err = await rejection(client.deleteEvent('0f8fad5b-d9cb-469f-a165-70867728950e'));
      expect(err.code).toBe('not_found');
    });
  });

  describe('path parameters', () => {
    it('refuses ids that are not UUIDs before sending', async () => {
      const attempts: Array<[Promise<unknown>, string]> = [
        [client.submitJob('not-a-uuid', {}), 'workflow_id'],
        [client.submitJob(`${WF.simple}/../x`, {}), 'workflow_id'],
        [client.submitJob(`${WF.simple}?x=1`, {}), 'workflow_id'],
        [client.submitJob(undefined as unknown as string, {}), 'workflow_id'],
        [client.getJob('../jobs', 'x'), 'workflow_id'],
        [client.getWorkflow(`${WF.simple} `), 'workflow_id'],
        [client.getChannel('../channels'), 'channel_id'],
        [h.client({ spaceId: 'my-space' }).listWorkflows(), 'space_id'],
        [h.client({ spaceId: `${SPACE}/..` }).deleteEvent('e'), 'space_id'],
      ];
      for (const [p, field] of attempts) {
        const err = await rejection(p);
        expect(err.code).toBe('invalid_input');
        expect(err.fieldErrors).toEqual({ [field]: 'must be a UUID' });
      }
      expect(requests()).toHaveLength(0);
    });

    it('refuses empty, relative and overlong event ids before sending', async () => {
      for (const id of ['', '   ', '.', '..', 'x'.repeat(257), undefined, null, {}]) {
        const err = await rejection(client.deleteEvent(id as string));
        expect(err.code).toBe('invalid_input');
        expect(Object.keys(err.fieldErrors)).toEqual(['event_id']);
      }
      expect(requests()).toHaveLength(0);
    });

    it('encodes event ids so that they never change the path', async () => {
      const cases: Array<[string, string]> = [
        ['../x', '..%2Fx'],
        ['../../workflows', '..%2F..%2Fworkflows'],
        ['a%2Fb', 'a%252Fb'],
        ['?x=1', '%3Fx%3D1'],
        ['a/b', 'a%2Fb'],
        ['#frag', '%23frag'],
        ['é vent', '%C3%A9%20vent'],
      ];
      for (const [id] of cases) {
        const err = await rejection(client.deleteEvent(id));
        // the simulator refuses these characters in an event id: 400 in the live-capture shape
        expect(err.status).toBe(400);
        expect(err.fieldErrors).toHaveProperty('event_id');
      }
      const log = requests();
      expect(log.map((r) => r.path)).toEqual(cases.map(([, encoded]) => `${LIVE_PATH}/events/${encoded}`));
      for (const entry of log) {
        expect(entry.route).toBe('delete_event');
        expect(entry.query).toEqual({});
      }
      await client.deleteEvent(123 as unknown as string).catch(() => undefined);
      expect(requests().at(-1)?.path).toBe(`${LIVE_PATH}/events/123`);
    });
  });

  describe('every HTTP status reaches the right error code', () => {
    it('from the service itself', async () => {
      for (const call of [() => client.listWorkflows({ pageToken: 'zzz' }), () => client.getJob(WF.simple, 'nope')]) {
        const err = await rejection(call());
        expect([err.status, err.code]).toEqual([400, 'invalid_request']);
      }
      const access = h.client({ apiKey: KEYS.access });
      expect((await access.listWorkflows()).status).toBe(200);
      const scope = await rejection(access.submitJob(WF.simple, {}));
      expect([scope.status, scope.code]).toEqual([401, 'unauthorized']);
      expect(scope.message).toContain('workflow:workflow-management');
      const management = h.client({ apiKey: KEYS.management });
      expect((await management.submitJob(WF.simple, {})).status).toBe(200);

      const unknownKey = await rejection(h.client({ apiKey: 'unknown-key' }).listWorkflows());
      expect([unknownKey.status, unknownKey.code]).toEqual([401, 'unauthorized']);
      // the client refuses to send without a key (see "Authorization on every request"); the service's own answer:
      const noHeader = await fetch(`${h.sim.workflowUrl}${WORKFLOW_PATH}/workflows`);
      expect(noHeader.status).toBe(401);
      expect(requests().at(-1)?.authorization_present).toBe(false);
      const otherSpace = await rejection(h.client({ apiKey: KEYS.inactive }).listWorkflows());
      expect(otherSpace.code).toBe('unauthorized');

      const inactive = h.client({ spaceId: INACTIVE_SPACE, apiKey: KEYS.inactive, accessToken: TOKENS.inactive });
      const e403 = await rejection(inactive.listWorkflows());
      expect([e403.status, e403.code]).toEqual([403, 'subscription_inactive']);
      const e403live = await rejection(inactive.createChannel({ name: 'x' }));
      expect([e403live.status, e403live.code]).toEqual([403, 'subscription_inactive']);

      const e404space = await rejection(h.client({ spaceId: UNKNOWN_SPACE }).listWorkflows());
      expect([e404space.status, e404space.code]).toEqual([404, 'not_found']);
      const e404wf = await rejection(client.submitJob(WF.unknown, {}));
      expect([e404wf.status, e404wf.code]).toEqual([404, 'not_found']);
      expect(e404wf.message).toContain(`workflow ${WF.unknown} not found`);
      const e404ch = await rejection(client.getChannel(WF.unknown));
      expect(e404ch.code).toBe('not_found');

      const e422 = await rejection(client.submitJob(WF.idle, {}));
      expect([e422.status, e422.code]).toEqual([422, 'invalid_options']);

      const badToken = await rejection(h.client({ accessToken: 'nope' }).createChannel({ name: 'x' }));
      expect([badToken.status, badToken.code]).toEqual([401, 'unauthorized']);
    });

    it.each([
      [400, 'invalid_request'],
      [401, 'unauthorized'],
      [403, 'subscription_inactive'],
      [404, 'not_found'],
      [409, 'conflict'],
      [410, 'http_error'],
      [422, 'invalid_options'],
      [429, 'rate_limited'],
      [500, 'server_error'],
      [502, 'server_error'],
      [503, 'server_error'],
      [504, 'server_error'],
    ])('from an injected %i', async (status, code) => {
      const c = h.client({ retries: 0 });
      h.sim.addFault({ route: 'list', kind: 'status', status, count: 1 });
      const err = await rejection(c.listWorkflows());
      expect(err.status).toBe(status);
      expect(err.code).toBe(code);
      expect(err.traceId).toEqual(expect.any(String)); // the list answers problem bodies
      h.sim.addFault({ route: 'delete_event', kind: 'status', status, count: 1 });
      const live = await rejection(c.deleteEvent('e-1'));
      expect([live.status, live.code]).toEqual([status, code]);
      expect(requests()).toHaveLength(2);
    });
  });

  describe('retries against injected faults', () => {
    it('retries 503 and then succeeds', async () => {
      h.sim.addFault({ route: 'list', kind: 'status', status: 503, count: 2 });
      const res = await client.listWorkflows();
      expect(res.attempts).toBe(3);
      expect(requests().map((r) => r.status)).toEqual([503, 503, 200]);
    });

    it('retries 502, 504 and 429 without Retry-After too', async () => {
      const { data: job } = await client.submitJob(WF.simple, {});
      // one fault of a kind applies per request, the oldest first: 502, then 504, then 429
      for (const status of [502, 504, 429]) h.sim.addFault({ route: 'job', kind: 'status', status, count: 1 });
      const res = await client.getJob(WF.simple, job.id);
      expect(res.attempts).toBe(4);
      expect(res.data.id).toBe(job.id);
      expect(
        requests()
          .filter((r) => r.route === 'job')
          .map((r) => r.status),
      ).toEqual([502, 504, 429, 200]);
    });

    it('gives up after the configured retries with the last error', async () => {
      h.sim.addFault({ route: 'list', kind: 'status', status: 503 });
      const err = await rejection(h.client({ retries: 2 }).listWorkflows());
      expect(err.status).toBe(503);
      expect(requests()).toHaveLength(3);
    });

    it('does not retry 500', async () => {
      h.sim.addFault({ route: 'list', kind: 'status', status: 500, count: 1 });
      const err = await rejection(client.listWorkflows());
      expect(err.code).toBe('server_error');
      expect(requests()).toHaveLength(1);
    });

    it('does not retry 4xx other than 429', async () => {
      const err = await rejection(client.submitJob(WF.inputs, {}));
      expect(err.status).toBe(422);
      expect(requests()).toHaveLength(1);
    });

    it('ends the retries when Retry-After is longer than the cap', async () => {
      const c = h.client({ retryPolicy: { ...FAST_RETRY, maxRetryAfterMs: 1_000 } });
      h.sim.addFault({ route: 'list', kind: 'status', status: 429, retry_after: 5, count: 3 });
      const started = Date.now();
      const err = await rejection(c.listWorkflows());
      expect(err.code).toBe('rate_limited');
      expect(Date.now() - started).toBeLessThan(1_000);
      expect(requests()).toHaveLength(1);
    });

    it('never retries a POST without an Idempotency-Key (transport)', async () => {
      const transport = new Transport({
        timeoutMs: 2_000,
        connectTimeoutMs: 1_000,
        retry: { retries: 3, ...FAST_RETRY, maxRetryAfterMs: 5_000 },
        rejectUnauthorized: true,
        userAgent: 'test',
      });
      const send = () =>
        transport.send(
          {
            method: 'POST',
            url: `${h.sim.workflowUrl}${WORKFLOW_PATH}/workflows/${WF.simple}/jobs`,
            credential: KEYS.admin,
            body: {},
            context: 'Submit job',
          },
          (b) => b,
        );
      try {
        h.sim.addFault({ route: 'submit', kind: 'status', status: 503, count: 1 });
        const e503 = await rejection(send());
        expect(e503.status).toBe(503);
        expect(requests()).toHaveLength(1);
        expect(h.sim.counts().jobs).toBe(0);

        // dropped after handling: the job exists, and a blind retry would have made a second one
        h.sim.addFault({ route: 'submit', kind: 'drop', count: 1 });
        const dropped = await rejection(send());
        expect(dropped.code).toBe('network_error');
        expect(requests()).toHaveLength(2);
        expect(requests()[1].idempotency_key).toBeNull();
        expect(h.sim.counts().jobs).toBe(1);
      } finally {
        await transport.close();
      }
    });

    it('retries a POST with its key after the connection dropped after handling: one job', async () => {
      h.sim.addFault({ route: 'submit', kind: 'drop', count: 1 });
      const res = await client.submitJob(WF.simple, { job_name: 'exactly once' });
      expect(res.attempts).toBe(2);
      expect(res.replayed).toBe(true);
      expect(h.sim.counts().jobs).toBe(1);
      expect(await h.jobIds()).toEqual([res.data.id]);
      const log = requests();
      expect(log).toHaveLength(2);
      expect(log[0]).toMatchObject({ status: null, fault: 'drop' });
      expect(log[1]).toMatchObject({ status: 200, replayed: true });
      expect(log[1].idempotency_key).toBe(log[0].idempotency_key);
    });

    it('retries a POST with its key after a truncated answer: one job, one channel', async () => {
      h.sim.addFault({ route: 'submit', kind: 'truncate', count: 1 });
      const job = await client.submitJob(WF.simple, {});
      expect(job.attempts).toBe(2);
      expect(job.data.state).toBe('created');
      h.sim.addFault({ route: 'create_channel', kind: 'truncate', count: 1 });
      const channel = await client.createChannel({ name: 'once' });
      expect(channel.attempts).toBe(2);
      expect(channel.status).toBe(201);
      expect(h.sim.counts()).toMatchObject({ jobs: 1, channels: 1 });
    });

    it('retries a GET after a truncated body and a DELETE after a drop', async () => {
      h.sim.addFault({ route: 'list', kind: 'truncate', count: 1 });
      expect((await client.listWorkflows()).attempts).toBe(2);
      await client.createChannel({ name: 'ev' });
      h.sim.advance(2_000);
      const [id] = await h.eventIds();
      h.sim.addFault({ route: 'delete_event', kind: 'drop', phase: 'before', count: 1 });
      const res = await client.deleteEvent(id);
      expect([res.status, res.attempts]).toEqual([204, 2]);
    });

    it('retries a POST whose first attempt timed out until the service replays it: one job', async () => {
      h.sim.addFault({ route: 'submit', kind: 'latency', latency_ms: 500, count: 1 });
      const c = h.client({ timeout: 200, retries: 8, retryPolicy: { baseDelayMs: 100, maxDelayMs: 150 } });
      const res = await c.submitJob(WF.simple, { job_name: 'slow' });
      expect(res.status).toBe(200);
      expect(res.replayed).toBe(true);
      expect(h.sim.counts().jobs).toBe(1);
      expect(await h.jobIds()).toEqual([res.data.id]);
      // while the first attempt was still being handled the service answered 409, which was retried too
      const statuses = requests().map((r) => r.status);
      expect(statuses).toContain(409);
      expect(statuses.at(-1)).toBe(200);
      expect(new Set(requests().map((r) => r.idempotency_key)).size).toBe(1);
    });

    it('a submission sent again by a restarted process while its first is still handled waits for it: one job', async () => {
      h.sim.addFault({ route: 'submit', kind: 'latency', latency_ms: 1_500, count: 1 });
      const key = 'rel:w2:2026-11-22T21:05:16Z';
      // the first process sends, then dies: its request stays with the service
      const killed = new AbortController();
      const first = client.submitJob(WF.simple, { job_name: 'slot' }, { idempotencyKey: key, signal: killed.signal });
      await new Promise((r) => setTimeout(r, 200));
      killed.abort();
      expect((await rejection(first)).code).toBe('aborted');
      // the restarted process has one retry to spare; waiting for the first request spends none
      const c = h.client({ timeout: 5_000, retries: 1 });
      const res = await c.submitJob(WF.simple, { job_name: 'slot' }, { idempotencyKey: key });
      expect([res.status, res.replayed]).toEqual([200, true]);
      expect(res.attempts).toBeGreaterThan(2);
      expect(h.sim.counts().jobs).toBe(1);
      const statuses = requests().map((r) => r.status);
      expect(statuses.filter((s) => s === 409).length).toBe(res.attempts - 1);
    });

    it('times out a slow attempt and retries it', async () => {
      h.sim.addFault({ route: 'list', kind: 'latency', latency_ms: 1_500, count: 1 });
      const c = h.client({ timeout: 200 });
      const started = Date.now();
      const res = await c.listWorkflows();
      expect(res.attempts).toBe(2);
      expect(Date.now() - started).toBeLessThan(1_400);
    });

    it('reports timeout when no attempt answers in time', async () => {
      h.sim.addFault({ route: 'list', kind: 'latency', latency_ms: 2_000 });
      const c = h.client({ timeout: 150, retries: 1 });
      const err = await rejection(c.listWorkflows());
      expect(err.code).toBe('timeout');
      expect(err.message).toBe('List workflows timed out after 150 ms');
      expect(err.status).toBeUndefined();
    });

    it('aborts promptly through an AbortSignal', async () => {
      h.sim.addFault({ route: 'list', kind: 'latency', latency_ms: 3_000 });
      const controller = new AbortController();
      const started = Date.now();
      setTimeout(() => controller.abort(), 50);
      const err = await rejection(client.listWorkflows({ signal: controller.signal }));
      expect(err.code).toBe('aborted');
      expect(Date.now() - started).toBeLessThan(1_000);

      const pre = new AbortController();
      pre.abort();
      expect((await rejection(client.submitJob(WF.simple, {}, { signal: pre.signal }))).code).toBe('aborted');
    });

    it('aborts while waiting out a Retry-After', async () => {
      h.sim.addFault({ route: 'list', kind: 'status', status: 503, retry_after: 4 });
      const controller = new AbortController();
      const started = Date.now();
      setTimeout(() => controller.abort(), 100);
      const err = await rejection(client.listWorkflows({ signal: controller.signal }));
      expect(err.code).toBe('aborted');
      expect(Date.now() - started).toBeLessThan(1_500);
      expect(requests()).toHaveLength(1);
    });

    it('close() aborts in-flight calls and refuses new ones', async () => {
      h.sim.addFault({ route: '*', kind: 'latency', latency_ms: 3_000 });
      const c = h.client();
      const pending = Promise.allSettled([c.listWorkflows(), c.createChannel({ name: 'x' })]);
      await new Promise((r) => setTimeout(r, 50));
      const started = Date.now();
      await c.close();
      const settled = await pending;
      expect(settled.map((r) => (r.status === 'rejected' ? (r.reason as MediaSpacesError).code : 'fulfilled'))).toEqual(
        ['aborted', 'aborted'],
      );
      expect(Date.now() - started).toBeLessThan(1_000);
      const after = await rejection(c.listWorkflows());
      expect(after.code).toBe('aborted');
      expect(after.message).toContain('client closed');
    });
    it('close() aborts a call that is waiting out a Retry-After', async () => {
      h.sim.addFault({ route: 'list', kind: 'status', status: 503, retry_after: 4 });
      const c = h.client();
      const pending = Promise.allSettled([c.listWorkflows()]);
      await new Promise((r) => setTimeout(r, 100));
      const started = Date.now();
      await c.close();
      const [result] = await pending;
      expect(Date.now() - started).toBeLessThan(1_000);
      expect(result.status).toBe('rejected');
      expect((result as PromiseRejectedResult).reason).toMatchObject({
        code: 'aborted',
        message: 'List workflows aborted: client closed',
      });
      expect(requests()).toHaveLength(1);
    });

    it('close() aborts in-flight calls on a dispatcher the caller owns, and leaves it usable', async () => {
      const { Agent } = await import('undici');
      const agent = new Agent();
      try {
        h.sim.addFault({ route: 'list', kind: 'latency', latency_ms: 3_000, count: 1 });
        const c = h.client({ dispatcher: agent });
        const pending = Promise.allSettled([c.listWorkflows()]);
        await new Promise((r) => setTimeout(r, 50));
        const started = Date.now();
        await c.close();
        const [result] = await pending;
        expect(Date.now() - started).toBeLessThan(1_000);
        expect((result as PromiseRejectedResult).reason).toMatchObject({ code: 'aborted' });
        const again = h.client({ dispatcher: agent });
        expect((await again.listWorkflows()).status).toBe(200);
      } finally {
        await h.close();
        await agent.close();
      }
    });
  });

  describe('credentials never leak', () => {
    const SECRET_KEY = 'super-secret-key-123';
    const SECRET_TOKEN = 'super-secret-token-456';

    const renderings = (e: MediaSpacesError) => [
      e.message,
      String(e),
      e.stack ?? '',
      JSON.stringify(e),
      JSON.stringify(e.toJSON()),
      JSON.stringify(e.body ?? null),
      inspect(e, { depth: 10, showHidden: true }),
    ];

    it('from 401 answers of both areas, with a wrong key and with a valid key lacking scope', async () => {
      const c = h.client({ apiKey: SECRET_KEY, accessToken: SECRET_TOKEN });
      const errors = [
        await rejection(c.listWorkflows()),
        await rejection(c.submitJob(WF.simple, {})),
        await rejection(c.createChannel({ name: 'x' })),
        await rejection(c.deleteEvent('e-1')),
      ];
      const scoped = h.client({ apiKey: KEYS.access });
      errors.push(await rejection(scoped.submitJob(WF.simple, {})));
      for (const e of errors) {
        expect(isMediaSpacesError(e)).toBe(true);
        expect(e.status).toBe(401);
        for (const text of renderings(e)) {
          expect(text).not.toContain(SECRET_KEY);
          expect(text).not.toContain(SECRET_TOKEN);
          expect(text).not.toContain(KEYS.access);
        }
      }
      // nor does the simulator record them
      expect(JSON.stringify(requests())).not.toContain(SECRET_KEY);
      expect(JSON.stringify(requests())).not.toContain(SECRET_TOKEN);
    });

    it('from timeouts, aborts and retried failures', async () => {
      const c = h.client({ apiKey: SECRET_KEY, accessToken: SECRET_TOKEN, timeout: 100, retries: 1 });
      h.sim.addFault({ route: 'list', kind: 'latency', latency_ms: 1_000 });
      h.sim.addFault({ route: 'create_channel', kind: 'drop', phase: 'before' });
      const errors = [await rejection(c.listWorkflows()), await rejection(c.createChannel({ name: 'x' }))];
      expect(errors.map((e) => e.code)).toEqual(['timeout', 'network_error']);
      for (const e of errors) {
        for (const text of renderings(e)) {
          expect(text).not.toContain(SECRET_KEY);
          expect(text).not.toContain(SECRET_TOKEN);
        }
      }
    });
  });
});

describe('Retry-After honoured (real clock, request log timestamps)', () => {
  beforeAll(async () => {
    h = await startHarness({ manualClock: false });
    client = h.client();
  });
  afterAll(async () => {
    await h.close();
  });

  it('waits at least the Retry-After seconds between attempts', async () => {
    h.sim.addFault({ route: 'list', kind: 'status', status: 429, retry_after: 1, count: 1 });
    const started = Date.now();
    const res = await client.listWorkflows();
    const elapsed = Date.now() - started;
    expect(res.attempts).toBe(2);
    expect(elapsed).toBeGreaterThanOrEqual(1_000);
    const [first, second] = requests();
    expect([first.status, second.status]).toEqual([429, 200]);
    expect(Date.parse(second.time) - Date.parse(first.time)).toBeGreaterThanOrEqual(990);
  });
});

describe('pagination across 1,000+ workflows', () => {
  let all: Workflow[];

  beforeAll(async () => {
    h = await startHarness({ big: true });
    client = h.client({ spaceId: BIG_SPACE, apiKey: KEYS.big, accessToken: TOKENS.big });
  });
  afterAll(async () => {
    await h.close();
  });
  beforeEach(() => {
    h.sim.reset();
  });

  it('iterates every workflow once with client.workflows(), one request per page', async () => {
    const ids: string[] = [];
    for await (const w of client.workflows({ maxResults: 100 })) ids.push(w.id);
    expect(ids).toHaveLength(BIG_COUNT);
    expect(new Set(ids).size).toBe(BIG_COUNT);
    expect(ids.every((id) => UUID.test(id))).toBe(true);

    const log = requests();
    expect(log).toHaveLength(Math.ceil(BIG_COUNT / 100));
    expect(log[0].query).toEqual({ max_results: '100' });
    const tokens = log.slice(1).map((r) => r.query.page_token);
    expect(tokens.every((t) => typeof t === 'string' && t.length > 0)).toBe(true);
    expect(new Set(tokens).size).toBe(tokens.length);
    expect(log.every((r) => r.status === 200)).toBe(true);
  });

  it('listAllWorkflows returns the same workflows in the same order, at the default page size', async () => {
    const ids: string[] = [];
    for await (const w of client.workflows({ maxResults: 100 })) ids.push(w.id);
    h.sim.reset();
    all = await client.listAllWorkflows();
    expect(all.map((w) => w.id)).toEqual(ids);
    // the simulator's default page is 50
    expect(requests()).toHaveLength(Math.ceil(BIG_COUNT / 50));
  });

  it('keeps the status filter on every page', async () => {
    const active = await client.listAllWorkflows({ status: 'active', maxResults: 37 });
    const expected = all.filter((w) => w.status === 'active').map((w) => w.id);
    expect(expected.length).toBeGreaterThan(100);
    expect(active.map((w) => w.id)).toEqual(expected);
    const log = requests();
    expect(log).toHaveLength(Math.ceil(expected.length / 37));
    expect(log.every((r) => r.query.status === 'active')).toBe(true);
  });

  it('stops early when the consumer breaks out of the iterator', async () => {
    let n = 0;
    for await (const _w of client.workflows({ maxResults: 10 })) {
      if (++n === 15) break;
    }
    expect(requests()).toHaveLength(2);
  });

  it('retries a failed page and still returns every workflow once', async () => {
    h.sim.addFault({ route: 'list', kind: 'status', status: 503, count: 1 });
    h.sim.addFault({ route: 'list', kind: 'truncate', count: 1 });
    const ids = (await client.listAllWorkflows({ maxResults: 100 })).map((w) => w.id);
    expect(new Set(ids).size).toBe(BIG_COUNT);
    expect(ids).toHaveLength(BIG_COUNT);
  });
});

describe('pages() guards against a service that repeats a token', () => {
  it('stops with invalid_response instead of looping', async () => {
    const stub = await startStub((_req, res) =>
      json(res, 200, { workflows: [{ id: WF.simple }], next_page_token: 'same' }),
    );
    const c = createClient({ workflowUrl: stub.url, spaceId: SPACE, apiKey: 'k', retries: 0 });
    try {
      const err = await rejection(c.listAllWorkflows());
      expect(err.code).toBe('invalid_response');
      expect(err.message).toContain('same next_page_token twice');
      expect(stub.requests).toHaveLength(2);
    } finally {
      await c.close();
      await stub.close();
    }
  });

  it('reports a 2xx list whose body breaks the description as invalid_response', async () => {
    const stub = await startStub((_req, res) => json(res, 200, { workflows: [{ name: 'no id' }] }));
    const c = createClient({ workflowUrl: stub.url, spaceId: SPACE, apiKey: 'k', retries: 0 });
    try {
      const err = await rejection(c.listWorkflows());
      expect(err.code).toBe('invalid_response');
      expect(err.status).toBe(200);
    } finally {
      await c.close();
      await stub.close();
    }
  });
});

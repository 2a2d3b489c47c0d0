import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createClient } from '../../lib/client';
import { errorFromResponse } from '../../lib/errors';
import type { WorkflowInputs } from '../../lib/schemas';
import { checkUri } from '../../lib/typecodes';
import { SPACE, VALID_SHORT_INPUTS, WF } from '../support/fixture';
import { rejection, type SimHarness, startHarness } from '../support/sim';
import { json, type Stub, startStub } from '../support/stub-server';

/**
 * The client held to the words of the service description: what it refuses
 * before sending (nothing reaches the simulator's request log), and what it reads.
 */

let h: SimHarness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(() => h.close());
beforeEach(() => h.sim.reset());

const nothingSent = () => expect(h.sim.requests()).toEqual([]);

/** WF.inputs as the service declares it (the GET-workflow extension). */
async function declaredInputs(): Promise<WorkflowInputs> {
  const { data } = await h.client().getWorkflow(WF.inputs);
  h.sim.reset();
  return data.inputs as WorkflowInputs;
}

describe('"Every request carries the header Authorization: Bearer <ACCESS_TOKEN>"', () => {
  it('refuses a workflow-area call with no API key (or token) configured, naming the missing credential', async () => {
    for (const apiKey of [undefined, '', '  ']) {
      const client = h.client({ apiKey });
      for (const call of [() => client.listWorkflows(), () => client.submitJob(WF.simple, {})]) {
        const err = await rejection(call());
        expect(err.code).toBe('invalid_input');
        expect(err.message).toContain('no API key configured for the workflow area');
        expect(err.fieldErrors).toEqual({ apiKey: 'is required' });
      }
    }
    nothingSent();
  });

  it('refuses a live-capture call with no access token configured', async () => {
    const client = h.client({ accessToken: undefined });
    for (const call of [() => client.createChannel({ name: 'x' }), () => client.deleteEvent('e1')]) {
      const err = await rejection(call());
      expect(err.message).toContain('no access token configured for the live-capture area');
      expect(err.fieldErrors).toEqual({ accessToken: 'is required' });
    }
    nothingSent();
  });
});

describe('required inputs: "they must be provided at submission"', () => {
  it('with the declared inputs known, names every missing variable, nickname, attachment, label and parameter', async () => {
    const declared = await declaredInputs();
    const err = await rejection(h.client().submitJob(WF.inputs, { labels: { qc: {} } }, { declared }));
    expect(err.code).toBe('invalid_input');
    expect(err.fieldErrors).toEqual({
      'variables.Start': 'is required (TimeCode) and has no default',
      'media_nicknames.src': 'is required: supply it with files or data',
      'attachments.subs': 'is required: supply it with a file',
      'labels.qc.parameters.Level': 'is required (Int32) and has no default',
    });
    // Priority has a declared default: it may be left out
    expect(err.fieldErrors).not.toHaveProperty('variables.Priority');
    nothingSent();
    const missingLabel = await rejection(h.client().submitJob(WF.inputs, { variables: {} }, { declared }));
    expect(missingLabel.fieldErrors['labels.qc']).toBe('is required: supply the label with its parameters');
  });

  it("the same names as the service's 422 for the same submission", async () => {
    const declared = await declaredInputs();
    const before = await rejection(h.client().submitJob(WF.inputs, { labels: { qc: {} } }, { declared }));
    const service = await rejection(h.client().submitJob(WF.inputs, { labels: { qc: {} } }));
    expect(service.status).toBe(422);
    expect(Object.keys(before.fieldErrors).sort()).toEqual(Object.keys(service.fieldErrors).sort());
  });

  it('a complete submission is sent', async () => {
    const declared = await declaredInputs();
    expect((await h.client().submitJob(WF.inputs, VALID_SHORT_INPUTS, { declared })).status).toBe(200);
  });
});

describe('WorkflowVariable typecode: "string | yes" (required)', () => {
  const fullForm = { usage: { input: { variables: [{ name: 'Start', value: '01:00:00:00@25' }] } } };

  it('in the full form, a variable without typecode is refused, naming it, when the declaration is not known', async () => {
    const err = await rejection(h.client().submitJob(WF.inputs, fullForm));
    expect(err.fieldErrors['variables.Start']).toMatch(/^typecode is required/);
    expect(err.message).toContain('variables.Start: typecode is required');
    const param = await rejection(
      h.client().submitJob(WF.inputs, {
        usage: { input: { labels: [{ identifier: 'qc', parameters: [{ name: 'Level', value: '3' }] }] } },
      }),
    );
    expect(param.fieldErrors['labels.qc.parameters.Level']).toMatch(/^typecode is required/);
    nothingSent();
  });

  it('takes the typecode from the declared inputs when known (never a guessed String)', async () => {
    const declared = await declaredInputs();
    const full = {
      usage: {
        input: {
          variables: [{ name: 'Start', value: '01:00:00:00@25' }],
          media_nicknames: [{ identifier: 'src', files: ['s3://b/a.mxf'] }],
          attachments: [{ identifier: 'subs', file: 's3://b/a.srt' }],
          labels: [{ identifier: 'qc', parameters: [{ name: 'Level', value: '3' }] }],
        },
      },
    };
    expect((await h.client().submitJob(WF.inputs, full, { declared })).status).toBe(200);
    const [job] = (await (await fetch(`${h.sim.adminUrl}/spaces/${SPACE}/jobs`)).json()).jobs;
    expect(job.input.variables).toEqual([{ name: 'Start', typecode: 'TimeCode', value: '01:00:00:00@25' }]);
    expect(job.input.labels[0].parameters[0]).toMatchObject({ name: 'Level', typecode: 'Int32' });
  });
});

describe('Uri: "path to a file, a fully qualified URI" (client, before sending)', () => {
  const submitSource = (value: string) =>
    h.client().submitJob(WF.inputs, { ...VALID_SHORT_INPUTS, variables: { Start: { value, typecode: 'Uri' } } });

  it('refuses empty, scheme-only and relative values', async () => {
    for (const value of ['s3:', 's3://', 'relative/a.mxf', 'a.mxf', '']) {
      const err = await rejection(submitSource(value));
      expect(err.code, value).toBe('invalid_input');
      expect(err.fieldErrors['variables.Start']).toMatch(/must be a Uri: a path to a file/);
    }
    nothingSent();
  });

  it('the client and the simulator apply one rule (checkUri of lib/typecodes)', () => {
    expect(checkUri('C:\\media\\a.mxf')).toBeNull();
    expect(checkUri('/media/a.mxf')).toBeNull();
    expect(checkUri('s3://bucket/a.mxf')).toBeNull();
    expect(checkUri('s3:')).not.toBeNull();
  });
});

describe('base64: "data (base64 text of a file\'s content)" (client, before sending)', () => {
  it('refuses text outside RFC 4648: a, ab=, abcde, a URL-safe alphabet, padding in the middle', async () => {
    for (const data of ['a', 'ab=', 'abcde', 'a-b_', 'QQ==QQ==', 'QR==']) {
      const err = await rejection(
        h.client().submitJob(WF.inputs, { ...VALID_SHORT_INPUTS, media_nicknames: { src: { data } } }),
      );
      expect(err.code, data).toBe('invalid_input');
      expect(err.fieldErrors['usage.input.media_nicknames.0.data'], data).toMatch(/^must be base64 text/);
    }
    nothingSent();
    const ok = await h.client().submitJob(WF.inputs, {
      ...VALID_SHORT_INPUTS,
      media_nicknames: { src: { data: 'AAEC/w==', datafilename: 'a.bin' } },
    });
    expect(ok.status).toBe(200);
  });
});

describe('the "sources section of a job submission" (client)', () => {
  it('is refused as an unknown field before sending', async () => {
    const err = await rejection(h.client().submitJob(WF.simple, { sources: { src: 's3://b/a.mxf' } }));
    expect(err.fieldErrors.sources).toMatch(/^is not a known field/);
    nothingSent();
  });
});

describe('reading what a real service may send', () => {
  let stub: Stub;
  beforeAll(async () => {
    stub = await startStub();
  });
  afterAll(() => stub.close());
  const stubClient = () =>
    createClient({ workflowUrl: stub.url, spaceId: SPACE, apiKey: 'k-123456', accessToken: 't-123456', retries: 0 });

  it('reads next_page_token and channel fields as null or left out (only elapsed_time is declared nullable)', async () => {
    const pages = [
      { workflows: [{ id: WF.simple, name: 'a' }], next_page_token: 'p2' },
      { workflows: [{ id: WF.fails, name: 'b' }], next_page_token: null },
    ];
    stub.handle((_req, res, i) => json(res, 200, pages[i % 2]));
    expect((await stubClient().listAllWorkflows()).map((w) => w.name)).toEqual(['a', 'b']);
    stub.handle((_req, res) => json(res, 200, { workflows: [{ id: WF.simple }] }));
    expect(await stubClient().listAllWorkflows()).toHaveLength(1);

    const nulls = {
      id: 'c1',
      source_id: null,
      expected_properties: null,
      activated_at: null,
      recording: { id: 'r', started_at: '2025-01-01T00:00:00Z', ended_at: null, outputs: [] },
    };
    stub.handle((_req, res) => json(res, 200, nulls));
    expect((await stubClient().getChannel('0f8fad5b-d9cb-469f-a165-70867728950e')).data).toMatchObject(nulls);
    stub.handle((_req, res) => json(res, 200, { id: 'c1', recording: null }));
    expect((await stubClient().getChannel('0f8fad5b-d9cb-469f-a165-70867728950e')).data.recording).toBeNull();
  });

  it("keeps a problem body's detail and trace id when another member is null (instance: null)", async () => {
    const problem = {
      title: 'Bad Request',
      status: 400,
      trace_id: 'trace-42',
      type: null,
      detail: 'max_results must be between 1 and 100',
      instance: null,
      errors: [{ pointer: 'max_results', type: 'invalid_value', detail: null }, null],
    };
    stub.handle((_req, res) => json(res, 400, problem));
    const err = await rejection(stubClient().listWorkflows());
    expect(err.message).toContain('max_results must be between 1 and 100');
    expect(err.traceId).toBe('trace-42');
    expect(err.fieldErrors).toEqual({ max_results: 'invalid_value' });
    const direct = errorFromResponse(400, { title: 'Bad', detail: null, trace_id: null, instance: '/x' }, 'X');
    expect(direct.message).toBe('Bad (HTTP 400 from X)');
    expect(direct.traceId).toBeUndefined();
  });
});

import { request } from 'node:http';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  credentialsFor,
  fixtureDocument,
  fixtureSpace,
  fixtureWorkflow,
  type Simulator,
  spaceIdFor,
  startSimulator,
  workflowIdFor,
} from '../../../lib/simulator';
import { call } from '../../support/sim';

const MAIN = credentialsFor('jobs');
const OTHER = credentialsFor('jobs-other');
const LAPSED = credentialsFor('jobs-lapsed');
const MAIN_ID = spaceIdFor('jobs');

const ALL_TYPES = fixtureWorkflow('All typecodes', {
  job_duration_ms: 8000,
  inputs: {
    variables: [
      { name: 'Title', typecode: 'String' },
      { name: 'Source', typecode: 'Uri' },
      { name: 'Start', typecode: 'TimeCode' },
      { name: 'BurnIn', typecode: 'Boolean' },
      { name: 'Bitrate', typecode: 'Int32' },
      { name: 'Gain', typecode: 'Double' },
      { name: 'Priority', typecode: 'Byte' },
      { name: 'Offset', typecode: 'Int16' },
      { name: 'Frames', typecode: 'UInt32' },
      { name: 'Note', typecode: 'String', default: 'none' },
    ],
  },
});
const KINDS = fixtureWorkflow('Every kind', {
  inputs: {
    media_nicknames: [{ name: 'Programme', identifier: 'programme' }],
    attachments: [{ name: 'Subtitles', identifier: 'subtitles' }],
    labels: [
      {
        name: 'Loudness',
        identifier: 'loudness',
        parameters: [
          {
            name: 'Target',
            typecode: 'Double',
            minimum_value: -31,
            maximum_value: -14,
            increment_value: 0.5,
            default_value: -23,
          },
          { name: 'Channels', typecode: 'Byte', options: { stereo: ['2'], surround: ['6'] } },
          { name: 'Standard', typecode: 'String', default_value: 'EBU R128', options: { tv: ['EBU R128', 'ATSC'] } },
        ],
      },
    ],
  },
});
const QUICK = fixtureWorkflow('Quick', { job_duration_ms: 8000 });
const FAILING = fixtureWorkflow('Failing', { job_duration_ms: 1000, outcome: 'failed' });
const LONG = fixtureWorkflow('Long', { job_duration_ms: 25 * 3_600_000 });
const ARCHIVED = fixtureWorkflow('Archived one', { status: 'archived' });
const IDLE = fixtureWorkflow('Idle one', { status: 'idle' });
const DELETED = fixtureWorkflow('Deleted one', { status: 'deleted' });

let sim: Simulator;
const submitUrl = (workflowId: string, prefix = '/workflow/v1', space = MAIN_ID) =>
  `${sim.workflowUrl}${prefix}/${space}/workflows/${workflowId}/jobs`;
const submit = (workflowId: string, body: unknown = {}, key = MAIN.management) =>
  call('POST', submitUrl(workflowId), key, body);
const poll = (workflowId: string, jobId: string, prefix = '/workflow/v1') =>
  call('GET', `${submitUrl(workflowId, prefix)}/${jobId}`, MAIN.access);
const input = (i: Record<string, unknown>) => ({ usage: { input: i } });

/** A POST whose JSON body goes out with chunked transfer encoding, one write per piece, each after a pause. */
function chunked(url: string, key: string, pieces: string[]): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const req = request(url, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', 'transfer-encoding': 'chunked' },
    });
    req.on('error', reject);
    req.on('response', (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => {
        text += c;
      });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
    });
    const next = (i: number) => {
      if (i === pieces.length) req.end();
      else {
        req.write(pieces[i]);
        setTimeout(() => next(i + 1), 20);
      }
    };
    next(0);
  });
}

beforeAll(async () => {
  sim = await startSimulator({
    manualClock: true,
    startTime: '2025-01-01T00:00:00.000Z',
    fixture: fixtureDocument(
      fixtureSpace('jobs', { workflows: [ALL_TYPES, KINDS, QUICK, FAILING, LONG, ARCHIVED, IDLE, DELETED] }),
      fixtureSpace('jobs-other', { workflows: [fixtureWorkflow('Elsewhere')] }),
      fixtureSpace('jobs-lapsed', { subscription: 'inactive', workflows: [fixtureWorkflow('Lapsed')] }),
    ),
  });
});
afterAll(() => sim.close());
beforeEach(() => sim.reset());

const goodVariables = [
  { name: 'Title', typecode: 'String', value: 'Evening news' },
  { name: 'Source', typecode: 'Uri', value: 's3://media/in/news.mxf' },
  { name: 'Start', typecode: 'TimeCode', value: '10:00:00:00@25' },
  { name: 'BurnIn', typecode: 'Boolean', value: 'true' },
  { name: 'Bitrate', typecode: 'Int32', value: '8000' },
  { name: 'Gain', typecode: 'Double', value: '-1.5' },
  { name: 'Priority', typecode: 'Byte', value: '255' },
  { name: 'Offset', typecode: 'Int16', value: '-2' },
  { name: 'Frames', typecode: 'UInt32', value: '4294967295' },
];
const goodKinds = {
  media_nicknames: [{ identifier: 'programme', files: ['s3://media/in/prog.mxf'] }],
  attachments: [{ identifier: 'subtitles', file: 's3://media/in/prog.srt' }],
  labels: [{ identifier: 'loudness', parameters: [{ name: 'Channels', typecode: 'Byte', value: '2' }] }],
};

describe('submit a job', () => {
  it('200 with a created job for a workflow needing no inputs', async () => {
    const res = await submit(QUICK.id, { job_name: 'Nightly proxy' });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      name: 'Nightly proxy',
      workflow_id: QUICK.id,
      workflow_name: 'Quick',
      progress: 0,
      state: 'created',
      workflow_version: '1',
      created_at: '2025-01-01T00:00:00.000Z',
      updated_at: '2025-01-01T00:00:00.000Z',
      elapsed_time: null,
    });
    expect(sim.counts().jobs).toBe(1);
  });

  it('generates a job name when job_name is omitted', async () => {
    const res = await submit(QUICK.id, {});
    expect(res.body.name).toMatch(/^Quick /);
  });

  it('accepts every variable typecode with valid values, and defaults fill the rest', async () => {
    const res = await submit(ALL_TYPES.id, input({ variables: goodVariables }));
    expect(res.status).toBe(200);
  });

  it('accepts media nicknames, attachments and labels (parameter defaults fill the rest)', async () => {
    const res = await submit(KINDS.id, input(goodKinds));
    expect(res.status).toBe(200);
  });

  it('works on the /workflow/api/v1 prefix too', async () => {
    expect((await call('POST', submitUrl(QUICK.id, '/workflow/api/v1'), MAIN.admin, {})).status).toBe(200);
  });

  it('needs management scope: admin and management pass, access gets 401 {error_message}', async () => {
    expect((await submit(QUICK.id, {}, MAIN.admin)).status).toBe(200);
    expect((await submit(QUICK.id, {}, MAIN.management)).status).toBe(200);
    const denied = await submit(QUICK.id, {}, MAIN.access);
    expect(denied.status).toBe(401);
    expect(denied.body).toEqual({ error_message: expect.stringContaining('workflow:workflow-management') });
    expect(sim.counts().jobs).toBe(2);
  });

  it('401 {error_message} without a key, with an unknown key and with a foreign key', async () => {
    for (const key of [undefined, 'bogus', OTHER.admin]) {
      const res = await call('POST', submitUrl(QUICK.id), key, {});
      expect(res.status).toBe(401);
      expect(res.body).toEqual({ error_message: expect.any(String) });
    }
  });

  it('403 {error_message} for an inactive subscription', async () => {
    const res = await call(
      'POST',
      submitUrl(workflowIdFor('Lapsed'), '/workflow/v1', spaceIdFor('jobs-lapsed')),
      LAPSED.admin,
      {},
    );
    expect(res.status).toBe(403);
    expect(res.body).toEqual({ error_message: expect.stringContaining('inactive') });
  });

  it('400 {code,message} when space_id is not a UUID', async () => {
    const res = await call('POST', submitUrl(QUICK.id, '/workflow/v1', 'space-1'), MAIN.admin, {});
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ code: 400, message: expect.stringContaining('space_id') });
  });

  it('404 {error_message} for an unknown space', async () => {
    const res = await call(
      'POST',
      submitUrl(QUICK.id, '/workflow/v1', '00000000-0000-4000-8000-000000000000'),
      MAIN.admin,
      {},
    );
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ error_message: expect.any(String) });
  });

  it('400 {code,message} when workflow_id is not a GUID', async () => {
    const res = await submit('12345', {});
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ code: 400, message: expect.stringContaining('workflow_id must be a GUID') });
  });

  it('404 {error_message} for an unknown workflow, also one of another space', async () => {
    for (const id of ['00000000-0000-4000-8000-000000000000', workflowIdFor('Elsewhere')]) {
      const res = await submit(id, {});
      expect(res.status).toBe(404);
      expect(res.body).toEqual({ error_message: expect.stringContaining('not found') });
    }
  });

  it('400 {code,message} for malformed JSON and for an empty body', async () => {
    const bad = await call('POST', submitUrl(QUICK.id), MAIN.admin, undefined, '{"job_name": ');
    expect(bad.status).toBe(400);
    expect(bad.body).toEqual({ code: 400, message: expect.stringContaining('not valid JSON') });
    const empty = await call('POST', submitUrl(QUICK.id), MAIN.admin);
    expect(empty.status).toBe(400);
    expect(empty.body.code).toBe(400);
    expect(sim.counts().jobs).toBe(0);
  });

  it('reads a body sent in several chunks, and answers an empty chunked body as an empty one', async () => {
    const body = JSON.stringify({ job_name: 'In pieces', usage: { input: { variables: goodVariables } } });
    const pieces = [body.slice(0, 10), body.slice(10, 40), body.slice(40)];
    const sent = await chunked(submitUrl(ALL_TYPES.id), MAIN.admin, pieces);
    expect(sent.status).toBe(200);
    expect(JSON.parse(sent.text).name).toBe('In pieces');
    const empty = await chunked(submitUrl(QUICK.id), MAIN.admin, []);
    expect(empty.status).toBe(400);
    expect(JSON.parse(empty.text)).toEqual({ code: 400, message: expect.stringContaining('empty') });
    expect(sim.counts().jobs).toBe(1);
  });

  it.each([
    [ARCHIVED, 'archived'],
    [IDLE, 'idle'],
    [DELETED, 'deleted'],
  ])('422 for a workflow that is not active (%#)', async (wf, status) => {
    const res = await submit(wf.id, {});
    expect(res.status).toBe(422);
    expect(res.body.errors.workflow_id).toContain(status);
    expect(sim.counts().jobs).toBe(0);
  });

  it('422 when the body does not match the request schema (strict)', async () => {
    const extra = await submit(QUICK.id, { job_name: 'x', priority: 5 });
    expect(extra.status).toBe(422);
    expect(extra.body.errors).toEqual({ priority: expect.any(String) });
    const missingTypecode = await submit(ALL_TYPES.id, input({ variables: [{ name: 'Title', value: 'x' }] }));
    expect(missingTypecode.status).toBe(422);
    expect(missingTypecode.body.errors).toHaveProperty(['usage.input.variables.0.typecode']);
    const notObject = await submit(QUICK.id, [1, 2]);
    expect(notObject.status).toBe(422);
    expect(notObject.body.errors).toHaveProperty('body');
  });

  it('422 naming every missing required variable (and not the defaulted one)', async () => {
    const res = await submit(ALL_TYPES.id, {});
    expect(res.status).toBe(422);
    expect(Object.keys(res.body.errors).sort()).toEqual(
      ['Bitrate', 'BurnIn', 'Frames', 'Gain', 'Offset', 'Priority', 'Source', 'Start', 'Title']
        .map((n) => `variables.${n}`)
        .sort(),
    );
  });

  it('drop-frame timecode HH:MM:SS;FF@29.97 is accepted; ";" at another rate gets the form wanted', async () => {
    const withStart = (value: string) => goodVariables.map((v) => (v.name === 'Start' ? { ...v, value } : v));
    const ok = await submit(ALL_TYPES.id, input({ variables: withStart('10:00:00;00@29.97') }));
    expect(ok.status).toBe(200);
    const bad = await submit(ALL_TYPES.id, input({ variables: withStart('10:00:00;00@25') }));
    expect(bad.status).toBe(422);
    expect(bad.body.errors['variables.Start']).toMatch(/drop-frame, which only 29\.97 has; write 10:00:00:00@25/);
  });

  it('422 for an unknown variable name', async () => {
    const res = await submit(
      ALL_TYPES.id,
      input({ variables: [...goodVariables, { name: 'Colour', typecode: 'String', value: 'red' }] }),
    );
    expect(res.status).toBe(422);
    expect(res.body.errors['variables.Colour']).toMatch(/not a variable/);
  });

  it('422 with the typecode rule for each invalid value', async () => {
    const bad: Record<string, string> = {
      Source: 'not a uri',
      Start: '10:00:00:25@25',
      BurnIn: 'yes',
      Bitrate: '2147483648',
      Gain: 'loud',
      Priority: '256',
      Offset: '40000',
      Frames: '-1',
    };
    const variables = goodVariables.map((v) => (v.name in bad ? { ...v, value: bad[v.name] } : v));
    const res = await submit(ALL_TYPES.id, input({ variables }));
    expect(res.status).toBe(422);
    expect(Object.keys(res.body.errors).sort()).toEqual(
      Object.keys(bad)
        .map((n) => `variables.${n}`)
        .sort(),
    );
    expect(res.body.errors['variables.BurnIn']).toMatch(/Boolean/);
    expect(res.body.errors['variables.Priority']).toMatch(/Byte/);
    expect(res.body.errors['variables.Start']).toMatch(/TimeCode/);
    expect(res.body.errors['variables.Source']).toMatch(/Uri/);
    expect(res.body.errors['variables.Gain']).toMatch(/Double/);
  });

  it('422 for missing nicknames, attachments and labels, and for unknown ones', async () => {
    const missing = await submit(KINDS.id, {});
    expect(missing.status).toBe(422);
    expect(Object.keys(missing.body.errors).sort()).toEqual(
      ['attachments.subtitles', 'labels.loudness', 'media_nicknames.programme'].sort(),
    );
    const unknown = await submit(
      KINDS.id,
      input({
        ...goodKinds,
        media_nicknames: [...goodKinds.media_nicknames, { identifier: 'lut', files: ['a'] }],
        attachments: [...goodKinds.attachments, { identifier: 'cue', file: 'b' }],
        labels: [...goodKinds.labels, { identifier: 'rights' }],
      }),
    );
    expect(Object.keys(unknown.body.errors).sort()).toEqual([
      'attachments.cue',
      'labels.rights',
      'media_nicknames.lut',
    ]);
  });

  it('422 when a nickname has neither files nor data, or an attachment has no file', async () => {
    const res = await submit(
      KINDS.id,
      input({
        ...goodKinds,
        media_nicknames: [{ identifier: 'programme' }],
        attachments: [{ identifier: 'subtitles' }],
      }),
    );
    expect(res.status).toBe(422);
    expect(res.body.errors).toEqual({
      'media_nicknames.programme': expect.stringContaining('files'),
      'attachments.subtitles': expect.stringContaining('file'),
    });
    const withData = await submit(
      KINDS.id,
      input({ ...goodKinds, media_nicknames: [{ identifier: 'programme', data: 'aGVsbG8=', datafilename: 'a.txt' }] }),
    );
    expect(withData.status).toBe(200);
  });

  it('422 for label parameters: minimum, maximum, increment, options, unknown and missing', async () => {
    const label = (parameters: unknown[]) => input({ ...goodKinds, labels: [{ identifier: 'loudness', parameters }] });
    const key = (n: string) => `labels.loudness.parameters.${n}`;
    const channels = { name: 'Channels', typecode: 'Byte', value: '2' };
    const cases: [unknown[], string, RegExp][] = [
      [[channels, { name: 'Target', typecode: 'Double', value: '-32' }], key('Target'), /at least -31/],
      [[channels, { name: 'Target', typecode: 'Double', value: '-10' }], key('Target'), /at most -14/],
      [[channels, { name: 'Target', typecode: 'Double', value: '-23.25' }], key('Target'), /increment/],
      [[{ name: 'Channels', typecode: 'Byte', value: '4' }], key('Channels'), /options/],
      [[channels, { name: 'Standard', typecode: 'String', value: 'Other' }], key('Standard'), /options/],
      [[channels, { name: 'Speed', typecode: 'Int32', value: '1' }], key('Speed'), /not a parameter/],
      [[], key('Channels'), /required/],
    ];
    for (const [parameters, field, message] of cases) {
      const res = await submit(KINDS.id, label(parameters));
      expect(res.status, field).toBe(422);
      expect(Object.keys(res.body.errors)).toEqual([field]);
      expect(res.body.errors[field]).toMatch(message);
    }
    const ok = await submit(
      KINDS.id,
      label([
        { name: 'Channels', typecode: 'Byte', value: '6' },
        { name: 'Target', typecode: 'Double', value: '-16.5' },
      ]),
    );
    expect(ok.status).toBe(200);
    expect(sim.counts().jobs).toBe(1);
  });
});

describe('job lifecycle (extension GET for polling)', () => {
  it('moves created -> in-process (progress rising) -> succeeded, elapsed_time only when terminal', async () => {
    const created = (await submit(QUICK.id, {})).body;
    const check = async () => (await poll(QUICK.id, created.id)).body;

    let job = await check();
    expect(job).toMatchObject({ state: 'created', progress: 0, elapsed_time: null });

    sim.advance(500);
    job = await check();
    expect(job).toMatchObject({ state: 'in-process', progress: 0, elapsed_time: null });

    sim.advance(4000);
    job = await check();
    expect(job).toMatchObject({ state: 'in-process', progress: 50, elapsed_time: null });
    expect(job.updated_at).toBe(new Date(sim.now()).toISOString());

    sim.advance(3999);
    expect((await check()).progress).toBe(99);

    sim.advance(1);
    job = await check();
    expect(job).toMatchObject({ state: 'succeeded', progress: 100, elapsed_time: '0:00:08.5' });
    expect(Date.parse(job.updated_at) - Date.parse(job.created_at)).toBe(8500);

    sim.advance(60_000);
    const later = await check();
    expect(later.updated_at).toBe(job.updated_at);
    expect(later.elapsed_time).toBe('0:00:08.5');
  });

  it("ends in the workflow's outcome (failed) with elapsed_time", async () => {
    const created = (await submit(FAILING.id, {})).body;
    sim.advance(1500);
    const job = (await poll(FAILING.id, created.id)).body;
    expect(job).toMatchObject({ state: 'failed', elapsed_time: '0:00:01.5' });
  });

  it('formats elapsed times of a day or more as d.hh:mm:ss', async () => {
    const created = (await submit(LONG.id, {})).body;
    sim.advance(25 * 3_600_000 + 500);
    expect((await poll(LONG.id, created.id, '/workflow/api/v1')).body).toMatchObject({
      state: 'succeeded',
      elapsed_time: '1.01:00:00.5',
    });
  });

  it('400 for a job_id that is not a GUID, 404 for an unknown job or one of another workflow', async () => {
    const created = (await submit(QUICK.id, {})).body;
    const bad = await poll(QUICK.id, 'job-1');
    expect(bad.status).toBe(400);
    expect(bad.body).toEqual({ code: 400, message: expect.stringContaining('job_id') });
    const unknown = await poll(QUICK.id, '00000000-0000-4000-8000-000000000000');
    expect(unknown.status).toBe(404);
    expect(unknown.body).toEqual({ error_message: expect.any(String) });
    const wrongWorkflow = await poll(FAILING.id, created.id);
    expect(wrongWorkflow.status).toBe(404);
  });

  it('lets an access key poll but not submit', async () => {
    const created = (await submit(QUICK.id, {}, MAIN.admin)).body;
    expect((await poll(QUICK.id, created.id)).status).toBe(200);
  });
});

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

/**
 * The simulator held to the words of the service description, over real HTTP.
 * Each test quotes the words it checks.
 */

// biome-ignore lint/suspicious/noExplicitAny: response bodies are asserted field by field
type Body = any;

const C = credentialsFor('fid');
const SPACE = spaceIdFor('fid');
const WF = workflowIdFor('fid-inputs');
const HOUR = 3_600_000;

let sim: Simulator;
const live = () => `${sim.liveCaptureUrl}/livecapture/v1/${SPACE}`;
const jobsUrl = () => `${sim.workflowUrl}/workflow/v1/${SPACE}/workflows/${WF}/jobs`;

async function send(
  method: string,
  url: string,
  token: string,
  body?: string | Uint8Array<ArrayBuffer>,
  contentType?: string,
): Promise<{ status: number; body: Body; text: string }> {
  const headers: Record<string, string> = { authorization: `Bearer ${token}` };
  if (contentType !== undefined) headers['content-type'] = contentType;
  // a Uint8Array body makes fetch send no Content-Type of its own
  const r = await fetch(url, { method, headers, body });
  const text = await r.text();
  return { status: r.status, body: text ? JSON.parse(text) : undefined, text };
}
const json = (method: string, url: string, token: string, body: unknown) =>
  send(method, url, token, JSON.stringify(body), 'application/json');
const createChannel = (body: unknown) => json('POST', `${live()}/channels`, C.token, body);
const getChannel = async (id: string) => (await send('GET', `${live()}/channels/${id}`, C.token)).body;
const submit = (input: unknown) => json('POST', jobsUrl(), C.management, { usage: { input } });

beforeAll(async () => {
  sim = await startSimulator({
    manualClock: true,
    startTime: '2025-05-01T00:00:00.000Z',
    fixture: fixtureDocument(
      fixtureSpace('fid', {
        workflows: [
          fixtureWorkflow('fid-inputs', {
            inputs: {
              variables: [{ name: 'Source', typecode: 'Uri' }],
              media_nicknames: [{ name: 'LUT', identifier: 'lut' }],
            },
          }),
        ],
      }),
    ),
  });
});
afterAll(() => sim.close());
beforeEach(() => sim.reset());

const LUT = { identifier: 'lut', files: ['s3://b/lut.cube'] };
const sourceVar = (value: string) => [{ name: 'Source', typecode: 'Uri', value }];

describe('recording_duration: "hours of available recorded window when continuous_recording is true"', () => {
  it('a continuous recording keeps going and keeps only its last recording_duration hours: older outputs fall away', async () => {
    const id = (await createChannel({ name: 'Rolling', continuous_recording: true, recording_duration: 2 })).body.id;
    sim.advance(2_000 + 3.5 * HOUR);
    let ch = await getChannel(id);
    expect(ch.state).toBe('RECORDING');
    expect(ch.recording_duration).toBe(2);
    expect(ch.recording).not.toHaveProperty('ended_at');
    // hour segments 2..4 reach into the last two hours (1.5 h .. 3.5 h); segment 1 fell away
    const names = (c: Body) => c.recording.outputs.map((o: Body) => o.file_name.split('_').at(-1));
    expect(names(ch)).toEqual(['00002.mxf', '00003.mxf', '00004.mxf']);

    sim.advance(10 * HOUR);
    ch = await getChannel(id);
    expect(ch.state).toBe('RECORDING');
    expect(names(ch)).toEqual(['00012.mxf', '00013.mxf', '00014.mxf']);
    for (const o of ch.recording.outputs)
      expect(o.location_url).toBe(`s3://media-spaces-sim/${SPACE}/${id}/${ch.recording.id}/${o.file_name}`);

    // the stop extension ends it; the window at the stop stays
    const stopped = await send('POST', `${live()}/channels/${id}/stop`, C.token);
    expect(stopped.body.state).toBe('FINISHING_RECORDING');
    expect(stopped.body.recording.ended_at).toBe('2025-05-01T13:30:02.000Z');
    sim.advance(24 * HOUR);
    expect(names(await getChannel(id))).toEqual(['00012.mxf', '00013.mxf', '00014.mxf']);
  });

  it('recording_duration does not end a recording that is not continuous: it records until stopped, whole', async () => {
    const id = (await createChannel({ name: 'Plain', continuous_recording: false, recording_duration: 1 })).body.id;
    sim.advance(2_000 + 5 * HOUR);
    const ch = await getChannel(id);
    expect(ch).toMatchObject({ state: 'RECORDING', recording_duration: 1 });
    expect(ch.recording.outputs.map((o: Body) => o.format)).toEqual(['mxf', 'mp4']);
  });
});

describe('Content-Type: "bodies carry Content-Type: application/json"', () => {
  const body = JSON.stringify({ usage: { input: { variables: sourceVar('s3://b/a.mxf'), media_nicknames: [LUT] } } });

  it('415 {error_message} for a body declared as something else, or not declared at all; nothing is created', async () => {
    for (const type of ['text/plain', 'application/x-www-form-urlencoded', 'application/json; charset=iso-8859-1']) {
      const res = await send('POST', jobsUrl(), C.management, body, type);
      expect(res.status, type).toBe(415);
      expect(res.body).toEqual({ error_message: expect.stringContaining('JSON') });
    }
    const undeclared = await send('POST', jobsUrl(), C.management, new TextEncoder().encode(body));
    expect(undeclared.status).toBe(415);
    expect(undeclared.body.error_message).toContain('no Content-Type');
    const channel = await send('POST', `${live()}/channels`, C.token, '{"name":"x"}', 'text/plain');
    expect(channel.status).toBe(415);
    expect(channel.body).toEqual({ error_message: expect.stringContaining('application/json') });
    expect(sim.counts()).toMatchObject({ jobs: 0, channels: 0 });
  });

  it('takes application/json with parameters and the +json structured syntax suffix', async () => {
    for (const type of ['application/json', 'Application/JSON; charset="UTF-8"', 'application/vnd.media+json']) {
      expect((await send('POST', jobsUrl(), C.management, body, type)).status, type).toBe(200);
    }
  });
});

describe('Uri: "path to a file, a fully qualified URI"', () => {
  it('accepts absolute paths (POSIX, Windows drive) and absolute URIs; 422 names the variable for the rest', async () => {
    for (const value of ['/media/in/a.mxf', 'C:\\media\\a.mxf', 's3://bucket/a.mxf', 'file:///media/a.mxf']) {
      expect((await submit({ variables: sourceVar(value), media_nicknames: [LUT] })).status, value).toBe(200);
    }
    for (const value of ['s3:', 's3://', 'relative/a.mxf', 'a.mxf', '']) {
      const res = await submit({ variables: sourceVar(value), media_nicknames: [LUT] });
      expect(res.status, value).toBe(422);
      expect(res.body.errors['variables.Source']).toMatch(/^must be a Uri/);
    }
  });
});

describe('base64: "data (base64 text of a file\'s content)"', () => {
  it('422 for text that is not RFC 4648 base64 (alphabet, length a multiple of 4, padding)', async () => {
    for (const data of ['a', 'ab=', 'abcde', 'ab==cd==', 'a-b_', 'QQ=']) {
      const res = await submit({
        variables: sourceVar('s3://b/a.mxf'),
        media_nicknames: [{ identifier: 'lut', data }],
      });
      expect(res.status, data).toBe(422);
      expect(res.body.errors['usage.input.media_nicknames.0.data']).toMatch(/^must be base64 text/);
    }
    const good = await submit({
      variables: sourceVar('s3://b/a.mxf'),
      media_nicknames: [{ identifier: 'lut', data: 'AAEC/w==', datafilename: 'lut.cube' }],
    });
    expect(good.status).toBe(200);
  });
});

describe('nulls: only elapsed_time is declared "nullable"', () => {
  it('leaves out what has no value: next_page_token of the last page, and channel fields not set yet', async () => {
    const list = await send('GET', `${sim.workflowUrl}/workflow/v1/${SPACE}/workflows`, C.access);
    expect(list.status).toBe(200);
    expect(list.body).not.toHaveProperty('next_page_token');

    const created = await createChannel({ name: 'No nulls' });
    expect(created.text).not.toMatch(/:\s*null/);
    for (const field of ['source_id', 'expected_properties', 'activated_at', 'recording']) {
      expect(created.body).not.toHaveProperty(field);
    }
    sim.advance(2_000);
    const recording = await send('GET', `${live()}/channels/${created.body.id}`, C.token);
    expect(recording.text).not.toMatch(/:\s*null/);
    expect(recording.body.recording).not.toHaveProperty('ended_at');
  });
});

describe('the "sources section of a job submission" the description names without showing', () => {
  it('is not a field of the submit-job request: nicknames go in usage.input.media_nicknames by identifier', async () => {
    const res = await json('POST', jobsUrl(), C.management, {
      usage: { input: { variables: sourceVar('s3://b/a.mxf'), media_nicknames: [LUT] } },
      sources: [{ identifier: 'lut', files: ['s3://b/lut.cube'] }],
    });
    expect(res.status).toBe(422);
    expect(res.body.errors).toEqual({ sources: 'is not a known field' });
  });
});

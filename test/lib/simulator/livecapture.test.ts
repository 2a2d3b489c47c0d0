import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  credentialsFor,
  fixtureDocument,
  fixtureSpace,
  type Simulator,
  spaceIdFor,
  startSimulator,
} from '../../../lib/simulator';
import { type Body, call } from '../../support/sim';

const LIVE = credentialsFor('live');
const OTHER = credentialsFor('live-other');
const LAPSED = credentialsFor('live-lapsed');
const LIVE_ID = spaceIdFor('live');
const OTHER_ID = spaceIdFor('live-other');
const HOUR = 3_600_000;

let sim: Simulator;
const base = (space = LIVE_ID) => `${sim.liveCaptureUrl}/livecapture/v1/${space}`;
const create = (body: unknown, token = LIVE.token, space = LIVE_ID) =>
  call('POST', `${base(space)}/channels`, token, body);
const getChannel = (id: string) => call('GET', `${base()}/channels/${id}`, LIVE.token);
const stop = (id: string) => call('POST', `${base()}/channels/${id}/stop`, LIVE.token);
const deleteEvent = (id: string, token = LIVE.token, space = LIVE_ID) =>
  call('DELETE', `${base(space)}/events/${id}`, token);
const adminEvents = async (space = LIVE_ID) =>
  (await call('GET', `${sim.adminUrl}/spaces/${space}/events`)).body.events;

beforeAll(async () => {
  sim = await startSimulator({
    manualClock: true,
    startTime: '2025-03-01T12:00:00.000Z',
    fixture: fixtureDocument(
      fixtureSpace('live'),
      fixtureSpace('live-other'),
      fixtureSpace('live-lapsed', { subscription: 'inactive' }),
    ),
  });
});
afterAll(() => sim.close());
beforeEach(() => sim.reset());

const request = {
  name: 'Studio 1 evening news',
  description: 'Main gallery feed',
  source_id: '0f8fad5b-d9cb-469f-a165-70867728950e',
  expected_properties: '{"video":{"width":1920,"height":1080}}',
  continuous_recording: false,
  recording_duration: 2,
  region: 'eu-west-1',
  tags: ['news', 'studio-1'],
};

describe('create a recording channel', () => {
  it('201 with every field of the Channel body, state PENDING', async () => {
    const res = await create(request);
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      name: request.name,
      description: request.description,
      source_id: request.source_id,
      continuous_recording: false,
      expected_properties: request.expected_properties,
      pinned: false,
      auto_shutdown: { enabled: false, no_recording_timeout: 0, no_stream_timeout: 0 },
      recording_duration: 2,
      recording_settings: { engine_version: expect.any(String), settings: expect.any(String) },
      recording_trigger: { recording_trigger: true },
      region: 'eu-west-1',
      errors: [],
      tags: ['news', 'studio-1'],
      created_at: '2025-03-01T12:00:00.000Z',
      updated_at: '2025-03-01T12:00:00.000Z',
      state: 'PENDING',
    });
    expect(sim.counts().channels).toBe(1);
  });

  it('needs only a name; what the request leaves out and has no default is left out of the channel', async () => {
    const res = await create({ name: 'Minimal' });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ continuous_recording: false, tags: [] });
    for (const field of ['source_id', 'expected_properties', 'recording_duration', 'activated_at', 'recording']) {
      expect(res.body).not.toHaveProperty(field);
    }
    // a continuous recording without recording_duration keeps a 1 hour window
    const continuous = await create({ name: 'Rolling', continuous_recording: true });
    expect(continuous.body).toMatchObject({ continuous_recording: true, recording_duration: 1 });
  });

  it('401 {error_message} without a token, with an API key, with an unknown or foreign token', async () => {
    for (const token of [undefined, LIVE.admin, 'bogus', OTHER.token]) {
      const res = await call('POST', `${base()}/channels`, token, request);
      expect(res.status).toBe(401);
      expect(res.body).toEqual({ error_message: expect.any(String) });
    }
    expect(sim.counts().channels).toBe(0);
  });

  it('400 {errors} for a space_id that is not a UUID, 404 {error_message} for an unknown space', async () => {
    const bad = await create(request, LIVE.token, 'studio');
    expect(bad.status).toBe(400);
    expect(bad.body).toEqual({ errors: { space_id: expect.any(String) } });
    const unknown = await create(request, LIVE.token, '00000000-0000-4000-8000-000000000000');
    expect(unknown.status).toBe(404);
    expect(unknown.body).toEqual({ error_message: expect.any(String) });
  });

  it('403 {error_message} for an inactive subscription', async () => {
    const res = await create(request, LAPSED.token, spaceIdFor('live-lapsed'));
    expect(res.status).toBe(403);
    expect(res.body).toEqual({ error_message: expect.stringContaining('inactive') });
  });

  it('400 {errors:{body}} for malformed JSON or no body', async () => {
    const bad = await call('POST', `${base()}/channels`, LIVE.token, undefined, '{"name":');
    expect(bad.status).toBe(400);
    expect(bad.body).toEqual({ errors: { body: expect.stringContaining('not valid JSON') } });
    const empty = await call('POST', `${base()}/channels`, LIVE.token);
    expect(empty.status).toBe(400);
    expect(empty.body.errors.body).toMatch(/empty/);
  });

  it('422 {errors} naming each invalid field, strictly', async () => {
    const cases: [unknown, string][] = [
      [{ description: 'no name' }, 'name'],
      [{ name: '' }, 'name'],
      [{ name: 'x', source_id: 'not-a-uuid' }, 'source_id'],
      [{ name: 'x', expected_properties: '{not json' }, 'expected_properties'],
      [{ name: 'x', recording_duration: 1.5 }, 'recording_duration'],
      [{ name: 'x', continuous_recording: 'yes' }, 'continuous_recording'],
      [{ name: 'x', tags: 'news' }, 'tags'],
      [{ name: 'x', colour: 'red' }, 'colour'],
      [['x'], 'body'],
    ];
    for (const [body, field] of cases) {
      const res = await create(body);
      expect(res.status, field).toBe(422);
      expect(Object.keys(res.body.errors), field).toContain(field);
    }
    expect(sim.counts().channels).toBe(0);
  });
});

describe('channel lifecycle (GET and stop extensions)', () => {
  it('PENDING -> ACTIVE -> RECORDING -> (stop) FINISHING_RECORDING -> INACTIVE with outputs and events', async () => {
    const id = (await create(request)).body.id;
    const state = async () => (await getChannel(id)).body;

    sim.advance(999);
    expect((await state()).state).toBe('PENDING');
    sim.advance(1);
    let ch = await state();
    expect(ch).toMatchObject({ state: 'ACTIVE', activated_at: '2025-03-01T12:00:01.000Z' });
    expect(ch).not.toHaveProperty('recording');
    expect(await adminEvents()).toEqual([]);

    sim.advance(1000);
    ch = await state();
    expect(ch.state).toBe('RECORDING');
    expect(ch.recording).toEqual({
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      channel_id: id,
      started_at: '2025-03-01T12:00:02.000Z',
      outputs: [
        { file_name: expect.stringMatching(/\.mxf$/), location_url: expect.stringContaining(`/${id}/`), format: 'mxf' },
        {
          file_name: expect.stringMatching(/_proxy\.mp4$/),
          location_url: expect.stringContaining(`/${id}/`),
          format: 'mp4',
        },
      ],
    });
    const events = await adminEvents();
    expect(events.map((e: Body) => e.kind).sort()).toEqual(['marker', 'recording_started']);
    for (const e of events) expect(e).toMatchObject({ channel_id: id, recording_id: ch.recording.id });
    expect(sim.counts()).toEqual({ jobs: 0, channels: 1, events: 2 });

    // recording_duration (2) does not end a recording that is not continuous; the stop extension does
    sim.advance(2 * HOUR);
    expect((await state()).state).toBe('RECORDING');
    expect((await stop(id)).status).toBe(200);
    ch = await state();
    expect(ch.state).toBe('FINISHING_RECORDING');
    expect(ch.recording.ended_at).toBe('2025-03-01T14:00:02.000Z');
    expect(ch.recording.outputs).toHaveLength(2);

    sim.advance(2000);
    ch = await state();
    expect(ch.state).toBe('INACTIVE');
    expect(ch.updated_at).toBe('2025-03-01T14:00:04.000Z');
    const rec = ch.recording.id;
    expect(ch.recording.outputs).toEqual([
      {
        file_name: `${rec}.mxf`,
        location_url: `s3://media-spaces-sim/${LIVE_ID}/${id}/${rec}.mxf`,
        format: 'mxf',
      },
      {
        file_name: `${rec}_proxy.mp4`,
        location_url: `s3://media-spaces-sim/${LIVE_ID}/${id}/${rec}_proxy.mp4`,
        format: 'mp4',
      },
    ]);
  });

  it('stop ends a recording now; stopping again answers the same state; stopping before recording is 409', async () => {
    const id = (await create({ name: 'Stoppable', recording_duration: 8 })).body.id;
    const early = await stop(id);
    expect(early.status).toBe(409);
    expect(early.body).toEqual({ error_message: expect.stringContaining('PENDING') });

    sim.advance(2000 + 60_000);
    const stopped = await stop(id);
    expect(stopped.status).toBe(200);
    expect(stopped.body.state).toBe('FINISHING_RECORDING');
    expect(stopped.body.recording.ended_at).toBe('2025-03-01T12:01:02.000Z');

    sim.advance(2000);
    const again = await stop(id);
    expect(again.status).toBe(200);
    expect(again.body.state).toBe('INACTIVE');
    expect(again.body.recording.ended_at).toBe('2025-03-01T12:01:02.000Z');
    expect(again.body.recording.outputs).toHaveLength(2);
  });

  it('a stop sent again with its Idempotency-Key gets the first answer, its 409 too, and is logged as a replay', async () => {
    const keyed = (id: string, key: string) =>
      call('POST', `${base()}/channels/${id}/stop`, { key: LIVE.token, headers: { 'idempotency-key': key } });
    const id = (await create({ name: 'Keyed stop' })).body.id;
    const other = (await create({ name: 'Another' })).body.id;
    expect((await keyed(id, 'slot:stop')).status).toBe(409);
    sim.advance(2000);
    // the key keeps its 409: a stop once the channel records needs a new key
    expect((await keyed(id, 'slot:stop')).status).toBe(409);
    const first = await keyed(id, 'slot:stop:2');
    expect(first.status).toBe(200);
    expect(first.body.state).toBe('FINISHING_RECORDING');

    sim.advance(5000);
    const again = await keyed(id, 'slot:stop:2');
    expect(again.status).toBe(200);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.body).toEqual(first.body);
    expect((await keyed(other, 'slot:stop:2')).status).toBe(422);
    const log = sim.requests().filter((r) => r.route === 'stop_channel' && r.path.includes(id));
    expect(log.map((r) => [r.idempotency_key, r.status, r.replayed === true])).toEqual([
      ['slot:stop', 409, false],
      ['slot:stop', 409, true],
      ['slot:stop:2', 200, false],
      ['slot:stop:2', 200, true],
    ]);
  });

  it('400 {errors} for a channel id that is not a UUID, 404 {error_message} for an unknown one', async () => {
    const bad = await getChannel('abc');
    expect(bad.status).toBe(400);
    expect(bad.body).toEqual({ errors: { channel_id: expect.any(String) } });
    const unknown = await getChannel('00000000-0000-4000-8000-000000000000');
    expect(unknown.status).toBe(404);
    expect(unknown.body).toEqual({ error_message: expect.any(String) });
    expect((await stop('00000000-0000-4000-8000-000000000000')).status).toBe(404);
  });
});

describe('delete an event', () => {
  async function recordingEvents(): Promise<Body[]> {
    await create({ name: 'With events' });
    sim.advance(2000);
    return adminEvents();
  }

  it('204 with an empty body, then 404 {error_message}', async () => {
    const [event] = await recordingEvents();
    const first = await deleteEvent(event.id);
    expect(first.status).toBe(204);
    expect(first.text).toBe('');
    expect(sim.counts().events).toBe(1);
    const second = await deleteEvent(event.id);
    expect(second.status).toBe(404);
    expect(second.body).toEqual({ error_message: expect.stringContaining(event.id) });
  });

  it('404 for an unknown id and for an event of another space', async () => {
    const [event] = await recordingEvents();
    expect((await deleteEvent('no-such-event')).status).toBe(404);
    expect((await deleteEvent(event.id, OTHER.token, OTHER_ID)).status).toBe(404);
    expect(sim.counts().events).toBe(2);
  });

  it('does not know an event before its recording has started', async () => {
    await create({ name: 'Later' });
    expect(await adminEvents()).toEqual([]);
    expect(sim.counts().events).toBe(0);
  });

  it.each([
    ['empty', ''],
    ['129 characters', 'a'.repeat(129)],
    ['a space', 'a%20b'],
    ['a slash', 'a%2Fb'],
    ['bad percent-encoding', 'a%zz'],
    ['a non-ASCII letter', '%C3%A9v'],
  ])('400 {errors:{event_id}} for an id with %s', async (_what, id) => {
    const res = await deleteEvent(id);
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ errors: { event_id: expect.any(String) } });
  });

  it('accepts the full allowed alphabet up to 128 characters (then 404 as unknown)', async () => {
    expect((await deleteEvent(`${'a'.repeat(120)}AZ09._~-`)).status).toBe(404);
  });

  it('401, 403 and 404 for credentials and spaces, in {error_message}', async () => {
    const noToken = await call('DELETE', `${base()}/events/abc`);
    expect(noToken).toMatchObject({ status: 401, body: { error_message: expect.any(String) } });
    const foreign = await deleteEvent('abc', OTHER.token);
    expect(foreign.status).toBe(401);
    const lapsed = await deleteEvent('abc', LAPSED.token, spaceIdFor('live-lapsed'));
    expect(lapsed).toMatchObject({ status: 403, body: { error_message: expect.any(String) } });
  });
});

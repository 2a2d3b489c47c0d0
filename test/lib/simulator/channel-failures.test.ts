import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  credentialsFor,
  fixtureDocument,
  fixtureSpace,
  type Simulator,
  spaceIdFor,
  startSimulator,
} from '../../../lib/simulator';
import { call } from '../../support/sim';

const LIVE = credentialsFor('fail');
const SPACE = spaceIdFor('fail');
const START = Date.parse('2025-03-01T12:00:00.000Z');

let sim: Simulator;
const base = () => `${sim.liveCaptureUrl}/livecapture/v1/${SPACE}/channels`;
const create = async (name = 'Studio 1') => {
  const res = await call('POST', base(), LIVE.token, { name });
  expect(res.status).toBe(201);
  return res.body.id as string;
};
const read = async (id: string) => (await call('GET', `${base()}/${id}`, LIVE.token)).body;
const stop = (id: string) => call('POST', `${base()}/${id}/stop`, LIVE.token);
const admin = (method: string, path: string, body?: unknown) => call(method, `${sim.adminUrl}${path}`, { body });
const arm = async (spec: Record<string, unknown>) => {
  const res = await admin('POST', '/channel-failures', spec);
  expect(res.status).toBe(201);
  return res.body;
};

beforeAll(async () => {
  sim = await startSimulator({ manualClock: true, startTime: START, fixture: fixtureDocument(fixtureSpace('fail')) });
});
afterAll(() => sim.close());
beforeEach(() => sim.reset());

describe('a failure of one channel, by id', () => {
  it('with after_ms 0 sends a RECORDING channel to ERROR at once: ended_at set, errors say why, stays ERROR', async () => {
    const id = await create();
    sim.advance(5_000);
    expect((await read(id)).state).toBe('RECORDING');
    const armed = await arm({ channel_id: id, message: 'encoder lost its input' });
    expect(armed.failure).toMatchObject({
      channel_id: id,
      space_id: SPACE,
      outcome: 'error',
      at: '2025-03-01T12:00:05.000Z',
    });
    const failed = await read(id);
    expect(failed.state).toBe('ERROR');
    expect(failed.errors).toEqual(['encoder lost its input']);
    expect(failed.recording.ended_at).toBe('2025-03-01T12:00:05.000Z');
    expect(failed.updated_at).toBe('2025-03-01T12:00:05.000Z');
    sim.advance(60_000);
    expect((await read(id)).state).toBe('ERROR');
  });

  it('after a delay: RECORDING until then, ERROR from then on', async () => {
    const id = await create();
    sim.advance(3_000);
    await arm({ channel_id: id, after_ms: 10_000 });
    sim.advance(9_999);
    expect((await read(id)).state).toBe('RECORDING');
    sim.advance(1);
    expect((await read(id)).state).toBe('ERROR');
  });

  it('at a chosen simulated time; outcome end finishes the recording as a stop would', async () => {
    const id = await create();
    await arm({ channel_id: id, outcome: 'end', at: '2025-03-01T12:00:30.000Z' });
    sim.advance(29_000);
    expect((await read(id)).state).toBe('RECORDING');
    sim.advance(1_000);
    const ended = await read(id);
    expect(ended.state).toBe('FINISHING_RECORDING');
    expect(ended.recording.ended_at).toBe('2025-03-01T12:00:30.000Z');
    expect(ended.errors).toEqual([]);
    sim.advance(2_000);
    expect((await read(id)).state).toBe('INACTIVE');
  });

  it('armed before the recording starts, it counts from the start; a stop of an ERROR channel answers its state', async () => {
    const id = await create();
    await arm({ channel_id: id, after_ms: 1_000 });
    sim.advance(2_500);
    expect((await read(id)).state).toBe('RECORDING');
    sim.advance(500);
    expect((await read(id)).state).toBe('ERROR');
    const stopped = await stop(id);
    expect(stopped.status).toBe(200);
    expect(stopped.body.state).toBe('ERROR');
  });

  it('a stop that comes first wins: the channel finishes normally', async () => {
    const id = await create();
    sim.advance(3_000);
    await arm({ channel_id: id, after_ms: 5_000 });
    sim.advance(1_000);
    expect((await stop(id)).body.state).toBe('FINISHING_RECORDING');
    sim.advance(10_000);
    const after = await read(id);
    expect(after.state).toBe('INACTIVE');
    expect(after.errors).toEqual([]);
  });

  it('refuses an unknown channel (404), one no longer recording (409) and a bad spec (400, by field)', async () => {
    const unknown = await admin('POST', '/channel-failures', { channel_id: '0f8fad5b-d9cb-469f-a165-70867728950e' });
    expect(unknown.status).toBe(404);
    const id = await create();
    sim.advance(3_000);
    await stop(id);
    const done = await admin('POST', '/channel-failures', { channel_id: id });
    expect(done.status).toBe(409);
    expect(done.body.error_message).toMatch(/FINISHING_RECORDING/);
    const neither = await admin('POST', '/channel-failures', { outcome: 'error' });
    expect(neither.status).toBe(400);
    expect(neither.body.errors.channel_id).toMatch(/either channel_id .* or next/);
    const both = await admin('POST', '/channel-failures', { next: 1, at: 0, after_ms: 1 });
    expect(both.status).toBe(400);
    expect(both.body.errors.at).toMatch(/not both/);
    const badOutcome = await admin('POST', '/channel-failures', { next: 1, outcome: 'explode' });
    expect(badOutcome.status).toBe(400);
    expect(Object.keys(badOutcome.body.errors)).toEqual(['outcome']);
  });
});

describe('a failure of the next channels created', () => {
  it('takes the next N channels, each failing after_ms into its own recording, then no more', async () => {
    const armed = await arm({ next: 2, after_ms: 4_000 });
    expect(armed.failure).toMatchObject({ next: 2, outcome: 'error', after_ms: 4_000 });
    expect((await admin('GET', '/channel-failures')).body.pending).toHaveLength(1);
    const first = await create('first');
    sim.advance(1_000);
    const second = await create('second');
    const third = await create('third');
    expect((await admin('GET', '/channel-failures')).body).toMatchObject({
      pending: [],
      channels: [
        { channel_id: first, at: '2025-03-01T12:00:06.000Z' },
        { channel_id: second, at: '2025-03-01T12:00:07.000Z' },
      ],
    });
    sim.advance(5_000);
    expect((await read(first)).state).toBe('ERROR');
    expect((await read(second)).state).toBe('RECORDING');
    sim.advance(1_000);
    expect((await read(second)).state).toBe('ERROR');
    expect((await read(third)).state).toBe('RECORDING');
  });

  it('DELETE disarms what has not happened yet and keeps a failure already past', async () => {
    const early = await create('early');
    sim.advance(3_000);
    await arm({ channel_id: early });
    const later = await create('later');
    await arm({ channel_id: later, after_ms: 60_000 });
    await arm({ next: 1 });
    expect((await admin('DELETE', '/channel-failures')).status).toBe(204);
    expect((await admin('GET', '/channel-failures')).body).toMatchObject({
      pending: [],
      channels: [{ channel_id: early }],
    });
    const fresh = await create('fresh');
    sim.advance(120_000);
    expect((await read(early)).state).toBe('ERROR');
    expect((await read(later)).state).toBe('RECORDING');
    expect((await read(fresh)).state).toBe('RECORDING');
  });

  it('a reset forgets armed failures, and the in-process twin arms the same thing', async () => {
    await arm({ next: 1 });
    sim.reset();
    const id = await create();
    sim.advance(3_000);
    expect((await read(id)).state).toBe('RECORDING');
    sim.addChannelFailure({ channel_id: id, outcome: 'end' });
    expect((await read(id)).state).toBe('FINISHING_RECORDING');
    expect(() => sim.addChannelFailure({ outcome: 'error' })).toThrow(/either channel_id/);
  });
});

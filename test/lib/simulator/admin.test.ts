import http from 'node:http';
import net from 'node:net';
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
import { RequestLog } from '../../../lib/simulator/request-log';
import { call } from '../../support/sim';

const KEYS = credentialsFor('adm');
const SPACE = spaceIdFor('adm');
const WF = workflowIdFor('Proxy');

let sim: Simulator;
const listUrl = (q = '') => `${sim.workflowUrl}/workflow/v1/${SPACE}/workflows${q}`;
const submitUrl = () => `${sim.workflowUrl}/workflow/v1/${SPACE}/workflows/${WF}/jobs`;
const channelsUrl = () => `${sim.liveCaptureUrl}/livecapture/v1/${SPACE}/channels`;
const submit = (key?: string, body: unknown = { job_name: 'n' }) =>
  call('POST', submitUrl(), { key: KEYS.management, body, headers: key ? { 'idempotency-key': key } : {} });
const createChannel = (key?: string, body: unknown = { name: 'c' }) =>
  call('POST', channelsUrl(), { key: KEYS.token, body, headers: key ? { 'idempotency-key': key } : {} });
const admin = (method: string, path: string, body?: unknown) => call(method, `${sim.adminUrl}${path}`, { body });
const addFault = async (spec: Record<string, unknown>) => {
  const res = await admin('POST', '/faults', spec);
  expect(res.status).toBe(201);
  return res.body.id as string;
};

beforeAll(async () => {
  sim = await startSimulator({
    manualClock: true,
    fixture: fixtureDocument(fixtureSpace('adm', { workflows: [fixtureWorkflow('Proxy', { job_duration_ms: 1000 })] })),
  });
});
afterAll(() => sim.close());
beforeEach(() => sim.reset());

describe('Idempotency-Key', () => {
  it('replays the first response exactly, with Idempotent-Replayed: true, and creates one job', async () => {
    const first = await submit('key-1');
    expect(first.status).toBe(200);
    expect(first.headers.get('idempotent-replayed')).toBeNull();
    sim.advance(5000);
    const again = await submit('key-1');
    expect(again.status).toBe(200);
    expect(again.text).toBe(first.text);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(sim.counts().jobs).toBe(1);
    expect((await submit('key-2')).body.id).not.toBe(first.body.id);
    expect(sim.counts().jobs).toBe(2);
  });

  it('replays error responses of the operation too (same 422)', async () => {
    const first = await submit('bad-1', { job_name: 'n', usage: { input: { variables: [{ name: 'X' }] } } });
    expect(first.status).toBe(422);
    const again = await submit('bad-1', { job_name: 'n', usage: { input: { variables: [{ name: 'X' }] } } });
    expect(again.status).toBe(422);
    expect(again.text).toBe(first.text);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
  });

  it('matches bodies whatever their key order', async () => {
    await createChannel('ch-1', { name: 'c', region: 'r' });
    const again = await createChannel('ch-1', { region: 'r', name: 'c' });
    expect(again.status).toBe(201);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(sim.counts().channels).toBe(1);
  });

  it('matches submissions whatever their key order, and tells workflows apart', async () => {
    const body = { job_name: 'n', usage: { input: { variables: [] } } };
    const first = await submit('sub-1', body);
    expect(first.status).toBe(200);
    const again = await call('POST', submitUrl(), {
      key: KEYS.management,
      body: { usage: { input: { variables: [] } }, job_name: 'n' },
      headers: { 'idempotency-key': 'sub-1' },
    });
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.text).toBe(first.text);
    const otherWorkflow = await call(
      'POST',
      `${sim.workflowUrl}/workflow/v1/${SPACE}/workflows/${workflowIdFor('x')}/jobs`,
      {
        key: KEYS.management,
        body,
        headers: { 'idempotency-key': 'sub-1' },
      },
    );
    expect(otherWorkflow.status).toBe(422);
    expect(otherWorkflow.body).toEqual({ errors: { 'Idempotency-Key': expect.any(String) } });
    expect(sim.counts().jobs).toBe(1);
  });

  it('422 {errors:{Idempotency-Key}} when the key comes back with a different body', async () => {
    await submit('key-x', { job_name: 'first' });
    const res = await submit('key-x', { job_name: 'second' });
    expect(res.status).toBe(422);
    expect(res.body).toEqual({ errors: { 'Idempotency-Key': expect.any(String) } });
    const channel = await createChannel('key-x', { name: 'other' });
    expect(channel.status).toBe(201);
    expect((await createChannel('key-x', { name: 'changed' })).body).toEqual({
      errors: { 'Idempotency-Key': expect.any(String) },
    });
    expect(sim.counts()).toMatchObject({ jobs: 1, channels: 1 });
  });

  it('409 {error_message} while the first request with the key is in flight', async () => {
    await addFault({ route: 'submit', kind: 'latency', latency_ms: 400, count: 1 });
    const first = submit('slow-1');
    // The fault is used up at the moment the first request reserved its key.
    while ((await admin('GET', '/faults')).body.faults.length > 0) await new Promise((r) => setTimeout(r, 5));
    const concurrent = await submit('slow-1');
    expect(concurrent.status).toBe(409);
    expect(concurrent.body).toEqual({ error_message: expect.stringContaining('in progress') });
    expect((await first).status).toBe(200);
    const after = await submit('slow-1');
    expect(after.status).toBe(200);
    expect(after.headers.get('idempotent-replayed')).toBe('true');
    expect(sim.counts().jobs).toBe(1);
  });

  it('is scoped per route: the same key on submit and create channel are independent', async () => {
    expect((await submit('shared')).status).toBe(200);
    expect((await createChannel('shared')).status).toBe(201);
    expect(sim.counts()).toMatchObject({ jobs: 1, channels: 1 });
  });
});

describe('fault injection', () => {
  it('status: 503 with Retry-After for the next N requests, in the route shape, then normal', async () => {
    await addFault({ route: 'list', kind: 'status', status: 503, retry_after: 2, count: 2 });
    for (let i = 0; i < 2; i++) {
      const res = await call('GET', listUrl(), { key: KEYS.access });
      expect(res.status).toBe(503);
      expect(res.headers.get('retry-after')).toBe('2');
      expect(res.body).toMatchObject({
        status: 503,
        title: 'Service Unavailable',
        instance: `/workflow/v1/${SPACE}/workflows`,
      });
    }
    expect((await call('GET', listUrl(), { key: KEYS.access })).status).toBe(200);
    expect((await admin('GET', '/faults')).body.faults).toEqual([]);
  });

  it('status: 429 with an HTTP-date Retry-After on submit uses {error_message} and changes nothing', async () => {
    const date = 'Wed, 21 Oct 2015 07:28:00 GMT';
    await addFault({ route: 'submit', kind: 'status', status: 429, retry_after: date, count: 1 });
    const res = await submit();
    expect(res.status).toBe(429);
    expect(res.headers.get('retry-after')).toBe(date);
    expect(res.body).toEqual({ error_message: expect.any(String) });
    expect(sim.counts().jobs).toBe(0);
  });

  it('status faults do not store the key: a retry with the same key runs for real', async () => {
    await addFault({ route: 'submit', kind: 'status', status: 502, count: 1 });
    expect((await submit('k-502')).status).toBe(502);
    const retry = await submit('k-502');
    expect(retry.status).toBe(200);
    expect(retry.headers.get('idempotent-replayed')).toBeNull();
    expect(sim.counts().jobs).toBe(1);
  });

  it('status with phase after: the job is created but the client sees 500; a keyed retry gets the real answer', async () => {
    await addFault({ route: 'submit', kind: 'status', status: 500, phase: 'after', count: 1 });
    const res = await submit('k-after');
    expect(res.status).toBe(500);
    expect(res.body).toEqual({ error_message: expect.any(String) });
    expect(sim.counts().jobs).toBe(1);
    const retry = await submit('k-after');
    expect(retry.status).toBe(200);
    expect(retry.headers.get('idempotent-replayed')).toBe('true');
    expect(sim.counts().jobs).toBe(1);
  });

  it('latency delays the response by at least latency_ms', async () => {
    await addFault({ route: '*', kind: 'latency', latency_ms: 150, count: 1 });
    const started = performance.now();
    expect((await call('GET', listUrl(), { key: KEYS.access })).status).toBe(200);
    expect(performance.now() - started).toBeGreaterThanOrEqual(140);
  });

  it('drop (after, by default): the connection dies, the job exists, a keyed retry is replayed', async () => {
    await addFault({ route: 'submit', kind: 'drop', count: 1 });
    await expect(submit('k-drop')).rejects.toThrow();
    expect(sim.counts().jobs).toBe(1);
    const retry = await submit('k-drop');
    expect(retry.status).toBe(200);
    expect(retry.headers.get('idempotent-replayed')).toBe('true');
    expect(sim.counts().jobs).toBe(1);
  });

  it('drop with phase before: nothing happens on the server', async () => {
    await addFault({ route: 'create_channel', kind: 'drop', phase: 'before', count: 1 });
    await expect(createChannel('k-d0')).rejects.toThrow();
    expect(sim.counts().channels).toBe(0);
    expect((await createChannel('k-d0')).headers.get('idempotent-replayed')).toBeNull();
    expect(sim.counts().channels).toBe(1);
  });

  it('truncate: headers announce the full body, half arrives, the connection dies; the channel exists', async () => {
    await addFault({ route: 'create_channel', kind: 'truncate', count: 1 });
    const res = await fetch(channelsUrl(), {
      method: 'POST',
      headers: { authorization: `Bearer ${KEYS.token}`, 'content-type': 'application/json', 'idempotency-key': 'k-t' },
      body: JSON.stringify({ name: 'c' }),
    });
    expect(res.status).toBe(201);
    expect(Number(res.headers.get('content-length'))).toBeGreaterThan(100);
    await expect(res.text()).rejects.toThrow();
    expect(sim.counts().channels).toBe(1);
    const retry = await createChannel('k-t');
    expect(retry.status).toBe(201);
    expect(retry.headers.get('idempotent-replayed')).toBe('true');
    expect(sim.counts().channels).toBe(1);
  });

  it('truncate of a body-less 204 drops the connection', async () => {
    await createChannel(undefined, { name: 'e' });
    sim.advance(2000);
    const [event] = (await admin('GET', `/spaces/${SPACE}/events`)).body.events;
    await addFault({ route: 'delete_event', kind: 'truncate', count: 1 });
    await expect(
      call('DELETE', `${sim.liveCaptureUrl}/livecapture/v1/${SPACE}/events/${event.id}`, { key: KEYS.token }),
    ).rejects.toThrow();
    expect(sim.counts().events).toBe(1);
  });

  it('matches routes: a submit fault leaves listing alone; probability 0 never fires', async () => {
    await addFault({ route: 'submit', kind: 'status', status: 503 });
    await addFault({ route: 'list', kind: 'status', status: 500, probability: 0 });
    expect((await call('GET', listUrl(), { key: KEYS.access })).status).toBe(200);
    expect((await submit()).status).toBe(503);
    expect((await submit()).status).toBe(503);
    const faults = (await admin('GET', '/faults')).body.faults;
    expect(faults).toHaveLength(2);
    expect(faults[0]).toMatchObject({ route: 'submit', kind: 'status', status: 503, remaining: null, phase: 'before' });
    expect((await admin('DELETE', '/faults')).status).toBe(204);
    expect((await submit()).status).toBe(200);
  });

  it('area, every and duration_ms combine: every second workflow request for 10 s, the live-capture area untouched', async () => {
    await addFault({ area: 'workflow', kind: 'status', status: 429, every: 2, duration_ms: 10_000 });
    const statuses = [];
    for (let i = 0; i < 4; i++) statuses.push((await call('GET', listUrl(), { key: KEYS.access })).status);
    expect(statuses).toEqual([200, 429, 200, 429]);
    expect((await createChannel()).status).toBe(201);
    const [fault] = (await admin('GET', '/faults')).body.faults;
    expect(fault).toMatchObject({ area: 'workflow', every: 2, seen: 4, ends_at: expect.any(String) });
    sim.advance(10_000);
    expect((await admin('GET', '/faults')).body.faults).toEqual([]);
    expect((await submit()).status).toBe(200);
    expect((await submit()).status).toBe(200);
  });

  it('removes one fault by id, and addFault() works in-process', async () => {
    const id = await addFault({ kind: 'status', status: 504 });
    expect((await admin('DELETE', `/faults/${id}`)).status).toBe(204);
    expect((await admin('DELETE', `/faults/${id}`)).status).toBe(404);
    sim.addFault({ route: 'list', kind: 'status', status: 504, count: 1 });
    expect((await call('GET', listUrl(), { key: KEYS.access })).status).toBe(504);
    expect(() => sim.addFault({ kind: 'latency' })).toThrow(/latency_ms/);
  });

  it('400 {error_message, errors} for an invalid fault', async () => {
    for (const spec of [
      { kind: 'explode' },
      { kind: 'latency' },
      { kind: 'status', route: 'nowhere' },
      { kind: 'status', probability: 2 },
      { kind: 'status', count: 0 },
      { kind: 'status', area: 'everywhere' },
      { kind: 'status', every: 1 },
      { kind: 'status', duration_ms: 0 },
    ]) {
      const res = await admin('POST', '/faults', spec);
      expect(res.status).toBe(400);
      expect(res.body).toEqual({ error_message: 'invalid fault', errors: expect.any(Object) });
    }
    expect((await call('POST', `${sim.adminUrl}/faults`, { raw: '{oops' })).status).toBe(400);
  });
});

describe('request log', () => {
  it('records each service request without the credential, and not admin requests', async () => {
    await call('GET', listUrl('?max_results=5&status=active'), { key: KEYS.admin });
    await submit('log-key');
    await call('GET', listUrl());
    const res = await admin('GET', '/requests');
    expect(res.status).toBe(200);
    expect(res.body.requests).toEqual([
      {
        time: new Date(sim.now()).toISOString(),
        method: 'GET',
        path: `/workflow/v1/${SPACE}/workflows`,
        query: { max_results: '5', status: 'active' },
        route: 'list',
        status: 200,
        idempotency_key: null,
        authorization_present: true,
      },
      expect.objectContaining({ method: 'POST', route: 'submit', status: 200, idempotency_key: 'log-key' }),
      expect.objectContaining({ route: 'list', status: 401, authorization_present: false }),
    ]);
    expect(res.text).not.toContain(KEYS.admin);
    expect(res.text).not.toContain(KEYS.management);
    expect(JSON.stringify(sim.requests())).not.toContain('Bearer');
  });

  it('marks faults and replays, logs dropped requests with status null, and clears', async () => {
    await addFault({ route: 'submit', kind: 'drop', count: 1 });
    await expect(submit('k')).rejects.toThrow();
    await submit('k');
    await call('GET', `${sim.workflowUrl}/nowhere`);
    const entries = sim.requests();
    expect(entries[0]).toMatchObject({ route: 'submit', status: null, fault: 'drop' });
    expect(entries[1]).toMatchObject({ route: 'submit', status: 200, replayed: true });
    expect(entries[2]).toMatchObject({ route: 'unknown', status: 404 });
    expect((await admin('DELETE', '/requests')).status).toBe(204);
    expect(sim.requests()).toEqual([]);
  });

  it('keeps only the newest entries past its capacity', () => {
    const log = new RequestLog(3);
    for (let i = 0; i < 5; i++) {
      log.add({
        at: i,
        method: 'GET',
        path: `/p${i}`,
        rawQuery: '',
        route: 'list',
        status: 200,
        idempotencyKey: null,
        authorizationPresent: false,
        fault: undefined,
        replayed: false,
      });
    }
    expect(log.entries().map((e) => e.path)).toEqual(['/p2', '/p3', '/p4']);
  });
});

describe('admin API', () => {
  it('moves and reports the clock', async () => {
    const before = (await admin('GET', '/clock')).body;
    expect(before).toMatchObject({ now: sim.now(), manual: true });
    const after = await admin('POST', '/clock/advance', { ms: 1500 });
    expect(after.body.now).toBe(before.now + 1500);
    expect(sim.now()).toBe(before.now + 1500);
    expect((await admin('POST', '/clock/advance', { ms: -1 })).status).toBe(400);
    expect((await admin('POST', '/clock/advance', {})).status).toBe(400);
  });

  it('reports counts, resets state, faults and log', async () => {
    await submit();
    await createChannel();
    sim.advance(2000);
    expect((await admin('GET', '/state')).body).toEqual({ jobs: 1, channels: 1, events: 2 });
    expect((await admin('GET', `/spaces/${SPACE}/jobs`)).body.jobs).toHaveLength(1);
    expect((await admin('GET', `/spaces/${SPACE}/channels`)).body.channels[0].state).toBe('RECORDING');
    await addFault({ kind: 'status', status: 500 });
    expect((await admin('POST', '/reset')).status).toBe(204);
    expect((await admin('GET', '/state')).body).toEqual({ jobs: 0, channels: 0, events: 0 });
    expect((await admin('GET', '/faults')).body.faults).toEqual([]);
    expect(sim.requests()).toEqual([]);
    expect((await call('GET', listUrl(), { key: KEYS.access })).status).toBe(200);
  });

  it('serves info() and answers 404 for unknown admin routes and spaces', async () => {
    expect((await admin('GET', '/info')).body).toEqual(sim.info());
    expect((await admin('GET', '/nope')).status).toBe(404);
    expect((await admin('GET', '/spaces/00000000-0000-4000-8000-000000000000/events')).status).toBe(404);
  });
});

describe('robustness of the HTTP layer', () => {
  it('404 {error_message} for unknown routes', async () => {
    for (const path of [
      '/',
      '/workflow/v2/x/workflows',
      `/workflow/v1/${SPACE}/flows`,
      `/livecapture/v1/${SPACE}/events`,
    ]) {
      const res = await call('GET', `${sim.workflowUrl}${path}`, { key: KEYS.admin });
      expect(res.status, path).toBe(404);
      expect(res.body, path).toEqual({ error_message: expect.any(String) });
    }
  });

  it('405 with Allow for a wrong method', async () => {
    const res = await call('GET', submitUrl(), { key: KEYS.admin });
    expect(res.status).toBe(405);
    expect(res.headers.get('allow')).toBe('POST');
    expect(res.body).toEqual({ error_message: expect.any(String) });
    const list = await call('DELETE', listUrl(), { key: KEYS.admin });
    expect(list.status).toBe(405);
    expect(list.body.status).toBe(405);
  });

  it('400 for bad percent-encoding in a path parameter', async () => {
    const res = await call('GET', `${sim.workflowUrl}/workflow/v1/%E0%A4%A/workflows`, { key: KEYS.admin });
    expect(res.status).toBe(400);
    expect(res.body.errors[0].pointer).toBe('space_id');
  });

  it('413 {error_message} for a body over 5 MB, and keeps serving', async () => {
    const res = await call('POST', submitUrl(), { key: KEYS.admin, raw: `"${'x'.repeat(5 * 1024 * 1024)}"` });
    expect(res.status).toBe(413);
    expect(res.body).toEqual({ error_message: expect.stringContaining('5 MB') });
    expect(sim.counts().jobs).toBe(0);
    expect((await submit()).status).toBe(200);
  });

  it('answers a malformed HTTP request with 400 and keeps serving', async () => {
    const reply = await new Promise<string>((resolve, reject) => {
      const url = new URL(sim.workflowUrl);
      const socket = net.connect(Number(url.port), url.hostname, () => socket.write('NOT HTTP AT ALL\r\n\r\n'));
      let data = '';
      socket.on('data', (d) => {
        data += d;
      });
      socket.on('end', () => resolve(data));
      socket.on('error', reject);
    });
    expect(reply).toMatch(/^HTTP\/1\.1 400/);
    expect((await call('GET', listUrl(), { key: KEYS.access })).status).toBe(200);
  });

  it('keeps connections alive between requests', async () => {
    const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
    const get = () =>
      new Promise<{ reused: boolean; status: number }>((resolve, reject) => {
        const req = http.get(
          listUrl('?max_results=1'),
          { agent, headers: { authorization: `Bearer ${KEYS.access}` } },
          (res) => {
            res.resume();
            res.on('end', () => resolve({ reused: req.reusedSocket, status: res.statusCode ?? 0 }));
          },
        );
        req.on('error', reject);
      });
    try {
      expect(await get()).toEqual({ reused: false, status: 200 });
      expect(await get()).toEqual({ reused: true, status: 200 });
    } finally {
      agent.destroy();
    }
  });
});

describe('warm-up', () => {
  const stateOf = async (id: string) =>
    (await call('GET', `${channelsUrl()}/${id}`, { key: KEYS.token })).body as {
      state: string;
      recording?: { started_at?: string };
    };

  it('channels created after it warm up that long; those before keep theirs; a reset puts 2 s back', async () => {
    expect((await admin('GET', '/warm-up')).body).toEqual({ ms: 2000 });
    const before = (await createChannel(undefined, { name: 'before' })).body.id as string;
    expect((await admin('POST', '/warm-up', { ms: 20_000 })).body).toEqual({ ms: 20_000 });
    const created = await createChannel(undefined, { name: 'slow' });
    const slow = created.body.id as string;
    const createdAt = Date.parse(created.body.created_at as string);
    sim.advance(2000);
    expect((await stateOf(before)).state).toBe('RECORDING');
    expect(await stateOf(slow)).toMatchObject({ state: 'ACTIVE' });
    expect((await stateOf(slow)).recording?.started_at).toBeUndefined();
    sim.advance(18_000);
    const recording = await stateOf(slow);
    expect(recording.state).toBe('RECORDING');
    expect(Date.parse(recording.recording?.started_at ?? '')).toBe(createdAt + 20_000);
    sim.reset();
    expect((await admin('GET', '/warm-up')).body).toEqual({ ms: 2000 });
  });

  it('refuses a warm-up that is not a whole number of ms from 1 s to 10 min, naming the field', async () => {
    for (const ms of [999, 600_001, 1.5, '5000', null]) {
      const res = await admin('POST', '/warm-up', { ms });
      expect(res.status, String(ms)).toBe(400);
      expect(JSON.stringify(res.body)).toContain('ms');
    }
    expect((await admin('GET', '/warm-up')).body).toEqual({ ms: 2000 });
  });
});

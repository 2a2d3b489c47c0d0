import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
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

/**
 * The curl lines of README's "Drill" section, run as written with curl against a simulator
 * (only its address swapped for the test's), and what each one does seen through the service's
 * own routes.
 */

const README_BASE = 'http://127.0.0.1:8787';
const KEYS = credentialsFor('drill');
const SPACE = spaceIdFor('drill');
const WF = workflowIdFor('Proxy');
const run = promisify(execFile);

/** Each curl line of the Drill section by the comment line just above it. */
function drillLines(): Map<string, string> {
  const readme = readFileSync(join(__dirname, '..', '..', '..', 'README.md'), 'utf8');
  const start = readme.indexOf('\n## Drill');
  const section = readme.slice(start, readme.indexOf('\n## ', start + 1));
  const lines = new Map<string, string>();
  let comment = '';
  for (const line of section.split('\n')) {
    if (line.startsWith('# ')) comment = line.slice(2);
    else if (line.startsWith('curl ')) lines.set(comment, line);
  }
  return lines;
}

let sim: Simulator;
let lines: Map<string, string>;

/** Runs the README's line under `comment`; resolves with its HTTP status and parsed body. */
async function drill(comment: string, channelId = '') {
  const line = lines.get(comment);
  expect(line, `README's Drill section has a curl line under "# ${comment}"`).toBeDefined();
  const command = `${(line as string).replaceAll(README_BASE, sim.workflowUrl).replaceAll('<channel_id>', channelId)} -s -w '\\n%{http_code}'`;
  const { stdout } = await run('sh', ['-c', command]);
  const status = Number(stdout.slice(stdout.lastIndexOf('\n') + 1));
  const text = stdout.slice(0, stdout.lastIndexOf('\n'));
  return { status, body: text ? JSON.parse(text) : undefined };
}

const list = () => call('GET', `${sim.workflowUrl}/workflow/v1/${SPACE}/workflows`, KEYS.access);
const submit = () =>
  call('POST', `${sim.workflowUrl}/workflow/v1/${SPACE}/workflows/${WF}/jobs`, KEYS.management, { job_name: 'n' });
const channels = () => `${sim.liveCaptureUrl}/livecapture/v1/${SPACE}/channels`;
const createChannel = () => call('POST', channels(), KEYS.token, { name: 'Studio 1' });
const channelState = async (id: string) => (await call('GET', `${channels()}/${id}`, KEYS.token)).body;

beforeAll(async () => {
  lines = drillLines();
  sim = await startSimulator({
    manualClock: true,
    startTime: '2025-03-01T12:00:00.000Z',
    fixture: fixtureDocument(fixtureSpace('drill', { workflows: [fixtureWorkflow('Proxy')] })),
  });
});
afterAll(() => sim.close());
beforeEach(() => sim.reset());

describe("README's drill: faults", () => {
  it('the live-capture area is down for 60 s: every live-capture route answers 503, the workflow area not', async () => {
    const added = await drill('the live-capture area is down for 60 s');
    expect(added.status).toBe(201);
    expect((await createChannel()).status).toBe(503);
    expect((await call('GET', `${channels()}/0f8fad5b-d9cb-469f-a165-70867728950e`, KEYS.token)).status).toBe(503);
    expect((await list()).status).toBe(200);
    sim.advance(59_999);
    expect((await createChannel()).status).toBe(503);
    sim.advance(1);
    expect((await createChannel()).status).toBe(201);
    expect((await drill('list the faults (with the requests each has left)')).body.faults).toEqual([]);
  });

  it('every third request is a 429 with Retry-After', async () => {
    expect((await drill('every third request is a 429')).status).toBe(201);
    const answers = [];
    for (let i = 0; i < 6; i++) answers.push(await list());
    expect(answers.map((a) => a.status)).toEqual([200, 200, 429, 200, 200, 429]);
    expect(answers[2].headers.get('retry-after')).toBe('2');
  });

  it('the next 5 channel creations fail, the 6th succeeds', async () => {
    await drill('the next 5 channel creations fail with a 503');
    const statuses = [];
    for (let i = 0; i < 6; i++) statuses.push((await createChannel()).status);
    expect(statuses).toEqual([503, 503, 503, 503, 503, 201]);
  });

  it('a latency on every submission is listed as such, and removing every fault leaves none', async () => {
    const added = await drill('every job submission takes 3 s');
    expect(added.body.fault).toMatchObject({ route: 'submit', kind: 'latency', latency_ms: 3000, remaining: null });
    expect((await drill('list the faults (with the requests each has left)')).body.faults).toHaveLength(1);
    expect((await drill('remove every fault')).status).toBe(204);
    expect((await drill('list the faults (with the requests each has left)')).body.faults).toEqual([]);
  });

  it('a dropped submission still creates its job', async () => {
    await drill('the next submission creates its job, but the client never hears the answer');
    await expect(submit()).rejects.toThrow();
    expect(sim.counts().jobs).toBe(1);
    expect((await submit()).status).toBe(200);
  });
});

describe("README's drill: warm-up", () => {
  it('the channels created from now on warm up 20 s before they record', async () => {
    expect((await drill('the channels created from now on warm up 20 s before they record')).body).toEqual({
      ms: 20_000,
    });
    const id = (await createChannel()).body.id;
    sim.advance(19_999);
    expect((await channelState(id)).state).toBe('ACTIVE');
    sim.advance(1);
    expect((await channelState(id)).state).toBe('RECORDING');
  });
});

describe("README's drill: channel failures", () => {
  it('the next channel created fails 20 s into its recording', async () => {
    expect((await drill('the next channel created fails 20 s into its recording')).status).toBe(201);
    const id = (await createChannel()).body.id;
    sim.advance(2_000 + 19_999);
    expect((await channelState(id)).state).toBe('RECORDING');
    sim.advance(1);
    expect((await channelState(id)).state).toBe('ERROR');
    const listed = await drill('list the channel failures');
    expect(listed.body).toMatchObject({ pending: [], channels: [{ channel_id: id, outcome: 'error' }] });
  });

  it("this channel's recording fails now; another's ends by itself in 10 s", async () => {
    const failing = (await createChannel()).body.id;
    const ending = (await createChannel()).body.id;
    sim.advance(3_000);
    expect((await drill("this channel's recording fails now", failing)).status).toBe(201);
    expect(await channelState(failing)).toMatchObject({ state: 'ERROR', errors: ['encoder lost its input'] });
    expect((await drill("this channel's recording ends by itself in 10 s", ending)).status).toBe(201);
    sim.advance(10_000);
    expect((await channelState(ending)).state).toBe('FINISHING_RECORDING');
  });
});

describe("README's drill: the log, the clock, the state and reset", () => {
  it('reads and clears the request log, moves the clock, counts and resets', async () => {
    await drill('every third request is a 429');
    for (let i = 0; i < 3; i++) await list();
    expect((await drill('forget them')).status).toBe(204);
    for (let i = 0; i < 3; i++) await list();
    const requests = (
      await drill(
        'idempotency_key, authorization_present (never the credential), fault (the kinds that affected it), replayed',
      )
    ).body.requests;
    expect(requests.map((r: { status: number }) => r.status)).toEqual([200, 200, 429]);
    expect(requests[2]).toMatchObject({ route: 'list', fault: 'status', authorization_present: true });

    expect((await drill('the simulated time: {"now","iso","manual"}')).body).toMatchObject({
      iso: '2025-03-01T12:00:00.000Z',
      manual: true,
    });
    const job = (await submit()).body.id;
    expect((await drill('one hour later at once: jobs and channels move on as if it had passed')).body.iso).toBe(
      '2025-03-01T13:00:00.000Z',
    );
    const read = await call('GET', `${sim.workflowUrl}/workflow/v1/${SPACE}/workflows/${WF}/jobs/${job}`, KEYS.access);
    expect(read.body.state).toBe('succeeded');
    expect((await drill('how many jobs, channels and events exist')).body).toEqual({ jobs: 1, channels: 0, events: 0 });
    expect(
      (
        await drill(
          'back to the fixture: jobs, channels, events, idempotency keys, faults, channel failures and the log go, the clock rewinds',
        )
      ).status,
    ).toBe(204);
    expect(sim.counts()).toEqual({ jobs: 0, channels: 0, events: 0 });
    expect((await drill('list the faults (with the requests each has left)')).body.faults).toEqual([]);
  });
});

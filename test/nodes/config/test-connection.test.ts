import { createServer, type Server, type Socket } from 'node:net';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type Simulator, startSimulator } from '../../../lib/simulator';
import {
  ALL_NODES,
  CONFIG_ID,
  configNode,
  credentials,
  DEMO,
  helper,
  initRuntime,
} from '../../support/node-red-runtime';
import { fragmentOf, signIn } from '../../support/oauth';

/**
 * "Test connection" (POST /media-spaces/test-connection) through a real runtime's admin app
 * against the simulator: every wrong setting gets its own sentence, an area is OK only when a
 * call proved it, and the answer is always HTTP 200 with a verdict per area.
 */

let sim: Simulator;
let silent: Server;
let silentPort: number;
const held: Socket[] = [];

beforeAll(async () => {
  initRuntime();
  sim = await startSimulator();
  // accepts connections and never answers: the timeout case
  silent = createServer((socket) => held.push(socket));
  await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
  silentPort = (silent.address() as { port: number }).port;
});

afterAll(async () => {
  for (const s of held) s.destroy();
  await new Promise((resolve) => silent.close(resolve));
  await sim.close();
});

beforeEach(async () => {
  sim.reset();
  await helper.load(ALL_NODES, [configNode(sim)], credentials(DEMO.keys.admin, DEMO.token));
});

afterEach(async () => {
  await helper.unload();
});

interface Result {
  area: string;
  ok: boolean | null;
  status?: number;
  message: string;
}

function dialog(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  const { id: _id, type: _type, ...fields } = configNode(sim);
  return { ...fields, apiKey: DEMO.keys.admin, accessToken: DEMO.token, ...overrides };
}

async function probe(overrides: Record<string, unknown> = {}): Promise<Record<string, Result> & { ok: boolean }> {
  const res = await helper.request().post('/media-spaces/test-connection').send(dialog(overrides));
  expect(res.status).toBe(200);
  const body = res.body as { ok: boolean; results: Result[] };
  return Object.assign(Object.fromEntries(body.results.map((r) => [r.area, r])), { ok: body.ok });
}

describe('Test connection: one sentence per wrong setting', () => {
  it('right settings: each area proved, nothing created', async () => {
    const before = sim.counts();
    const r = await probe();
    expect(r.ok).toBe(true);
    expect(r.workflows).toMatchObject({ ok: true, message: expect.stringMatching(/^OK: the API key can list/) });
    expect(r.submit).toMatchObject({ ok: true, status: 404, message: expect.stringMatching(/may submit jobs/) });
    expect(r.liveCapture).toMatchObject({ ok: true, status: 404, message: 'OK: the access token is accepted.' });
    expect(sim.counts()).toEqual(before);
    expect(
      sim
        .requests()
        .map((q) => `${q.route} ${q.status}`)
        .sort(),
    ).toEqual(['delete_event 404', 'list 200', 'submit 404']);
  });

  it('connection refused', async () => {
    const r = await probe({ workflowUrl: 'http://127.0.0.1:1', liveCaptureUrl: 'http://127.0.0.1:1' });
    expect(r.workflows).toMatchObject({
      ok: false,
      message: expect.stringMatching(/^Connection refused by http:\/\/127\.0\.0\.1:1/),
    });
    expect(r.submit.ok).toBeNull();
    expect(r.liveCapture.message).toMatch(/^Connection refused/);
  });

  it('timeout', async () => {
    const url = `http://127.0.0.1:${silentPort}`;
    const r = await probe({ workflowUrl: url, liveCaptureUrl: url, timeout: 300 });
    expect(r.workflows).toMatchObject({
      ok: false,
      message: expect.stringMatching(/^Timeout: .* did not answer in time/),
    });
    expect(r.liveCapture.message).toMatch(/^Timeout/);
  });

  it('TLS failure: https to a plain http port', async () => {
    const url = sim.workflowUrl.replace('http:', 'https:');
    const r = await probe({ workflowUrl: url, liveCaptureUrl: url });
    expect(r.workflows).toMatchObject({ ok: false, message: expect.stringMatching(/^TLS failure with https:/) });
    expect(r.workflows.message).toMatch(/use http:\/\/ for a plain HTTP service/);
  });

  it('a URL that already contains the path prefix, for each area', async () => {
    const r = await probe({
      workflowUrl: `${sim.workflowUrl}/workflow/v1`,
      liveCaptureUrl: `${sim.liveCaptureUrl}/livecapture/v1/`,
    });
    expect(r.workflows).toMatchObject({ ok: false });
    expect(r.workflows.message).toBe(
      `The Workflow URL already contains the path prefix /workflow/v1; the node adds it itself. Set the Workflow URL to ${sim.workflowUrl}.`,
    );
    expect(r.liveCapture.message).toMatch(/^The Live capture URL already contains the path prefix \/livecapture\/v1/);
    expect(sim.requests()).toEqual([]);
  });

  it('a wrong path: the 404 of an unknown route is not taken for an accepted token', async () => {
    const r = await probe({
      workflowUrl: sim.workflowUrl,
      liveCaptureUrl: `${sim.liveCaptureUrl}/typo`,
      accessToken: 'wrong-token',
    });
    expect(r.workflows.ok).toBe(true);
    expect(r.liveCapture).toMatchObject({ ok: false, status: 404 });
    expect(r.liveCapture.message).toMatch(/^Wrong path: .*\/typo\/livecapture\/v1\/… is not a Media Spaces address/);
    expect(r.liveCapture.message).toMatch(/no such route/);
    const wf = await probe({ workflowUrl: `${sim.workflowUrl}/typo` });
    expect(wf.workflows.message).toMatch(/^Wrong path: .* Check the Workflow URL .* and the Path prefix\./);
  });

  it('a wrong key, with the service reason', async () => {
    const r = await probe({ apiKey: 'wrong-key' });
    expect(r.workflows).toMatchObject({ ok: false, status: 401 });
    expect(r.workflows.message).toBe(
      'Wrong API key: the service does not accept it (HTTP 401; the service says: unknown API key). Enter it again.',
    );
    expect(r.submit.ok).toBeNull();
    expect(JSON.stringify(r)).not.toContain('wrong-key');
  });

  it('a key without the scope submitting needs', async () => {
    const r = await probe({ apiKey: DEMO.keys.access });
    expect(r.workflows.ok).toBe(true);
    expect(r.submit).toMatchObject({ ok: false, status: 401 });
    expect(r.submit.message).toMatch(/^Missing scope: .* it needs workflow:workflow-management/);
  });

  it('a wrong space (404 naming the space) is told apart from a wrong path', async () => {
    const other = '99999999-9999-4999-8999-999999999999';
    const r = await probe({ spaceId: other });
    expect(r.workflows).toMatchObject({ ok: false, status: 404 });
    expect(r.workflows.message).toMatch(new RegExp(`^Wrong Space ID: the service has no space ${other}`));
    expect(r.liveCapture.message).toMatch(/^Wrong Space ID/);
  });

  it('a key of another space', async () => {
    const r = await probe({ spaceId: '22222222-2222-4222-8222-222222222222' });
    expect(r.workflows.message).toMatch(/^The API key belongs to another space/);
  });

  it('an inactive subscription', async () => {
    const r = await probe({ spaceId: DEMO.inactiveSpace, apiKey: DEMO.keys.inactive, accessToken: DEMO.inactiveToken });
    expect(r.workflows).toMatchObject({
      ok: false,
      status: 403,
      message: expect.stringMatching(/subscription .* inactive/),
    });
    expect(r.liveCapture).toMatchObject({ ok: false, status: 403 });
  });

  it('a wrong access token', async () => {
    const r = await probe({ accessToken: 'bad-token' });
    expect(r.liveCapture).toMatchObject({ ok: false, status: 401 });
    expect(r.liveCapture.message).toMatch(/^Wrong access token: .*unknown access token/);
  });

  it('"not checked" for each area without a URL or credential, never OK', async () => {
    const none = await probe({ apiKey: '', accessToken: '' });
    expect(none.workflows).toMatchObject({
      ok: null,
      message: 'not checked: no API key; enter the API key or Sign in.',
    });
    expect(none.submit.ok).toBeNull();
    expect(none.liveCapture).toMatchObject({
      ok: null,
      message: expect.stringMatching(/^not checked: no access token/),
    });
    const noUrl = await probe({ workflowUrl: '', liveCaptureUrl: sim.liveCaptureUrl });
    expect(noUrl.workflows).toMatchObject({
      ok: null,
      message: expect.stringMatching(/^not checked: no Workflow URL/),
    });
    // the live-capture area is still checked on its own
    expect(noUrl.liveCapture.ok).toBe(true);
    const noSpace = await probe({ spaceId: '' });
    expect(noSpace.workflows.message).toBe('not checked: no Space ID; enter the id of your space.');
    const badSpace = await probe({ spaceId: 'nope' });
    expect(badSpace.liveCapture.message).toMatch(/^not checked: the Space ID must be a UUID/);
  });

  it('the stored credentials of a deployed config node stand behind the __PWRD__ placeholder', async () => {
    const r = await probe({ id: CONFIG_ID, apiKey: '__PWRD__', accessToken: '__PWRD__' });
    expect(r.ok).toBe(true);
    const anonymous = await probe({ apiKey: '__PWRD__' });
    expect(anonymous.workflows.ok).toBeNull();
  });

  it('a sign-in token instead of an API key, and an expired one', async () => {
    const { location } = await signIn(sim.workflowUrl, {
      username: 'producer',
      password: 'producer-password',
      scope: 'workflow:workflow-management',
      spaceId: DEMO.space,
    });
    const token = fragmentOf(location).access_token;
    const r = await probe({ apiKey: '', workflowToken: token, workflowTokenExpiresAt: String(Date.now() + 3_600_000) });
    expect(r.workflows.message).toMatch(/^OK: the sign-in token can list workflows/);
    expect(r.submit.ok).toBe(true);
    const expiredAt = Date.now() - 1000;
    const expired = await probe({ apiKey: '', workflowToken: token, workflowTokenExpiresAt: String(expiredAt) });
    expect(expired.workflows.message).toBe(
      `The sign-in token has expired (at ${new Date(expiredAt).toISOString()}): open the config node and Sign in again.`,
    );
    expect(JSON.stringify(expired)).not.toContain(token);
  });
});

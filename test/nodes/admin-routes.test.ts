import { runInNewContext } from 'node:vm';
import type { NodeModule } from 'node-red-node-test-helper';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type Simulator, startSimulator } from '../../lib/simulator';
import { checkParameter, checkTypecode } from '../../lib/typecodes';
import {
  ALL_NODES,
  CONFIG_ID,
  configNode,
  credentials,
  DEMO,
  helper,
  initRuntime,
  NODES,
} from '../support/node-red-runtime';

/**
 * The config node's editor endpoints over HTTP (helper.request() drives the
 * runtime's admin app): test connection, the workflow dropdown and the
 * workflow inputs, plus their permission guard.
 */

let sim: Simulator;

beforeAll(async () => {
  initRuntime();
  sim = await startSimulator();
});

afterAll(async () => {
  await sim.close();
});

beforeEach(() => sim.reset());

afterEach(async () => {
  await helper.unload();
});

/** The dialog's fields for the simulator, as the editor posts them. */
function dialog(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  const { id: _id, type: _type, ...fields } = configNode(sim);
  return { ...fields, apiKey: DEMO.keys.admin, accessToken: DEMO.token, ...overrides };
}

async function loadConfig(apiKey: string = DEMO.keys.admin, accessToken: string = DEMO.token) {
  await helper.load(ALL_NODES, [configNode(sim)], credentials(apiKey, accessToken));
}

interface Report {
  ok: boolean;
  results: Array<{ area: string; ok: boolean | null; status?: number; message: string }>;
}

async function testConnection(body: unknown): Promise<{ status: number; report: Report }> {
  const res = await helper.request().post('/media-spaces/test-connection').send(body);
  return { status: res.status, report: res.body as Report };
}

function area(report: Report, name: string) {
  const found = report.results.find((r) => r.area === name);
  if (!found) throw new Error(`no ${name} result in ${JSON.stringify(report)}`);
  return found;
}

describe('POST /media-spaces/test-connection', () => {
  it('all areas OK with an admin key and a valid token, and nothing is created', async () => {
    await loadConfig();
    const before = sim.counts();
    const { status, report } = await testConnection(dialog());
    expect(status).toBe(200);
    expect(report.ok).toBe(true);
    expect(area(report, 'workflows')).toMatchObject({ ok: true, message: expect.stringMatching(/^OK/) });
    expect(area(report, 'submit')).toMatchObject({
      ok: true,
      status: 404,
      message: expect.stringMatching(/management/),
    });
    expect(area(report, 'liveCapture')).toMatchObject({ ok: true, status: 404 });
    expect(sim.counts()).toEqual(before);
    const routes = sim.requests().map((r) => `${r.route} ${r.status}`);
    expect(routes).toEqual(['list 200', 'submit 404', 'delete_event 404']);
    expect(sim.requests()[0].query).toMatchObject({ max_results: '1' });
  });

  it('401 wrong key, in words; the submit probe is skipped', async () => {
    await loadConfig();
    const { report } = await testConnection(dialog({ apiKey: 'wrong-key' }));
    expect(report.ok).toBe(false);
    expect(area(report, 'workflows')).toMatchObject({
      ok: false,
      status: 401,
      message: expect.stringMatching(/wrong api key/i),
    });
    expect(area(report, 'submit').ok).toBeNull();
    expect(JSON.stringify(report)).not.toContain('wrong-key');
  });

  it('401 missing scope: an access key lists but may not submit', async () => {
    await loadConfig();
    const { report } = await testConnection(dialog({ apiKey: DEMO.keys.access }));
    expect(area(report, 'workflows').ok).toBe(true);
    expect(area(report, 'submit')).toMatchObject({
      ok: false,
      status: 401,
      message: expect.stringMatching(/workflow:workflow-management/),
    });
  });

  it('403 inactive subscription', async () => {
    await loadConfig();
    const { report } = await testConnection(
      dialog({ spaceId: DEMO.inactiveSpace, apiKey: DEMO.keys.inactive, accessToken: DEMO.inactiveToken }),
    );
    expect(area(report, 'workflows')).toMatchObject({
      ok: false,
      status: 403,
      message: expect.stringMatching(/inactive/),
    });
    expect(area(report, 'liveCapture')).toMatchObject({ ok: false, status: 403 });
  });

  it('bad URL: a wrong path and an unreachable port are told apart from key problems', async () => {
    await loadConfig();
    const wrongPath = await testConnection(dialog({ workflowUrl: `${sim.workflowUrl}/nothing-here` }));
    expect(area(wrongPath.report, 'workflows')).toMatchObject({
      ok: false,
      message: expect.stringMatching(/^Bad URL/),
    });
    const closed = await testConnection(
      dialog({ workflowUrl: 'http://127.0.0.1:1', liveCaptureUrl: 'http://127.0.0.1:1' }),
    );
    expect(area(closed.report, 'workflows')).toMatchObject({ ok: false, message: expect.stringMatching(/^Bad URL/) });
    expect(area(closed.report, 'liveCapture')).toMatchObject({ ok: false, message: expect.stringMatching(/^Bad URL/) });
  });

  it('wrong access token; no token at all is "not tested"', async () => {
    await loadConfig();
    const wrong = await testConnection(dialog({ accessToken: 'bad-token' }));
    expect(area(wrong.report, 'liveCapture')).toMatchObject({
      ok: false,
      status: 401,
      message: expect.stringMatching(/access token/),
    });
    const none = await testConnection(dialog({ accessToken: '' }));
    expect(area(none.report, 'liveCapture').ok).toBeNull();
    expect(none.report.ok).toBe(true);
  });

  it('the __PWRD__ placeholder uses the stored credentials of the deployed config node', async () => {
    await loadConfig(DEMO.keys.management, DEMO.token);
    const { report } = await testConnection(dialog({ id: CONFIG_ID, apiKey: '__PWRD__', accessToken: '__PWRD__' }));
    expect(report.ok).toBe(true);
    expect(sim.requests().every((r) => r.authorization_present)).toBe(true);
    // without an id the placeholder means nothing is stored: no key
    const anonymous = await testConnection(dialog({ apiKey: '__PWRD__' }));
    expect(area(anonymous.report, 'workflows')).toMatchObject({
      ok: false,
      message: expect.stringMatching(/No API key/),
    });
  });

  it('400 naming the bad setting when the dialog is incomplete; never echoes credentials', async () => {
    await loadConfig();
    const res = await helper
      .request()
      .post('/media-spaces/test-connection')
      .send(dialog({ spaceId: 'nope' }));
    expect(res.status).toBe(400);
    const body = res.body as { error: { code: string; message: string; fieldErrors: Record<string, string> } };
    expect(body.error.code).toBe('invalid_input');
    expect(body.error.fieldErrors).toHaveProperty('spaceId');
    expect(JSON.stringify(body)).not.toContain(DEMO.keys.admin);
    const notJson = await helper.request().post('/media-spaces/test-connection').send([1, 2]);
    expect(notJson.status).toBe(400);
  });
});

describe('workflow dropdown and inputs', () => {
  it('GET /media-spaces/workflows?server= lists every workflow of the space, all pages, as {id,name,status}', async () => {
    await loadConfig();
    const res = await helper.request().get(`/media-spaces/workflows?server=${CONFIG_ID}`);
    expect(res.status).toBe(200);
    const list = res.body as Array<Record<string, unknown>>;
    expect(list.length).toBeGreaterThan(300);
    expect(list).toContainEqual({ id: DEMO.workflows.transcode, name: 'Transcode to H.264 proxy', status: 'active' });
    expect(Object.keys(list[0]).sort()).toEqual(['id', 'name', 'status']);
    expect(sim.requests().filter((r) => r.route === 'list').length).toBe(Math.ceil(list.length / 100));
  });

  it('GET with an unknown server id answers 404', async () => {
    await loadConfig();
    const res = await helper.request().get('/media-spaces/workflows?server=nope');
    expect(res.status).toBe(404);
    expect((res.body as { error: { message: string } }).error.message).toMatch(/nope/);
  });

  it('POST /media-spaces/workflows lists with the unsaved dialog settings', async () => {
    await loadConfig('wrong-deployed-key');
    const res = await helper.request().post('/media-spaces/workflows').send(dialog());
    expect(res.status).toBe(200);
    expect((res.body as unknown[]).length).toBeGreaterThan(300);
    const bad = await helper
      .request()
      .post('/media-spaces/workflows')
      .send(dialog({ apiKey: 'nope' }));
    expect(bad.status).toBe(502);
    expect((bad.body as { error: { status: number } }).error.status).toBe(401);
  });

  it('POST /media-spaces/workflow-page answers one page of the status asked and the token of the next', async () => {
    await loadConfig();
    type Page = { workflows: Array<{ id: string; name?: string; status: string }>; next: string | null };
    const seen: Page['workflows'] = [];
    let pageToken: string | null = null;
    let pages = 0;
    do {
      const res = await helper
        .request()
        .post('/media-spaces/workflow-page')
        .send(dialog({ status: 'idle', pageToken }));
      expect(res.status).toBe(200);
      const page = res.body as Page;
      expect(page.workflows.length).toBeLessThanOrEqual(100);
      seen.push(...page.workflows);
      pageToken = page.next;
      pages++;
    } while (pageToken && pages < 50);
    expect(pageToken).toBeNull();
    expect(seen.length).toBeGreaterThan(0);
    expect(seen.every((w) => w.status === 'idle')).toBe(true);
    expect(seen).toContainEqual(expect.objectContaining({ name: 'Nightly backup', status: 'idle' }));
    const all = (await helper.request().post('/media-spaces/workflows').send(dialog())).body as Page['workflows'];
    expect(seen.map((w) => w.id).sort()).toEqual(
      all
        .filter((w) => w.status === 'idle')
        .map((w) => w.id)
        .sort(),
    );
    const bad = await helper
      .request()
      .post('/media-spaces/workflow-page')
      .send(dialog({ status: 'sleeping' }));
    expect(bad.status).toBe(400);
    expect((bad.body as { error: { message: string } }).error.message).toMatch(/status/);
  });

  it('GET /media-spaces/workflow-inputs returns the declared inputs; unknown workflow is 404', async () => {
    await loadConfig();
    const res = await helper
      .request()
      .get(`/media-spaces/workflow-inputs?server=${CONFIG_ID}&workflow=${DEMO.workflows.render}`);
    expect(res.status).toBe(200);
    const body = res.body as { id: string; inputs: { variables: Array<{ name: string; typecode: string }> } };
    expect(body.id).toBe(DEMO.workflows.render);
    expect(body.inputs.variables).toContainEqual(
      expect.objectContaining({ name: 'VideoBitrateKbps', typecode: 'Int32' }),
    );
    const missing = await helper
      .request()
      .get(`/media-spaces/workflow-inputs?server=${CONFIG_ID}&workflow=${DEMO.workflows.unknown}`);
    expect(missing.status).toBe(404);
    const badId = await helper.request().get(`/media-spaces/workflow-inputs?server=${CONFIG_ID}&workflow=x`);
    expect(badId.status).toBe(400);
    expect((badId.body as { error: { message: string } }).error.message).toMatch(/workflow_id/);
  });

  it('POST /media-spaces/workflow-inputs works with the dialog settings', async () => {
    await loadConfig();
    const res = await helper
      .request()
      .post('/media-spaces/workflow-inputs')
      .send({ ...dialog(), workflow: DEMO.workflows.loudness });
    expect(res.status).toBe(200);
    expect((res.body as { inputs: { labels: unknown[] } }).inputs.labels).toHaveLength(2);
  });
});

describe('GET /media-spaces/typecodes.js', () => {
  it("serves the library's typecode rules as one browser script that agrees with the library", async () => {
    await loadConfig();
    const res = await helper.request().get('/media-spaces/typecodes.js');
    expect(res.status).toBe(200);
    const script = (res as unknown as { text: string }).text;
    // evaluated as the editor does, in a context with nothing of Node's but what browsers have too
    const rules = runInNewContext(`(${script})`, { URL }) as {
      checkTypecode(typecode: string, value: string): string | null;
      checkParameter(param: Record<string, unknown>, value: string): string | null;
    };
    const samples: Array<[string, string]> = [
      ['TimeCode', '10:00:00:00@25'],
      ['TimeCode', '25:00:00:00@25'],
      ['TimeCode', '10:00:00:25@25'],
      ['Byte', '255'],
      ['Byte', '256'],
      ['Int16', '-32769'],
      ['UInt32', '4294967295'],
      ['Boolean', 'maybe'],
      ['Uri', 's3://bucket/clip.mxf'],
      ['Uri', 'not a uri'],
      ['Double', '1e3'],
    ];
    for (const [typecode, value] of samples) {
      expect(rules.checkTypecode(typecode, value), `${typecode} ${value}`).toBe(checkTypecode(typecode, value));
    }
    const param = { typecode: 'Double', minimum_value: '-31', maximum_value: '-14', increment_value: '0.5' };
    for (const value of ['-23', '-23.3', '-40']) {
      expect(rules.checkParameter(param, value)).toBe(checkParameter(param, value));
    }
    expect(rules.checkTypecode('TimeCode', '25:00:00:00@25')).toMatch(/hours/);
  });
});

describe('permission guard', () => {
  /**
   * The config node module with RED.auth.needsPermission replaced by a guard
   * that records each permission asked for and lets a request through only
   * when its x-test-permissions header grants that permission, as Node-RED's
   * own guard does with adminAuth on.
   */
  type Guard = (
    req: { headers: Record<string, string | undefined> },
    res: { status(code: number): { end(): void } },
    next: () => void,
  ) => void;
  const guards = new Map<unknown, string>();
  const routes: string[] = [];
  const guardedConfig: NodeModule = (RED) => {
    RED.auth = {
      needsPermission(permission: string): Guard {
        const guard: Guard = (req, res, next) => {
          const granted = (req.headers['x-test-permissions'] ?? '').split(',');
          if (granted.includes(permission)) next();
          else res.status(401).end();
        };
        guards.set(guard, permission);
        return guard;
      },
    };
    // note which guard (if any) stands first in front of each route
    const app = RED.httpAdmin as Record<string, (...args: unknown[]) => unknown>;
    RED.httpAdmin = new Proxy(app, {
      get(target, prop, receiver) {
        if (prop !== 'get' && prop !== 'post') return Reflect.get(target, prop, receiver);
        return (path: string, ...handlers: unknown[]) => {
          const guard = handlers[0] as { permission?: string };
          const checked = guard.permission !== undefined && [...guards.values()].includes(guard.permission);
          routes.push(`${prop.toUpperCase()} ${path} ${checked ? guard.permission : 'UNGUARDED'}`);
          return target[prop](path, ...handlers);
        };
      },
    });
    return NODES.config(RED);
  };

  it('every endpoint is registered behind needsPermission: read for GET, write for POST', async () => {
    const others = ALL_NODES.filter((n) => n !== NODES.config);
    await helper.load([guardedConfig, ...others], [configNode(sim)], credentials());
    expect(routes.sort()).toEqual([
      'GET /media-spaces/typecodes.js media-spaces.read',
      'GET /media-spaces/workflow-inputs media-spaces.read',
      'GET /media-spaces/workflows media-spaces.read',
      'POST /media-spaces/test-connection media-spaces.write',
      'POST /media-spaces/workflow-inputs media-spaces.write',
      'POST /media-spaces/workflow-page media-spaces.write',
      'POST /media-spaces/workflows media-spaces.write',
    ]);

    const list = `/media-spaces/workflows?server=${CONFIG_ID}`;
    expect((await helper.request().get(list)).status).toBe(401);
    expect((await helper.request().get(list).set('x-test-permissions', 'media-spaces.read')).status).toBe(200);

    const post = (permissions: string) =>
      helper.request().post('/media-spaces/test-connection').set('x-test-permissions', permissions).send(dialog());
    expect((await post('media-spaces.read')).status).toBe(401);
    expect((await post('media-spaces.write')).status).toBe(200);
    expect(
      (
        await helper
          .request()
          .post('/media-spaces/workflows')
          .set('x-test-permissions', 'media-spaces.read')
          .send(dialog())
      ).status,
    ).toBe(401);
  });
});

import type { NodeModule } from 'node-red-node-test-helper';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type Simulator, startSimulator } from '../../lib/simulator';
import type { Node, NodeAPI, NodeDef } from '../../nodes/shared/node-red-types';
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

// Test connection's verdicts: test/nodes/config/test-connection.test.ts

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

describe('stored credentials follow only the deployed settings of their area', () => {
  const PLACEHOLDERS = { apiKey: '__PWRD__', accessToken: '__PWRD__', workflowToken: '__PWRD__' };
  const stored = (overrides: Record<string, unknown> = {}) => dialog({ id: CONFIG_ID, ...PLACEHOLDERS, ...overrides });
  const probe = async (body: Record<string, unknown>) => {
    const res = await helper.request().post('/media-spaces/test-connection').send(body);
    expect(res.status).toBe(200);
    const results = (res.body as { results: Array<{ area: string; ok: boolean | null; message: string }> }).results;
    return Object.fromEntries(results.map((r) => [r.area, r]));
  };
  const localhost = () => sim.workflowUrl.replace('127.0.0.1', 'localhost');

  it('any workflow-area setting changed: the stored key is not sent, the answer says so, the service sees nothing', async () => {
    await loadConfig();
    const changes: Record<string, Record<string, unknown>> = {
      'another host name for the same server': { workflowUrl: localhost(), liveCaptureUrl: sim.liveCaptureUrl },
      'another path prefix': { workflowPrefix: '/workflow/api/v1' },
      'another space': { spaceId: '22222222-2222-4222-8222-222222222222' },
      'TLS verification off': { rejectUnauthorized: false },
    };
    for (const [name, change] of Object.entries(changes)) {
      for (const body of [stored(change), dialog({ id: CONFIG_ID, ...change, apiKey: undefined })]) {
        sim.reset();
        const list = await helper.request().post('/media-spaces/workflows').send(body);
        expect(list.status, name).toBe(400);
        expect((list.body as { error: { message: string } }).error.message, name).toBe(
          'The stored API key is only sent to the deployed Workflow URL (with its Path prefix, Space ID and TLS setting); type the key to use another address.',
        );
        const r = await probe(body);
        expect(r.workflows, name).toEqual({
          area: 'workflows',
          ok: null,
          message:
            'not checked: the stored API key is only sent to the deployed Workflow URL (with its Path prefix, Space ID and TLS setting); type the key to test another address.',
        });
        expect(r.submit.ok, name).toBeNull();
        const workflowCalls = sim.requests().filter((q) => q.path.includes('/workflow'));
        expect(workflowCalls, name).toEqual([]);
      }
    }
  });

  it('the access token belongs to the live-capture address: changing it refuses only that area', async () => {
    await loadConfig();
    const r = await probe(stored({ liveCaptureUrl: localhost() }));
    expect(r.workflows.ok).toBe(true);
    expect(r.liveCapture).toEqual({
      area: 'liveCapture',
      ok: null,
      message:
        'not checked: the stored access token is only sent to the deployed Live capture URL (with its Space ID and TLS setting); type the token to test another address.',
    });
    expect(sim.requests().filter((q) => q.path.includes('/livecapture'))).toEqual([]);
    // the live-capture address is the Workflow URL when empty: the same address as deployed
    const same = await probe(stored({ liveCaptureUrl: '' }));
    expect(same.liveCapture.ok).toBe(true);
  });

  it('the same address written otherwise (trailing slashes, upper case) still uses the stored credentials', async () => {
    await loadConfig();
    const url = new URL(sim.workflowUrl);
    for (const written of [`${sim.workflowUrl}/`, `HTTP://${url.host.toUpperCase()}//`]) {
      const r = await probe(
        stored({ workflowUrl: written, liveCaptureUrl: written, spaceId: DEMO.space.toUpperCase() }),
      );
      expect(r.workflows.ok, written).toBe(true);
      expect(r.liveCapture.ok, written).toBe(true);
    }
  });

  it('typed credentials go to the settings typed', async () => {
    await loadConfig();
    const body = dialog({ id: CONFIG_ID, workflowUrl: localhost(), rejectUnauthorized: false });
    const list = await helper.request().post('/media-spaces/workflows').send(body);
    expect(list.status).toBe(200);
    const r = await probe(body);
    expect(r.workflows.ok).toBe(true);
    expect(r.liveCapture.ok).toBe(true);
  });

  it('an id that is not a deployed media-spaces-config lends no credential, even a node holding an "apiKey"', async () => {
    const keyedNode: NodeModule = (runtime) => {
      const RED = runtime as unknown as NodeAPI;
      function KeyedNode(this: Node, def: NodeDef) {
        RED.nodes.createNode(this, def);
      }
      RED.nodes.registerType('keyed-node', KeyedNode, {
        credentials: { apiKey: { type: 'password' }, accessToken: { type: 'password' } },
      });
    };
    await helper.load([...ALL_NODES, keyedNode], [configNode(sim), { id: 'keyed', type: 'keyed-node', z: '' }], {
      ...credentials(),
      keyed: { apiKey: DEMO.keys.admin, accessToken: DEMO.token },
    });
    for (const id of ['keyed', 'not-deployed']) {
      const r = await probe(stored({ id }));
      expect(r.workflows.message, id).toMatch(/^not checked: no API key/);
      expect(r.liveCapture.message, id).toMatch(/^not checked: no access token/);
    }
    expect(sim.requests()).toEqual([]);
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
      // the sign-in popup reaches these by plain navigation, without the editor's token: static, no data
      'GET /media-spaces/oauth/callback UNGUARDED',
      'GET /media-spaces/oauth/callback.js UNGUARDED',
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

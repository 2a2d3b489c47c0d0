import { readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Simulator, startSimulator } from '../../lib/simulator';
import { httpJson, type NodeRedProcess, prepareUserDir, ROOT, startNodeRed } from './support-restart/node-red';

/**
 * The editor endpoints of the package under Node-RED's adminAuth: a real
 * Node-RED whose settings.js has users "admin" (permissions "*"), "reader"
 * ("read"), "flows" (["flows.read"] only) and "scraper" (["media-spaces.metrics"],
 * a Prometheus token's scope), and no anonymous access.
 * Every /media-spaces/* route the package registers (found in the sources,
 * so a new route without a row here fails the suite) is called without a
 * token, with each user's token, and must:
 * - answer 401 without a token;
 * - answer 403 to a signed-in user lacking its permission (Node-RED 4's
 *   needsPermission answers 401, which the editor takes as "sign in
 *   again"; the package turns it into 403) and log the audit event
 *   "permission.fail" naming the permission), without running the handler
 *   (the simulator sees no request);
 * - answer 200, or the route's own 4xx for a bad request, to a permitted user.
 */

const require = createRequire(import.meta.url);
const bcrypt = require('bcryptjs') as { hashSync(text: string, rounds: number): string };

const SPACE = '11111111-1111-4111-8111-111111111111';
const WORKFLOW = 'aaaaaaaa-0000-4000-8000-000000000006';
const SCHEDULE = 'auth0schedule0001';
const PASSWORDS = {
  admin: 'admin-pass-3c9e',
  reader: 'reader-pass-71fa',
  flows: 'flows-pass-0b2d',
  scraper: 'scraper-pass-5e07',
};

type Permission = 'media-spaces.read' | 'media-spaces.write';

interface Route {
  method: 'GET' | 'POST';
  /** As registered (with :params). */
  path: string;
  /** What is called, where the path has :params. */
  url?: string;
  permission: Permission;
  /** A request the handler answers 200 to. */
  ok: { query?: string; body?: unknown };
  /** A bad request the handler answers with its own 4xx. */
  bad: { query?: string; body?: unknown; status: number };
  /** Whether a permitted call reaches the service. */
  callsService: boolean;
}

const YAML = 'windows:\n  - id: w\n    cron: "0 18 * * *"\n    duration: 1h\n';

/**
 * The sign-in callback (nodes/config/oauth-callback.ts) is reached by the sign-in popup's plain
 * navigation, which carries no editor token, so it is public: a static page and its script that
 * post the URL fragment to the opening editor window of the same origin, holding no data.
 */
const PUBLIC_ROUTES = [
  { path: '/media-spaces/oauth/callback', type: 'text/html' },
  { path: '/media-spaces/oauth/callback.js', type: 'application/javascript' },
];

function routes(sim: Simulator): Route[] {
  const dialog = {
    workflowUrl: sim.workflowUrl,
    spaceId: SPACE,
    apiKey: 'demo-admin-key',
    accessToken: 'demo-live-token',
  };
  return [
    {
      method: 'POST',
      path: '/media-spaces/test-connection',
      permission: 'media-spaces.write',
      ok: { body: dialog },
      // a wrong setting is an answer (200, "not checked: …"); a body that is no object is the route's 400
      bad: { body: [1, 2], status: 400 },
      callsService: true,
    },
    {
      method: 'GET',
      path: '/media-spaces/workflows',
      permission: 'media-spaces.read',
      ok: { query: '?server=auth0config000001' },
      bad: { query: '?server=no-such-config', status: 404 },
      callsService: true,
    },
    {
      method: 'POST',
      path: '/media-spaces/workflows',
      permission: 'media-spaces.write',
      ok: { body: dialog },
      bad: { body: { ...dialog, workflowUrl: 'ftp://example.com' }, status: 400 },
      callsService: true,
    },
    {
      method: 'POST',
      path: '/media-spaces/workflow-page',
      permission: 'media-spaces.write',
      ok: { body: { ...dialog, status: 'active' } },
      bad: { body: { ...dialog, spaceId: 'not-a-uuid' }, status: 400 },
      callsService: true,
    },
    {
      method: 'GET',
      path: '/media-spaces/workflow-inputs',
      permission: 'media-spaces.read',
      ok: { query: `?server=auth0config000001&workflow=${WORKFLOW}` },
      bad: { query: '?server=auth0config000001&workflow=../../x', status: 400 },
      callsService: true,
    },
    {
      method: 'POST',
      path: '/media-spaces/workflow-inputs',
      permission: 'media-spaces.write',
      ok: { body: { ...dialog, workflow: WORKFLOW } },
      bad: { body: { ...dialog, workflow: 'nope' }, status: 400 },
      callsService: true,
    },
    {
      method: 'GET',
      path: '/media-spaces/schedule/preview',
      permission: 'media-spaces.read',
      ok: { query: `?yaml=${encodeURIComponent(YAML)}` },
      bad: { query: '', status: 400 },
      callsService: false,
    },
    {
      method: 'POST',
      path: '/media-spaces/schedule/preview',
      permission: 'media-spaces.read',
      ok: { body: { yaml: YAML } },
      bad: { body: {}, status: 400 },
      callsService: false,
    },
    {
      method: 'POST',
      path: '/media-spaces/schedule/pattern',
      permission: 'media-spaces.read',
      ok: { body: { pattern: '^REC ' } },
      bad: { body: {}, status: 400 },
      callsService: false,
    },
    {
      // an address in the request also needs flows.write (admin has it): see security-stored-credentials
      method: 'POST',
      path: '/media-spaces/schedule/test-feed',
      permission: 'media-spaces.write',
      ok: { body: { window: { id: 'w', ical: join(ROOT, 'test', 'fixtures', 'feeds', 'newsroom.ics') } } },
      bad: { body: {}, status: 400 },
      callsService: false,
    },
    {
      method: 'GET',
      path: '/media-spaces/activity',
      permission: 'media-spaces.read',
      ok: {},
      bad: { query: '', status: 0 },
      callsService: false,
    },
    {
      method: 'GET',
      path: '/media-spaces/as-run',
      permission: 'media-spaces.read',
      ok: { query: '?format=csv' },
      bad: { query: '?format=xlsx', status: 400 },
      callsService: false,
    },
    {
      method: 'GET',
      path: '/media-spaces/metrics',
      permission: 'media-spaces.read',
      ok: {},
      bad: { query: '', status: 0 },
      callsService: false,
    },
    {
      method: 'POST',
      path: '/media-spaces/schedules/:id/windows/:window/reload',
      url: `/media-spaces/schedules/${SCHEDULE}/windows/cal/reload`,
      permission: 'media-spaces.write',
      ok: { body: {} },
      bad: { query: '', status: 0 },
      callsService: false,
    },
    {
      method: 'POST',
      path: '/media-spaces/schedules/:id/:action',
      url: `/media-spaces/schedules/${SCHEDULE}/resume`,
      permission: 'media-spaces.write',
      ok: { body: {} },
      bad: { body: { window: 7 }, status: 400 },
      callsService: false,
    },
  ];
}

/** Every `RED.httpAdmin.<method>(path, ...)` in the node sources, with constant paths resolved. */
function registeredRoutes(): string[] {
  const found: string[] = [];
  const nodes = join(ROOT, 'nodes');
  const dirs = readdirSync(nodes, { withFileTypes: true })
    .filter((d) => d.isDirectory())
    .map((d) => join(nodes, d.name));
  for (const dir of dirs) {
    for (const name of readdirSync(dir).filter((f) => f.endsWith('.ts'))) {
      const source = readFileSync(join(dir, name), 'utf8');
      const calls = source.matchAll(/httpAdmin\s*\.\s*(get|post|put|delete|patch|all|use)\s*\(\s*([^,\s)]+)/g);
      for (const [, method, first] of calls) {
        let path = first;
        if (!/^['"`]/.test(first)) {
          const constant = new RegExp(`const\\s+${first}\\s*=\\s*(['"\`])([^'"\`]+)\\1`).exec(source);
          path = constant ? constant[2] : `<unresolved ${first}>`;
        } else {
          path = first.slice(1, -1);
        }
        found.push(`${method.toUpperCase()} ${path}`);
      }
    }
  }
  return found.sort();
}

describe('security: editor endpoints under adminAuth', () => {
  const userDir = join(ROOT, 'test', '.tmp', 'reliability-security', `admin-auth-${process.pid}`);
  let sim: Simulator;
  let red: NodeRedProcess;
  const tokens: Record<string, string> = {};

  beforeAll(async () => {
    sim = await startSimulator();
    const info = sim.info();
    prepareUserDir({
      dir: userDir,
      flows: [
        { id: 'auth0tab00000001', type: 'tab', label: 'auth', disabled: false, info: '' },
        {
          id: 'auth0config000001',
          type: 'media-spaces-config',
          name: 'sim',
          workflowUrl: info.workflow_url,
          liveCaptureUrl: '',
          spaceId: SPACE,
          workflowPrefix: '/workflow/v1',
          timeout: '5000',
          retries: '0',
          rejectUnauthorized: true,
        },
        {
          id: SCHEDULE,
          type: 'media-spaces-schedule',
          z: 'auth0tab00000001',
          name: 'auth schedule',
          source: 'yaml',
          // a calendar window besides the cron one: "Reload feed" is one of the routes checked
          yaml: `${YAML}  - id: cal\n    ical: ${JSON.stringify(join(ROOT, 'test', 'fixtures', 'feeds', 'newsroom.ics'))}\n`,
          wires: [[], [], []],
        },
      ],
      credentials: { auth0config000001: { apiKey: 'demo-admin-key', accessToken: 'demo-live-token' } },
      audit: true,
      settings: `  adminAuth: {
    type: 'credentials',
    users: [
      { username: 'admin', password: ${JSON.stringify(bcrypt.hashSync(PASSWORDS.admin, 8))}, permissions: '*' },
      { username: 'reader', password: ${JSON.stringify(bcrypt.hashSync(PASSWORDS.reader, 8))}, permissions: 'read' },
      { username: 'flows', password: ${JSON.stringify(bcrypt.hashSync(PASSWORDS.flows, 8))}, permissions: ['flows.read'] },
      { username: 'scraper', password: ${JSON.stringify(bcrypt.hashSync(PASSWORDS.scraper, 8))}, permissions: ['media-spaces.metrics'] },
    ],
  },
`,
    });
    red = await startNodeRed({ userDir });
    for (const [username, password] of Object.entries(PASSWORDS)) {
      const r = await httpJson(`${red.url}/auth/token`, {
        method: 'POST',
        // scope '' asks for the user's own permissions
        body: {
          client_id: 'node-red-admin',
          grant_type: 'password',
          scope: username === 'admin' ? '*' : '',
          username,
          password,
        },
      });
      expect(r.status, `token for ${username}: ${r.text}`).toBe(200);
      tokens[username] = (r.json as { access_token: string }).access_token;
    }
  }, 90_000);

  afterAll(async () => {
    await red?.stop();
    await sim?.close();
  });

  const call = (route: Route, variant: { query?: string; body?: unknown }, token?: string) =>
    httpJson(`${red.url}${route.url ?? route.path}${variant.query ?? ''}`, {
      method: route.method,
      token,
      body: route.method === 'POST' ? (variant.body ?? {}) : undefined,
    });

  it('has a row here for every /media-spaces route the package registers', () => {
    const table = [
      ...routes(sim).map((r) => `${r.method} ${r.path}`),
      ...PUBLIC_ROUTES.map((r) => `GET ${r.path}`),
    ].sort();
    expect(registeredRoutes()).toEqual(table);
  });

  it('serves the sign-in callback page without a token: static, own script only, never framed or cached', async () => {
    for (const route of PUBLIC_ROUTES) {
      const res = await fetch(`${red.url}${route.path}`);
      expect(res.status, route.path).toBe(200);
      expect(res.headers.get('content-type'), route.path).toContain(route.type);
      expect(res.headers.get('content-security-policy'), route.path).toBe(
        "default-src 'none'; script-src 'self'; frame-ancestors 'none'",
      );
      expect(res.headers.get('cache-control'), route.path).toBe('no-store');
      const text = await res.text();
      // nothing of the runtime's: no credential, no setting, no flow
      expect(text, route.path).not.toMatch(/demo-admin-key|demo-live-token|workflowUrl|11111111-1111/);
    }
  });

  it('refuses requests without a token, and Node-RED itself is closed to them too', async () => {
    expect((await httpJson(`${red.url}/flows`)).status).toBe(401);
    for (const route of routes(sim)) {
      const before = sim.requests().length;
      const r = await call(route, route.ok);
      expect(r.status, `${route.method} ${route.path} without a token`).toBe(401);
      expect(sim.requests().length, 'the handler did not run').toBe(before);
      const wrong = await call(route, route.ok, 'not-a-real-token');
      expect(wrong.status, `${route.method} ${route.path} with a made-up token`).toBe(401);
    }
  });

  it('refuses signed-in users lacking the permission (403, not the 401 the editor takes as "sign in again"; an audit event) without running the handler', async () => {
    const denied: Array<[string, Route]> = [];
    for (const route of routes(sim)) {
      if (route.permission.endsWith('.write')) denied.push(['reader', route]);
      denied.push(['flows', route]);
    }
    for (const [user, route] of denied) {
      const before = sim.requests().length;
      const r = await call(route, route.ok, tokens[user]);
      expect(r.status, `${user}: ${route.method} ${route.path}`).toBe(403);
      expect(sim.requests().length, `${user}: ${route.method} ${route.path} reached the service`).toBe(before);
    }
    const audit = red
      .output()
      .split('\n')
      .filter((l) => l.includes('"event":"permission.fail"'));
    for (const [user, route] of denied) {
      expect(
        audit.some((l) => l.includes(`"username":"${user}"`) && l.includes(`"permissions":"${route.permission}"`)),
        `audit permission.fail for ${user} on ${route.permission}`,
      ).toBe(true);
    }
  });

  it('a scraper (media-spaces.metrics) reads the metrics and nothing else', async () => {
    const table = routes(sim);
    const metrics = table.find((r) => r.path === '/media-spaces/metrics') as Route;
    const scraped = await call(metrics, metrics.ok, tokens.scraper);
    expect(scraped.status).toBe(200);
    expect(scraped.text).toContain('# TYPE media_spaces_');
    for (const route of table.filter((r) => r !== metrics)) {
      const before = sim.requests().length;
      const r = await call(route, route.ok, tokens.scraper);
      expect(r.status, `scraper: ${route.method} ${route.path}`).toBe(403);
      expect(sim.requests().length, `scraper: ${route.method} ${route.path} reached the service`).toBe(before);
    }
  });

  it('serves permitted users: 200, or the route’s own 4xx for a bad request', async () => {
    for (const route of routes(sim)) {
      const users = route.permission.endsWith('.write') ? ['admin'] : ['admin', 'reader'];
      for (const user of users) {
        const before = sim.requests().length;
        const r = await call(route, route.ok, tokens[user]);
        expect(r.status, `${user}: ${route.method} ${route.path}: ${r.text.slice(0, 300)}`).toBe(200);
        if (route.callsService) expect(sim.requests().length).toBeGreaterThan(before);
        if (route.bad.status !== 0) {
          const bad = await call(route, route.bad, tokens[user]);
          expect(bad.status, `${user}: bad ${route.method} ${route.path}: ${bad.text.slice(0, 300)}`).toBe(
            route.bad.status,
          );
        }
      }
    }
    const route = (method: string, path: string) =>
      routes(sim).find((r) => r.method === method && r.path === path) as Route;
    const previewRoute = route('GET', '/media-spaces/schedule/preview');
    const preview = await call(previewRoute, previewRoute.ok, tokens.reader);
    expect(preview.json).toMatchObject({ ok: true });
    const listRoute = route('GET', '/media-spaces/workflows');
    const list = await call(listRoute, listRoute.ok, tokens.reader);
    expect(Array.isArray(list.json) && (list.json as unknown[]).length).toBeGreaterThan(0);
  });
});

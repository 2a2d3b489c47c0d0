import { readdirSync, readFileSync } from 'node:fs';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Simulator, startSimulator } from '../../lib/simulator';
import { fragmentOf, signIn } from '../support/oauth';
import { leaks } from './security-support';
import { httpJson, type NodeRedProcess, prepareUserDir, ROOT, startNodeRed } from './support-restart/node-red';

/**
 * The stored credentials of a deployed config node never leave for an address
 * the caller chose. A real Node-RED under adminAuth has a user "operator" with
 * the permissions `read` and `media-spaces.write`: it may call the service from
 * the editor but may not deploy, nor read credentials. It posts to every
 * editor route that takes the dialog's settings the id of a deployed config
 * node and the address of a listener on loopback standing in for an attacker
 * (both URLs, one of them, or the attacker hidden in a URL's user info), with
 * the editor's `__PWRD__` placeholder for the stored passwords and without the
 * fields at all. The listener must receive no request, so no Authorization
 * header carrying the stored API key, access token or sign-in token; the
 * answer says the stored credential is only sent to the deployed address. The
 * same user calling with the deployed settings still gets a true verdict per
 * area and the workflow lists, and a key typed into the request does reach
 * the listener (so its silence means something).
 */

const require = createRequire(import.meta.url);
const bcrypt = require('bcryptjs') as { hashSync(text: string, rounds: number): string };

const SPACE = '11111111-1111-4111-8111-111111111111';
const WORKFLOW = 'aaaaaaaa-0000-4000-8000-000000000006';
const KEY = 'demo-admin-key';
const LIVE = 'demo-live-token';
const TYPED = 'typed-key-for-another-address-5e1f';
/** A config node holding an API key and an access token; its live-capture URL is left empty (the workflow URL). */
const KEYED = 'cred0keyed0000001';
/** A config node signed in: a sign-in token instead of an API key. */
const SIGNED = 'cred0signed000001';
/** A disabled config node: its credentials are stored, but it is not deployed. */
const DISABLED = 'cred0disabled0001';
const PASSWORD = 'operator-pass-8d4a';
/** A schedule whose window reads a private calendar address: its `feeds` credential holds the address. */
const SCHEDULE = 'cred0schedule0001';
const PRIVATE_FEED = join(ROOT, 'test', 'fixtures', 'feeds', 'newsroom.ics');
const FEED_WINDOW = { id: 'cal', ical: 'private', match: { title: '^REC ' }, padding: { before: '2m', after: '5m' } };

interface Recorded {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
  body: string;
}

/** Records every request with its headers and body; answers like an unknown route. */
async function startAttacker(): Promise<{ server: Server; url: string; seen: Recorded[] }> {
  const seen: Recorded[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      seen.push({
        method: req.method ?? '',
        url: req.url ?? '',
        headers: req.headers,
        body: Buffer.concat(chunks).toString('utf8'),
      });
      res.writeHead(404, { 'content-type': 'application/json' });
      res.end('{"error":{"code":"not_found","message":"no such route"}}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return { server, url: `http://127.0.0.1:${port}`, seen };
}

/** The editor routes that take the dialog's settings (POST), with what each needs besides them. */
const DIALOG_ROUTES: Array<{ path: string; extra: Record<string, unknown> }> = [
  { path: '/media-spaces/test-connection', extra: {} },
  { path: '/media-spaces/workflows', extra: {} },
  { path: '/media-spaces/workflow-page', extra: { status: 'active' } },
  { path: '/media-spaces/workflow-inputs', extra: { workflow: WORKFLOW } },
];

interface Verdict {
  area: string;
  ok: boolean | null;
  message: string;
}

describe('security: stored credentials go only to the deployed address', () => {
  const userDir = join(ROOT, 'test', '.tmp', 'reliability-security', `stored-credentials-${process.pid}`);
  let sim: Simulator;
  let attacker: Awaited<ReturnType<typeof startAttacker>>;
  let red: NodeRedProcess;
  let token = '';
  let signedToken = '';

  beforeAll(async () => {
    sim = await startSimulator();
    attacker = await startAttacker();
    const { location } = await signIn(sim.workflowUrl, {
      username: 'producer',
      password: 'producer-password',
      scope: 'workflow:workflow-management',
      spaceId: SPACE,
    });
    signedToken = fragmentOf(location).access_token;
    expect(signedToken).toBeTruthy();
    const config = (id: string, extra: Record<string, unknown>) => ({
      id,
      type: 'media-spaces-config',
      // not the id: Node-RED takes a property equal to a config node's id for a reference to it
      name: `config ${id.slice(-6)}`,
      workflowUrl: sim.workflowUrl,
      spaceId: SPACE,
      workflowPrefix: '/workflow/v1',
      timeout: '5000',
      retries: '0',
      rejectUnauthorized: true,
      ...extra,
    });
    prepareUserDir({
      dir: userDir,
      flows: [
        { id: 'cred0tab000000001', type: 'tab', label: 'credentials', disabled: false, info: '' },
        config(KEYED, { liveCaptureUrl: '' }),
        config(SIGNED, { liveCaptureUrl: sim.liveCaptureUrl }),
        config(DISABLED, { liveCaptureUrl: '', d: true }),
        {
          id: SCHEDULE,
          type: 'media-spaces-schedule',
          z: 'cred0tab000000001',
          name: 'feeds',
          source: 'editor',
          windows: [FEED_WINDOW],
          timezone: 'Europe/Berlin',
          wires: [[], [], []],
        },
      ],
      credentials: {
        [KEYED]: { apiKey: KEY, accessToken: LIVE },
        [SIGNED]: { workflowToken: signedToken, workflowTokenExpiresAt: String(Date.now() + 3_600_000) },
        [DISABLED]: { apiKey: KEY, accessToken: LIVE },
        [SCHEDULE]: { feeds: JSON.stringify({ cal: { location: PRIVATE_FEED, user: 'ann', password: PASSWORD } }) },
      },
      settings: `  adminAuth: {
    type: 'credentials',
    users: [
      { username: 'operator', password: ${JSON.stringify(bcrypt.hashSync(PASSWORD, 8))}, permissions: ['read', 'media-spaces.write'] },
    ],
  },
`,
    });
    red = await startNodeRed({ userDir });
    const r = await httpJson(`${red.url}/auth/token`, {
      method: 'POST',
      body: {
        client_id: 'node-red-admin',
        grant_type: 'password',
        scope: '',
        username: 'operator',
        password: PASSWORD,
      },
    });
    expect(r.status, r.text).toBe(200);
    token = (r.json as { access_token: string }).access_token;
  }, 90_000);

  afterAll(async () => {
    await red?.stop();
    await sim?.close();
    await new Promise((resolve) => attacker?.server.close(resolve));
  });

  const post = (path: string, body: Record<string, unknown>) =>
    httpJson(`${red.url}${path}`, { method: 'POST', token, body });

  /** The config dialog's fields as the editor sends them, before the per-case changes. */
  const dialog = (id: string, overrides: Record<string, unknown>) => ({
    id,
    name: `config ${id.slice(-6)}`,
    workflowUrl: sim.workflowUrl,
    liveCaptureUrl: '',
    spaceId: SPACE,
    workflowPrefix: '/workflow/v1',
    timeout: '5000',
    retries: '0',
    rejectUnauthorized: true,
    ...overrides,
  });

  const PLACEHOLDERS = { apiKey: '__PWRD__', accessToken: '__PWRD__', workflowToken: '__PWRD__' };
  const secrets = () => [KEY, LIVE, signedToken];

  it('the operator may not deploy: the premise of the attack', async () => {
    const flows = await httpJson(`${red.url}/flows`, { token });
    expect(flows.status).toBe(200);
    const deploy = await httpJson(`${red.url}/flows`, { method: 'POST', token, body: flows.json });
    // Node-RED's own guard answers 401 to a signed-in user lacking flows.write
    expect([401, 403]).toContain(deploy.status);
    const creds = await httpJson(`${red.url}/credentials/media-spaces-config/${KEYED}`, { token });
    expect(creds.text).not.toContain(KEY);
  });

  it('attacks every dialog route of the package: each registered POST route of admin-routes.ts is in the list', () => {
    const source = readFileSync(join(ROOT, 'nodes', 'config', 'admin-routes.ts'), 'utf8');
    const posts = [...source.matchAll(/httpAdmin\.post\(\s*'([^']+)'/g)].map((m) => m[1]).sort();
    expect(posts).toEqual(DIALOG_ROUTES.map((r) => r.path).sort());
    // and no other source reads a stored credential: the coordination node's Redis password goes to its deployed Redis only
    const readers: string[] = [];
    for (const dir of readdirSync(join(ROOT, 'nodes'), { withFileTypes: true }).filter((d) => d.isDirectory())) {
      for (const name of readdirSync(join(ROOT, 'nodes', dir.name)).filter((f) => f.endsWith('.ts'))) {
        const text = readFileSync(join(ROOT, 'nodes', dir.name, name), 'utf8');
        if (/getCredentials|\b(?:this|node)\.credentials\b|\.storedCredentialsFor\(/.test(text))
          readers.push(`${dir.name}/${name}`);
      }
    }
    expect(readers.sort()).toEqual([
      'config/admin-routes.ts',
      'config/controller.ts',
      'coordination/controller.ts',
      'schedule/deployed-feed.ts',
      // the feeds credential goes to the window's own feed address only (feedAccess)
      'schedule/feed-access.ts',
    ]);
  });

  it('sends no stored credential to the address the caller names, on every route, with the placeholder and without it', async () => {
    const hidden = attacker.url.replace('http://', `http://${new URL(sim.workflowUrl).host}@`);
    const targets: Array<{ name: string; fields: Record<string, unknown>; workflowAttacked: boolean }> = [
      {
        name: 'both URLs',
        fields: { workflowUrl: attacker.url, liveCaptureUrl: attacker.url },
        workflowAttacked: true,
      },
      { name: 'workflow URL only', fields: { workflowUrl: attacker.url }, workflowAttacked: true },
      {
        name: 'workflow URL, live capture the deployed one',
        fields: { workflowUrl: attacker.url, liveCaptureUrl: sim.liveCaptureUrl },
        workflowAttacked: true,
      },
      { name: 'live-capture URL only', fields: { liveCaptureUrl: attacker.url }, workflowAttacked: false },
      {
        name: 'the deployed host as user info',
        fields: { workflowUrl: hidden, liveCaptureUrl: hidden },
        workflowAttacked: true,
      },
      {
        name: 'trailing path and upper case',
        fields: { workflowUrl: `${attacker.url.toUpperCase()}/`, liveCaptureUrl: `${attacker.url}//` },
        workflowAttacked: true,
      },
    ];
    const variants = [
      { name: 'placeholder', fields: PLACEHOLDERS },
      { name: 'no credential fields', fields: {} },
    ];
    let attacks = 0;
    for (const id of [KEYED, SIGNED]) {
      for (const target of targets) {
        for (const variant of variants) {
          for (const route of DIALOG_ROUTES) {
            const label = `${route.path} ${id} ${target.name}, ${variant.name}`;
            const before = attacker.seen.length;
            const r = await post(route.path, dialog(id, { ...route.extra, ...target.fields, ...variant.fields }));
            attacks++;
            expect(attacker.seen.slice(before), `${label}: the attacker got requests`).toEqual([]);
            expect(r.text, label).not.toMatch(new RegExp(secrets().join('|')));
            if (route.path === '/media-spaces/test-connection') {
              expect(r.status, label).toBe(200);
              const results = (r.json as { results: Verdict[] }).results;
              const area = (name: string) => results.find((v) => v.area === name) as Verdict;
              if (target.workflowAttacked) {
                expect(area('workflows'), label).toMatchObject({
                  ok: null,
                  message: expect.stringMatching(
                    id === KEYED
                      ? /^not checked: the stored API key is only sent to the deployed Workflow URL .*; type the key to test another address\.$/
                      : /^not checked: the stored sign-in token is only sent to the deployed Workflow URL .*; Sign in again or type an API key to test another address\.$/,
                  ),
                });
              } else {
                expect(area('workflows'), label).toMatchObject({ ok: true });
              }
              const liveAttacked = String(target.fields.liveCaptureUrl ?? target.fields.workflowUrl).includes(
                `:${new URL(attacker.url).port}`,
              );
              if (id === KEYED && liveAttacked) {
                expect(area('liveCapture').message, label).toBe(
                  'not checked: the stored access token is only sent to the deployed Live capture URL (with its Space ID and TLS setting); type the token to test another address.',
                );
              }
            } else if (target.workflowAttacked) {
              expect(r.status, label).toBe(400);
              expect((r.json as { error: { message: string } }).error.message, label).toMatch(
                /^The stored (API key|sign-in token) is only sent to the deployed Workflow URL .*to use another address\.$/,
              );
            } else {
              // the workflow routes use only the workflow area, which is the deployed one here
              expect(r.status, label).toBe(200);
            }
          }
        }
      }
    }
    expect(attacks).toBe(2 * targets.length * variants.length * DIALOG_ROUTES.length);
    const headers = Object.fromEntries(attacker.seen.map((s, i) => [`request ${i}`, JSON.stringify(s)]));
    expect(leaks(secrets(), headers)).toEqual([]);
  });

  it('a config node that is not deployed (disabled) lends no stored credential, not even to its own address', async () => {
    const before = sim.requests().length;
    for (const variant of [PLACEHOLDERS, {}]) {
      const r = await post('/media-spaces/test-connection', dialog(DISABLED, variant));
      expect(r.status).toBe(200);
      const results = (r.json as { results: Verdict[] }).results;
      expect(results.find((v) => v.area === 'workflows')?.message).toMatch(/^not checked: no API key/);
      expect(results.find((v) => v.area === 'liveCapture')?.message).toMatch(/^not checked: no access token/);
    }
    expect(sim.requests().length).toBe(before);
  });

  it('the same operator testing the deployed settings gets a true verdict per area and the workflow lists', async () => {
    for (const variant of [PLACEHOLDERS, {}]) {
      const keyed = await post('/media-spaces/test-connection', dialog(KEYED, variant));
      expect(keyed.status).toBe(200);
      expect(keyed.json, keyed.text).toMatchObject({
        ok: true,
        results: [
          { area: 'workflows', ok: true, message: expect.stringMatching(/^OK: the API key can list/) },
          { area: 'submit', ok: true },
          { area: 'liveCapture', ok: true, message: 'OK: the access token is accepted.' },
        ],
      });
      // the signed-in config names its live-capture URL, the same address: the dialog may leave it empty
      const signed = await post('/media-spaces/test-connection', dialog(SIGNED, variant));
      expect(signed.json, signed.text).toMatchObject({
        ok: true,
        results: [
          { area: 'workflows', ok: true, message: expect.stringMatching(/^OK: the sign-in token can list/) },
          { area: 'submit', ok: true },
          { area: 'liveCapture', ok: null, message: expect.stringMatching(/^not checked: no access token/) },
        ],
      });
      for (const id of [KEYED, SIGNED]) {
        const list = await post('/media-spaces/workflows', dialog(id, variant));
        expect(list.status, list.text).toBe(200);
        expect((list.json as unknown[]).length).toBeGreaterThan(0);
        const page = await post('/media-spaces/workflow-page', dialog(id, { ...variant, status: 'active' }));
        expect(page.status, page.text).toBe(200);
        expect((page.json as { workflows: unknown[] }).workflows.length).toBeGreaterThan(0);
        const inputs = await post('/media-spaces/workflow-inputs', dialog(id, { ...variant, workflow: WORKFLOW }));
        expect(inputs.status, inputs.text).toBe(200);
        expect(inputs.json).toMatchObject({ id: WORKFLOW });
      }
    }
    expect(attacker.seen).toEqual([]);
  });

  it('the operator tests the deployed schedule’s private feed, but no address or credential of its own (that takes flows.write)', async () => {
    const own = await post('/media-spaces/schedule/test-feed', { node: SCHEDULE, window: FEED_WINDOW });
    expect(own.status, own.text).toBe(200);
    expect(own.json).toMatchObject({ ok: true, window: 'cal', timezone: 'Europe/Berlin' });
    expect((own.json as { occurrences: unknown[] }).occurrences.length).toBeGreaterThan(0);
    // the stored address is never sent back
    expect(own.text).not.toContain('newsroom.ics');
    expect(own.text).not.toContain('fixtures');
    const seen = attacker.seen.length;
    for (const body of [
      { node: SCHEDULE, window: { ...FEED_WINDOW, ical: `${attacker.url}/feed.ics` } },
      { node: SCHEDULE, window: FEED_WINDOW, secret: { location: `${attacker.url}/feed.ics` } },
      { node: SCHEDULE, window: FEED_WINDOW, secret: { token: 'typed-token' } },
      { window: { id: 'elsewhere', xmltv: '/etc/passwd' } },
      { node: 'no-such-node', window: { ...FEED_WINDOW, ical: `${attacker.url}/feed.ics` } },
    ]) {
      const r = await post('/media-spaces/schedule/test-feed', body);
      expect(r.status, `${JSON.stringify(body)}: ${r.text}`).toBe(403);
      expect(r.text).not.toContain('newsroom.ics');
    }
    expect(attacker.seen.length).toBe(seen);
  });

  it('a key typed into the request goes where the request says (so the listener would have seen a stored one)', async () => {
    const r = await post(
      '/media-spaces/test-connection',
      dialog(KEYED, { workflowUrl: attacker.url, apiKey: TYPED, accessToken: '__PWRD__' }),
    );
    expect(r.status).toBe(200);
    const got = attacker.seen.map((s) => s.headers.authorization);
    expect(got.length).toBeGreaterThan(0);
    expect(got.every((a) => a === `Bearer ${TYPED}`)).toBe(true);
    // the access token stayed home: the live-capture area followed the workflow URL to the attacker
    expect(leaks(secrets(), { attacker: JSON.stringify(attacker.seen) })).toEqual([]);
  });
});

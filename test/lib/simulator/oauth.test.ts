import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { parseFixture, type Simulator, startSimulator } from '../../../lib/simulator';
import { KEYS, libraryFixture, SPACE, TOKEN_LIFETIME_S, TOKENS, USERS, WF } from '../../support/fixture';
import { authorizeUrl, formOf, fragmentOf, REDIRECT_URI, signIn } from '../../support/oauth';

/**
 * The description: "The workflow area declares an OAuth 2.0 implicit-flow security scheme
 * with authorization path /auth/oauth2" and the scopes workflow:access,
 * workflow:workflow-management and workflow:admin, which "form a hierarchy".
 */

let sim: Simulator;
beforeAll(async () => {
  sim = await startSimulator({ fixture: libraryFixture(), manualClock: true, startTime: '2025-06-01T08:00:00Z' });
});
afterAll(() => sim.close());
beforeEach(() => sim.reset());

const editor = (extra: Partial<Parameters<typeof signIn>[1]> = {}) =>
  signIn(sim.workflowUrl, {
    ...USERS.editor,
    scope: 'workflow:workflow-management',
    spaceId: SPACE,
    state: 'st-123',
    ...extra,
  });
const api = (path: string, token: string, init: RequestInit = {}) =>
  fetch(`${sim.workflowUrl}/workflow/v1/${SPACE}${path}`, {
    ...init,
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
  });

describe('GET /auth/oauth2: the sign-in page', () => {
  it('is a plain HTML form with no scripts or external assets, safe to open in a popup', async () => {
    const res = await fetch(authorizeUrl(sim.workflowUrl, { scope: 'workflow:access', state: 'x', spaceId: SPACE }));
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(res.headers.get('content-security-policy')).toContain("default-src 'none'");
    expect(res.headers.get('cache-control')).toBe('no-store');
    const html = await res.text();
    expect(html).toContain('<form method="post" action="/auth/oauth2">');
    expect(html).not.toMatch(/<script|<link|src=/i);
    expect(html).toContain(`<option value="${SPACE}" selected>`);
    expect(Object.fromEntries(formOf(html, {}))).toEqual({
      response_type: 'token',
      client_id: 'node-red-media-spaces',
      redirect_uri: REDIRECT_URI,
      scope: 'workflow:access',
      state: 'x',
    });
  });

  it('escapes what it echoes', async () => {
    const res = await fetch(authorizeUrl(sim.workflowUrl, { scope: 'workflow:access', clientId: '<b>"x"</b>' }));
    const html = await res.text();
    expect(html).not.toContain('<b>');
    expect(html).toContain('&lt;b&gt;&quot;x&quot;&lt;/b&gt;');
  });

  it('never redirects to a redirect_uri that breaks the rule (RFC 6749 4.2.2.1): 400 page instead', async () => {
    for (const redirectUri of [
      '',
      'relative/cb',
      'ftp://127.0.0.1/cb',
      'https://evil.example.com/cb',
      'http://127.0.0.1/cb#frag',
      'http://user:pw@localhost/cb',
    ]) {
      const res = await fetch(authorizeUrl(sim.workflowUrl, { scope: 'workflow:access', redirectUri }), {
        redirect: 'manual',
      });
      expect(res.status, redirectUri).toBe(400);
      expect(res.headers.get('location')).toBeNull();
      expect(await res.text()).toContain('redirect_uri');
    }
    for (const redirectUri of ['http://localhost:1880/cb', 'https://127.0.0.2/x', 'http://[::1]:1880/cb']) {
      const res = await fetch(authorizeUrl(sim.workflowUrl, { scope: 'workflow:access', redirectUri }));
      expect(res.status, redirectUri).toBe(200);
    }
  });

  it('hosts listed under oauth.redirect_hosts are allowed too', () => {
    const fixture = parseFixture({ ...libraryFixture(), oauth: { redirect_hosts: ['node-red.lan'] } });
    expect(fixture.oauth).toEqual({ token_lifetime_seconds: 3600, redirect_hosts: ['node-red.lan'] });
  });

  it('redirects errors of a sound client to its redirect_uri: unsupported_response_type, invalid_scope', async () => {
    const bad = async (query: string) => {
      const res = await fetch(
        `${sim.workflowUrl}/auth/oauth2?client_id=c&redirect_uri=${encodeURIComponent(REDIRECT_URI)}&state=s&${query}`,
        { redirect: 'manual' },
      );
      expect(res.status).toBe(302);
      expect(res.headers.get('location')?.startsWith(`${REDIRECT_URI}#`)).toBe(true);
      return fragmentOf(res.headers.get('location'));
    };
    expect(await bad('response_type=code&scope=workflow:access')).toMatchObject({
      error: 'unsupported_response_type',
      state: 's',
    });
    expect(await bad('response_type=token&scope=workflow:everything')).toMatchObject({ error: 'invalid_scope' });
    expect(await bad('response_type=token')).toMatchObject({ error: 'invalid_scope' });
    expect(await bad('scope=workflow:access')).toMatchObject({ error: 'invalid_request' });
  });
});

describe('POST /auth/oauth2: approval', () => {
  it('redirects to redirect_uri#access_token=..&token_type=Bearer&expires_in=..&scope=..&state=..', async () => {
    const { status, location } = await editor();
    expect(status).toBe(302);
    expect(location?.startsWith(`${REDIRECT_URI}#`)).toBe(true);
    expect(fragmentOf(location)).toEqual({
      access_token: expect.stringMatching(/^sim-oauth-[A-Za-z0-9_-]+$/),
      token_type: 'Bearer',
      expires_in: String(TOKEN_LIFETIME_S),
      scope: 'workflow:workflow-management',
      state: 'st-123',
    });
  });

  it('Deny redirects with error=access_denied; a user without the scope in that space gets access_denied', async () => {
    expect(fragmentOf((await editor({ decision: 'deny' })).location)).toMatchObject({
      error: 'access_denied',
      state: 'st-123',
    });
    const viewerAdmin = await signIn(sim.workflowUrl, { ...USERS.viewer, scope: 'workflow:admin', spaceId: SPACE });
    expect(fragmentOf(viewerAdmin.location)).toMatchObject({ error: 'access_denied' });
    expect(fragmentOf(viewerAdmin.location).error_description).toContain('none of the requested scopes');
  });

  it('grants what the user may of what was asked; a higher allowed scope implies the lower ones', async () => {
    const both = await editor({ scope: 'workflow:access workflow:admin' });
    expect(fragmentOf(both.location).scope).toBe('workflow:access');
  });

  it('a wrong password shows the form again (401), with no redirect', async () => {
    const res = await editor({ password: 'nope' });
    expect(res.status).toBe(401);
    expect(res.location).toBeNull();
    expect(res.page).toContain('Wrong username or password.');
    expect(res.page).toContain('value="editor"');
  });
});

describe('issued tokens in the workflow area', () => {
  it('are taken as "Authorization: Bearer <token>" with the same scope hierarchy as API keys', async () => {
    const token = fragmentOf((await editor()).location).access_token;
    expect((await api('/workflows', token)).status).toBe(200);
    expect((await api(`/workflows/${WF.simple}/jobs`, token, { method: 'POST', body: '{}' })).status).toBe(200);

    const viewer = fragmentOf(
      (await signIn(sim.workflowUrl, { ...USERS.viewer, scope: 'workflow:access', spaceId: SPACE })).location,
    ).access_token;
    expect((await api('/workflows', viewer)).status).toBe(200);
    const refused = await api(`/workflows/${WF.simple}/jobs`, viewer, { method: 'POST', body: '{}' });
    expect(refused.status).toBe(401);
    expect((await refused.json()).error_message).toContain('workflow:workflow-management');
  });

  it('expire after expires_in seconds of simulator time: 401 saying so, with WWW-Authenticate invalid_token', async () => {
    const token = fragmentOf((await editor()).location).access_token;
    sim.advance(TOKEN_LIFETIME_S * 1000 - 1);
    expect((await api('/workflows', token)).status).toBe(200);
    sim.advance(1);
    const expired = await api(`/workflows/${WF.simple}/jobs`, token, { method: 'POST', body: '{}' });
    expect(expired.status).toBe(401);
    expect(expired.headers.get('www-authenticate')).toBe(
      'Bearer error="invalid_token", error_description="The access token expired"',
    );
    expect(await expired.json()).toEqual({
      error_message: 'the access token has expired; sign in again to get a new one',
    });
    // the list route answers in problem details, with the same words
    const list = await (await api('/workflows', token)).json();
    expect(list).toMatchObject({ status: 401, detail: 'the access token has expired; sign in again to get a new one' });
  });

  it('go with a reset; API keys and fixture tokens keep working', async () => {
    const token = fragmentOf((await editor()).location).access_token;
    sim.reset();
    expect((await api('/workflows', token)).status).toBe(401);
    expect((await api('/workflows', KEYS.access)).status).toBe(200);
    const liveRes = await fetch(`${sim.liveCaptureUrl}/livecapture/v1/${SPACE}/channels`, {
      method: 'POST',
      headers: { authorization: `Bearer ${TOKENS.main}`, 'content-type': 'application/json' },
      body: '{"name":"x"}',
    });
    expect(liveRes.status).toBe(201);
  });
});

describe('fixture users', () => {
  it('must name spaces of the fixture, once each; old fixtures without users stay valid', () => {
    const base = libraryFixture();
    expect(() =>
      parseFixture({
        ...base,
        users: [
          {
            username: 'a',
            password: 'p',
            spaces: [{ space_id: 'ffffffff-ffff-4fff-8fff-ffffffffffff', scopes: ['workflow:access'] }],
          },
          { username: 'a', password: 'p', spaces: [{ space_id: SPACE, scopes: ['workflow:access'] }] },
        ],
      }),
    ).toThrow(
      /users\.0\.spaces\.0\.space_id: is not a space of this fixture[\s\S]*users\.1\.username: duplicates users\.0\.username/,
    );
    const old = parseFixture({ spaces: base.spaces });
    expect(old.users).toEqual([]);
    expect(old.oauth.token_lifetime_seconds).toBe(3600);
  });
});

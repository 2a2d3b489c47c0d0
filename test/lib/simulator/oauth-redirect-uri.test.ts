import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type Simulator, startSimulator } from '../../../lib/simulator';
import { libraryFixture, SPACE, USERS } from '../../support/fixture';
import { authorizeUrl, formOf, fragmentOf, signIn } from '../../support/oauth';

/**
 * The redirect_uri of the implicit flow: the URL parser drops tabs and line breaks
 * anywhere in it, so what passes the host check may differ from the text sent.
 * Control characters are refused (a 400 page, nothing redirected, nothing issued),
 * and what is redirected to is the URL as parsed.
 */

let sim: Simulator;
beforeAll(async () => {
  sim = await startSimulator({ fixture: libraryFixture(), manualClock: true });
});
afterAll(() => sim.close());
beforeEach(() => sim.reset());

/** The form a browser would post, built by hand: the page's hidden fields need not match it. */
const postForm = (redirectUri: string, password: string = USERS.editor.password) =>
  fetch(`${sim.workflowUrl}/auth/oauth2`, {
    method: 'POST',
    redirect: 'manual',
    body: new URLSearchParams({
      response_type: 'token',
      client_id: 'c',
      redirect_uri: redirectUri,
      scope: 'workflow:access',
      state: 'st',
      username: USERS.editor.username,
      password,
      space_id: SPACE,
      decision: 'allow',
    }),
  });

describe('OAuth redirect_uri: control characters and the URL echoed', () => {
  it('a tab inside the host, a trailing CR LF and every other C0 character or DEL: a 400 page, never a redirect', async () => {
    const uris = ['http://loc\talhost/cb', 'http://localhost:1880/cb\r\n', 'http://localhost/c\nb'];
    for (let code = 0; code < 0x20; code++) uris.push(`http://localhost/c${String.fromCharCode(code)}b`);
    uris.push('http://localhost/c\x7fb');
    for (const redirectUri of uris) {
      const page = await fetch(authorizeUrl(sim.workflowUrl, { scope: 'workflow:access', redirectUri }), {
        redirect: 'manual',
      });
      expect(page.status, JSON.stringify(redirectUri)).toBe(400);
      expect(page.headers.get('location')).toBeNull();
      expect(await page.text()).toContain('redirect_uri must not contain control characters');
    }
  });

  it('with sound credentials the form post is refused the same way, before anything is issued', async () => {
    for (const redirectUri of ['http://loc\talhost/cb', 'http://localhost:1880/cb\r\n']) {
      const res = await postForm(redirectUri);
      expect(res.status, JSON.stringify(redirectUri)).toBe(400);
      expect(res.headers.get('location')).toBeNull();
      expect(await res.text()).toContain('control characters');
    }
    // checked before the password: a wrong one changes nothing
    expect((await postForm('http://loc\talhost/cb', 'wrong')).status).toBe(400);
    // and the server goes on signing people in
    expect((await postForm('http://localhost/cb')).status).toBe(302);
  });

  it('the page carries, and the redirect goes to, the URL as parsed', async () => {
    const raw = 'http://LocalHost:1880/a b/../cb?q=\u20ac&x';
    const normalised = 'http://localhost:1880/cb?q=%E2%82%AC&x';
    const page = await fetch(authorizeUrl(sim.workflowUrl, { scope: 'workflow:access', redirectUri: raw }));
    expect(page.status).toBe(200);
    expect(formOf(await page.text(), {}).get('redirect_uri')).toBe(normalised);

    const viaPage = await signIn(sim.workflowUrl, {
      ...USERS.editor,
      scope: 'workflow:access',
      spaceId: SPACE,
      redirectUri: raw,
    });
    expect(viaPage.location?.startsWith(`${normalised}#access_token=`)).toBe(true);

    const direct = await postForm(raw);
    expect(direct.status).toBe(302);
    const location = direct.headers.get('location') ?? '';
    expect(location.startsWith(`${normalised}#`)).toBe(true);
    expect(fragmentOf(location)).toMatchObject({ token_type: 'Bearer', state: 'st' });
  });
});

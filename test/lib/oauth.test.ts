import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createClient } from '../../lib/client';
import { authorizationUrl, readTokenFragment } from '../../lib/oauth';
import { SPACE, TOKEN_LIFETIME_S, USERS, WF } from '../support/fixture';
import { formOf, REDIRECT_URI } from '../support/oauth';
import { rejection, type SimHarness, startHarness } from '../support/sim';

/**
 * End to end from the library: the implicit flow the description declares ("OAuth 2.0
 * implicit-flow security scheme with authorization path /auth/oauth2"), its token used by
 * the client, and its expiry.
 */

let h: SimHarness;
beforeAll(async () => {
  h = await startHarness({ startTime: '2025-06-01T08:00:00Z' });
});
afterAll(() => h.close());
beforeEach(() => h.sim.reset());

/** What the editor's popup will do: open the page, sign in, and read the redirect. */
async function signInAsEditor(state: string): Promise<string> {
  const url = authorizationUrl({
    baseUrl: h.sim.workflowUrl,
    clientId: 'node-red-media-spaces',
    redirectUri: REDIRECT_URI,
    scope: ['workflow:workflow-management'],
    state,
    spaceId: SPACE,
  });
  const page = await fetch(url);
  expect(page.status).toBe(200);
  const form = formOf(await page.text(), { ...USERS.editor, space_id: SPACE, decision: 'allow' });
  const approved = await fetch(new URL('/auth/oauth2', url), { method: 'POST', body: form, redirect: 'manual' });
  expect(approved.status).toBe(302);
  return approved.headers.get('location') as string;
}

describe('signing in through /auth/oauth2 and using the token', () => {
  it('reads the token from the redirect fragment and lists workflows and submits a job with it', async () => {
    const location = await signInAsEditor('popup-1');
    const before = Date.now();
    const grant = readTokenFragment(location);
    expect(grant).toMatchObject({
      tokenType: 'Bearer',
      expiresIn: TOKEN_LIFETIME_S,
      scope: ['workflow:workflow-management'],
      state: 'popup-1',
    });
    expect(grant.expiresAt).toBeGreaterThanOrEqual(before + TOKEN_LIFETIME_S * 1000);

    const client = h.client({
      apiKey: undefined,
      workflowToken: grant.accessToken,
      workflowTokenExpiresAt: grant.expiresAt,
    });
    expect(client.workflowTokenExpiresAt).toBe(grant.expiresAt);
    const list = await client.listWorkflows();
    expect(list.data.workflows.map((w) => w.id)).toContain(WF.simple);
    const job = await client.submitJob(WF.simple, { job_name: 'signed in' });
    expect(job.data).toMatchObject({ name: 'signed in', state: 'created' });
    const sent = h.sim.requests().filter((r) => r.route === 'submit');
    expect(sent).toHaveLength(1);
    expect(sent[0].authorization_present).toBe(true);
    expect(JSON.stringify(client)).not.toContain(grant.accessToken);
  });

  it('an expired token: 401 from the service becomes code token_expired, saying to sign in again', async () => {
    const grant = readTokenFragment(await signInAsEditor('popup-2'));
    const client = h.client({ apiKey: undefined, workflowToken: grant.accessToken });
    expect((await client.listWorkflows()).status).toBe(200);
    h.sim.advance(TOKEN_LIFETIME_S * 1000);
    for (const call of [() => client.listWorkflows(), () => client.submitJob(WF.simple, {})]) {
      const err = await rejection(call());
      expect(err.status).toBe(401);
      expect(err.code).toBe('token_expired');
      expect(err.message).toMatch(/the access token has expired; sign in again/);
      expect(err.message).not.toContain(grant.accessToken);
    }
  });

  it('a token the client knows has expired (workflowTokenExpiresAt) is not sent', async () => {
    const grant = readTokenFragment(await signInAsEditor('popup-3'));
    const client = h.client({
      apiKey: undefined,
      workflowToken: grant.accessToken,
      workflowTokenExpiresAt: new Date(Date.now() - 1000),
    });
    const err = await rejection(client.listWorkflows());
    expect(err.code).toBe('token_expired');
    expect(err.message).toMatch(/^List workflows not sent: the workflow access token expired at .*; sign in again/);
    expect(h.sim.requests()).toEqual([]);
  });

  it('a sign-in error in the fragment becomes a MediaSpacesError naming it', () => {
    const denied = `${REDIRECT_URI}#error=access_denied&error_description=the+user+denied+the+request&state=s`;
    expect(() => readTokenFragment(denied)).toThrow('Sign-in failed: access_denied - the user denied the request');
    expect(() => readTokenFragment(`${REDIRECT_URI}#state=s`)).toThrow(/neither access_token nor error/);
  });

  it('refuses a workflowTokenExpiresAt that is not a time', () => {
    expect(() =>
      createClient({ workflowUrl: h.sim.workflowUrl, spaceId: SPACE, workflowTokenExpiresAt: 'soon' }),
    ).toThrow(/workflowTokenExpiresAt must be a time/);
  });
});

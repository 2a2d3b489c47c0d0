import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { type Simulator, startSimulator } from '../../../lib/simulator';
import {
  CONFIG_ID,
  DEMO,
  helper,
  initRuntime,
  NODES,
  OP_ID,
  onlyFailure,
  onlyOutput,
  operationFlow,
  trigger,
} from '../../support/node-red-runtime';
import { fragmentOf, signIn } from '../../support/oauth';

/**
 * The config node's sign-in token (credentials workflowToken + workflowTokenExpiresAt, set by
 * the dialog's Sign in) in a real runtime: used instead of an API key, and an expired one
 * told as what to do. Plus the callback page the sign-in window returns to.
 */

let sim: Simulator;

beforeAll(async () => {
  initRuntime();
  sim = await startSimulator({ manualClock: true });
});
afterAll(() => sim.close());
beforeEach(() => sim.reset());
afterEach(() => helper.unload());

async function producerToken(): Promise<string> {
  const { location } = await signIn(sim.workflowUrl, {
    username: 'producer',
    password: 'producer-password',
    scope: 'workflow:workflow-management',
    spaceId: DEMO.space,
  });
  return fragmentOf(location).access_token;
}

async function load(type: string, props: Record<string, unknown>, creds: Record<string, string>) {
  await helper.load(Object.values(NODES), operationFlow(sim, type, props), { [CONFIG_ID]: creds });
}

describe('a sign-in token on the config node', () => {
  it('works without an API key: list workflows and submit job', async () => {
    const token = await producerToken();
    const creds = { workflowToken: token, workflowTokenExpiresAt: String(Date.now() + 3_600_000) };
    await load('media-spaces-list-workflows', { mode: 'page' }, creds);
    const listed = onlyOutput(await trigger({}));
    expect((listed.payload as { workflows: unknown[] }).workflows.length).toBeGreaterThan(0);
    await helper.unload();
    await load('media-spaces-submit-job', { workflowId: DEMO.workflows.transcode }, creds);
    const submitted = onlyOutput(await trigger({}));
    expect(submitted.payload).toMatchObject({ id: expect.any(String) });
    expect(sim.requests().at(-1)?.authorization_present).toBe(true);
  });

  it('expired by its stored expiry: nothing is sent, the error and status say what to do', async () => {
    const token = await producerToken();
    const expiredAt = Date.UTC(2026, 0, 1, 12);
    await load(
      'media-spaces-list-workflows',
      { mode: 'page' },
      { workflowToken: token, workflowTokenExpiresAt: String(expiredAt) },
    );
    const node = helper.getNode(OP_ID) as unknown as { status: (s: unknown) => void };
    const shown: unknown[] = [];
    const original = node.status.bind(node);
    node.status = (s: unknown) => {
      shown.push(s);
      original(s);
    };
    const failed = onlyFailure(await trigger({}));
    expect(failed.error?.code).toBe('token_expired');
    expect(failed.error?.message).toBe(
      'the sign-in token expired at 2026-01-01T12:00:00.000Z (List workflows); open the config node and Sign in again',
    );
    expect(sim.requests()).toEqual([]);
    await vi.waitFor(() => expect(shown.at(-1)).toEqual({ fill: 'red', shape: 'ring', text: 'sign-in expired' }), {
      timeout: 5000,
    });
  });

  it("expired on the service's clock (no stored expiry): the service's 401 is told the same way", async () => {
    const token = await producerToken();
    sim.advance(3_601_000);
    await load('media-spaces-list-workflows', { mode: 'page' }, { workflowToken: token });
    const failed = onlyFailure(await trigger({}));
    expect(failed.error?.code).toBe('token_expired');
    expect(failed.error?.message).toBe(
      'the sign-in token has expired (List workflows); open the config node and Sign in again',
    );
  });
});

describe('GET /media-spaces/oauth/callback', () => {
  it('a static page whose own script posts the fragment to its opener on the same origin only', async () => {
    await load('media-spaces-list-workflows', {}, {});
    const page = await helper.request().get('/media-spaces/oauth/callback');
    expect(page.status).toBe(200);
    expect(page.headers['content-security-policy']).toBe(
      "default-src 'none'; script-src 'self'; frame-ancestors 'none'",
    );
    expect(page.headers['cache-control']).toBe('no-store');
    expect(page.headers['referrer-policy']).toBe('no-referrer');
    expect(page.text).toContain('<script src="callback.js"></script>');
    const script = await helper.request().get('/media-spaces/oauth/callback.js');
    expect(script.status).toBe(200);
    expect(script.text).toContain(
      "window.opener.postMessage({ type: 'media-spaces-oauth', fragment: fragment }, location.origin)",
    );
  });
});

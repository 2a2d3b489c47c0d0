import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type Simulator, startSimulator } from '../../../lib/simulator';
import { KEYS, libraryFixture, SPACE, TOKENS, WF } from '../../support/fixture';
import { call } from '../../support/sim';

/**
 * Request bodies nested deeper than 64 levels of arrays and objects are refused
 * with 400 in the route's error shape, before they are parsed and before their
 * Idempotency-Key is reserved; brackets inside strings do not count.
 */

let sim: Simulator;
beforeAll(async () => {
  sim = await startSimulator({ fixture: libraryFixture(), manualClock: true });
});
afterAll(() => sim.close());
beforeEach(() => sim.reset());

const submitUrl = () => `${sim.workflowUrl}/workflow/v1/${SPACE}/workflows/${WF.simple}/jobs`;
const channelsUrl = () => `${sim.liveCaptureUrl}/livecapture/v1/${SPACE}/channels`;
/** `{"<field>":[[…]]}` with `depth` levels in all, the outer object included. */
const nested = (field: string, depth: number) => `{"${field}":${'['.repeat(depth - 1)}${']'.repeat(depth - 1)}}`;
const post = (url: string, key: string, raw: string, idempotencyKey?: string) =>
  call('POST', url, { key, raw, headers: idempotencyKey ? { 'idempotency-key': idempotencyKey } : {} });

describe('simulator: deeply nested JSON bodies', () => {
  it('a submission nested 100,000 levels deep, sent twice with one Idempotency-Key, is 400 both times, never 500', async () => {
    const body = nested('job_name', 100_000);
    for (let attempt = 0; attempt < 2; attempt++) {
      const res = await post(submitUrl(), KEYS.admin, body, 'deep-key');
      expect(res.status).toBe(400);
      expect(res.body).toEqual({ code: 400, message: expect.stringContaining('deeper than 64 levels') });
      expect(res.headers.get('idempotent-replayed')).toBeNull();
    }
    // the key was never reserved: a sound request under it is a new one, not a mismatch
    const sound = await post(submitUrl(), KEYS.admin, '{"job_name":"after"}', 'deep-key');
    expect(sound.status).toBe(200);
    expect(sound.body.name).toBe('after');
  });

  it("a channel nested too deep is 400 in live capture's shape, {errors:{body}}", async () => {
    const res = await post(channelsUrl(), TOKENS.main, nested('name', 5_000), 'deep-channel');
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ errors: { body: expect.stringContaining('deeper than 64 levels') } });
    expect(sim.counts()).toMatchObject({ channels: 0 });
  });

  it('JSON nested too deep inside the expected_properties string is refused too: 422 naming the field', async () => {
    const properties = JSON.stringify(`${'['.repeat(100_000)}${']'.repeat(100_000)}`);
    const res = await post(channelsUrl(), TOKENS.main, `{"name":"c","expected_properties":${properties}}`);
    expect(res.status).toBe(422);
    expect(res.body).toEqual({ errors: { expected_properties: expect.stringContaining('deeper than 64 levels') } });
    const fine = await post(channelsUrl(), TOKENS.main, '{"name":"c","expected_properties":"{\\"a\\":[[1]]}"}');
    expect(fine.status).toBe(201);
  });

  it('64 levels are read (and judged by the schema: 422); 65 are refused (400)', async () => {
    expect((await post(submitUrl(), KEYS.admin, nested('extra', 64))).status).toBe(422);
    expect((await post(submitUrl(), KEYS.admin, nested('extra', 65))).status).toBe(400);
    expect((await post(channelsUrl(), TOKENS.main, nested('extra', 64))).status).toBe(422);
    expect((await post(channelsUrl(), TOKENS.main, nested('extra', 65))).status).toBe(400);
  });

  it('brackets inside strings, escaped quotes included, are text, not nesting', async () => {
    const name = `\\"${'['.repeat(100)}\\\\${'{'.repeat(100)}`;
    const res = await post(submitUrl(), KEYS.admin, `{"job_name":"${name}"}`);
    expect(res.status).toBe(200);
    expect(res.body.name).toBe(JSON.parse(`"${name}"`));
  });
});

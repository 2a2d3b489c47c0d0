import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { type Simulator, startSimulator } from '../../../lib/simulator';
import { KEYS, libraryFixture, SPACE, TOKENS, WF } from '../../support/fixture';
import { headerOf, jsonBodyOf, openRaw, type RawSocket, statusOf } from '../../support/raw-http';
import { call } from '../../support/sim';

/**
 * The bytes of request bodies held at once, across requests, are bounded
 * (bodyBufferLimit): past it a request is answered 503 with Retry-After in its
 * route's error shape, and whatever a request held is given back when its
 * response closes, whether it was answered, refused or abandoned.
 */

const LIMIT = 1_000_000;
let sim: Simulator;
beforeAll(async () => {
  sim = await startSimulator({ fixture: libraryFixture(), manualClock: true, bodyBufferLimit: LIMIT });
});
afterAll(() => sim.close());

const submitPath = `/workflow/v1/${SPACE}/workflows/${WF.simple}/jobs`;
const channelsPath = `/livecapture/v1/${SPACE}/channels`;

/** A JSON POST that announces `announced` bytes, sends `sent` of them and stalls. */
async function stalledUpload(path: string, key: string, announced: number, sent: number): Promise<RawSocket> {
  const raw = await openRaw(sim.workflowUrl);
  raw.socket.write(
    `POST ${path} HTTP/1.1\r\nHost: sim\r\nAuthorization: Bearer ${key}\r\n` +
      `Content-Type: application/json\r\nContent-Length: ${announced}\r\n\r\n{"job_name":"${'x'.repeat(sent - 13)}`,
  );
  return raw;
}

describe('simulator: the budget for request bodies held at once', () => {
  it('stalled uploads fill it; the next upload gets 503 + Retry-After in its shape; closing them frees every byte', async () => {
    const stalled = [
      await stalledUpload(submitPath, KEYS.admin, 2_000_000, 480_000),
      await stalledUpload(submitPath, KEYS.admin, 2_000_000, 480_000),
    ];
    await vi.waitFor(() => expect(sim.bufferedBodyBytes()).toBe(960_000));

    // the refused body is read on and thrown away, so the answer comes while the client still sends
    const refused = await stalledUpload(submitPath, KEYS.admin, 2_000_000, 200_000);
    await vi.waitFor(() => expect(statusOf(refused)).toBe(503));
    expect(refused.isClosed()).toBe(false);
    expect(headerOf(refused, 'retry-after')).toBe('1');
    await vi.waitFor(() => jsonBodyOf(refused));
    expect(jsonBodyOf(refused)).toEqual({ error_message: expect.stringContaining('too many request bodies') });
    expect(sim.bufferedBodyBytes()).toBe(960_000);
    // once the client has sent the rest, the connection serves its next request
    refused.socket.write(`${'x'.repeat(2_000_000 - 200_000 - 2)}"}`);
    refused.socket.write(
      `GET /workflow/v1/${SPACE}/workflows HTTP/1.1\r\nHost: sim\r\nAuthorization: Bearer ${KEYS.access}\r\n\r\n`,
    );
    await vi.waitFor(() => expect(refused.received()).toContain('HTTP/1.1 200 OK'));
    expect(sim.bufferedBodyBytes()).toBe(960_000);

    const channel = await stalledUpload(channelsPath, TOKENS.main, 2_000_000, 200_000);
    await vi.waitFor(() => expect(statusOf(channel)).toBe(503));
    await vi.waitFor(() => jsonBodyOf(channel));
    expect(jsonBodyOf(channel)).toEqual({ error_message: expect.stringContaining('too many request bodies') });

    // the admin API and the sign-in form share the budget
    const fault = await call('POST', `${sim.adminUrl}/faults`, { raw: `{"x":"${'y'.repeat(200_000)}"}` });
    expect([fault.status, fault.headers.get('retry-after')]).toEqual([503, '1']);
    const form = await fetch(`${sim.workflowUrl}/auth/oauth2`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: `state=${'s'.repeat(60_000)}`,
    });
    expect([form.status, form.headers.get('retry-after')]).toEqual([503, '1']);
    expect(await form.text()).toContain('busy');

    // an upload abandoned by its client gives its bytes back
    stalled[0].socket.destroy();
    await vi.waitFor(() => expect(sim.bufferedBodyBytes()).toBe(480_000));
    const sound = await call('POST', `${sim.workflowUrl}${submitPath}`, {
      key: KEYS.admin,
      raw: `{"job_name":"${'n'.repeat(200)}"}`,
    });
    expect(sound.status).toBe(200);
    expect(sim.bufferedBodyBytes()).toBe(480_000);
    for (const s of [stalled[1], refused, channel]) s.socket.destroy();
    await vi.waitFor(() => expect(sim.bufferedBodyBytes()).toBe(0));
  });

  it('answered requests, 413s and 415s give their bytes back', async () => {
    const big = await call('POST', `${sim.workflowUrl}${submitPath}`, {
      key: KEYS.admin,
      raw: `"${'x'.repeat(960_000)}"`,
    });
    expect(big.status).toBe(422);
    const tooLarge = await call('POST', `${sim.workflowUrl}${submitPath}`, {
      key: KEYS.admin,
      raw: `"${'x'.repeat(6 * 1024 * 1024)}"`,
    });
    expect(tooLarge.status).toBe(413);
    const wrongType = await fetch(`${sim.workflowUrl}${submitPath}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${KEYS.admin}`, 'content-type': 'text/plain' },
      body: 'x'.repeat(500_000),
    });
    expect(wrongType.status).toBe(415);
    await wrongType.arrayBuffer();
    await vi.waitFor(() => expect(sim.bufferedBodyBytes()).toBe(0));
  });
});

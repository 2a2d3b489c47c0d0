import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Simulator, startSimulator } from '../../../lib/simulator';
import { KEYS, libraryFixture, SPACE, WF } from '../../support/fixture';
import { openRaw, statusOf } from '../../support/raw-http';
import { call } from '../../support/sim';

/**
 * Clients that send a request slowly, or never finish it, are cut off: 408 and
 * the connection closed, through Node's own handling, after headersTimeout for
 * the headers and requestTimeout for the whole request. Short timeouts here;
 * bench/hostile-clients.mjs measures the defaults.
 */

let sim: Simulator;
beforeAll(async () => {
  sim = await startSimulator({ fixture: libraryFixture(), headersTimeout: 300, requestTimeout: 800 });
});
afterAll(() => sim.close());

const listPath = `/workflow/v1/${SPACE}/workflows`;
const submitPath = `/workflow/v1/${SPACE}/workflows/${WF.simple}/jobs`;

describe('simulator: slow and broken requests', () => {
  it('20 clients dripping header lines forever get 408 and are disconnected; the server serves the next request', async () => {
    const drips = await Promise.all(Array.from({ length: 20 }, () => openRaw(sim.workflowUrl)));
    for (const d of drips) {
      d.socket.write(`GET ${listPath} HTTP/1.1\r\nHost: sim\r\n`);
      d.drip('X-Slow: a\r\n', 50);
    }
    await Promise.all(drips.map((d) => d.closed));
    expect(drips.map(statusOf)).toEqual(drips.map(() => 408));

    const res = await call('GET', `${sim.workflowUrl}${listPath}`, KEYS.access);
    expect(res.status).toBe(200);
  });

  it('a client that connects and sends nothing is disconnected too', async () => {
    const idle = await openRaw(sim.workflowUrl);
    await idle.closed;
    expect(idle.isClosed()).toBe(true);
  });

  it('a body dripped a byte at a time gets 408 after the request timeout, and the bytes it held are released', async () => {
    const d = await openRaw(sim.workflowUrl);
    d.socket.write(
      `POST ${submitPath} HTTP/1.1\r\nHost: sim\r\nAuthorization: Bearer ${KEYS.admin}\r\n` +
        'Content-Type: application/json\r\nContent-Length: 100000\r\n\r\n{"job_name":"',
    );
    d.drip('x', 20);
    await d.closed;
    expect(statusOf(d)).toBe(408);
    expect(sim.bufferedBodyBytes()).toBe(0);
  });

  it('bytes that are not HTTP get 400 and oversized headers 431, and the connection closes', async () => {
    const garbage = await openRaw(sim.workflowUrl);
    garbage.socket.write('HELLO THERE\r\n\r\n');
    await garbage.closed;
    expect(statusOf(garbage)).toBe(400);

    const huge = await openRaw(sim.workflowUrl);
    huge.socket.write(`GET ${listPath} HTTP/1.1\r\nHost: sim\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`);
    await huge.closed;
    expect(statusOf(huge)).toBe(431);
  });

  it('refuses timeouts that are not positive, or a headers timeout longer than the request timeout', async () => {
    await expect(startSimulator({ headersTimeout: 0 })).rejects.toThrow(/headersTimeout must be a positive number/);
    await expect(startSimulator({ requestTimeout: Number.NaN })).rejects.toThrow(/requestTimeout/);
    await expect(startSimulator({ headersTimeout: 2_000, requestTimeout: 1_000 })).rejects.toThrow(
      /headersTimeout must not be longer than requestTimeout/,
    );
    await expect(startSimulator({ bodyBufferLimit: -1 })).rejects.toThrow(/bodyBufferLimit/);
  });
});

import { afterEach, describe, expect, it } from 'vitest';
import { createClient } from '../../lib/client';
import { type RequestEvent, requestEvents } from '../../lib/request-events';
import { SPACE } from '../support/fixture';
import { rejection } from '../support/sim';
import { json, type Stub, startStub } from '../support/stub-server';

let stub: Stub | undefined;
const seen: RequestEvent[] = [];
const listen = (event: unknown) => seen.push(event as RequestEvent);

afterEach(async () => {
  requestEvents.unsubscribe(listen);
  seen.length = 0;
  await stub?.close();
  stub = undefined;
});

describe('media-spaces:request', () => {
  it('publishes each attempt with its operation, method, status and duration, retries included', async () => {
    stub = await startStub((_req, res, i) =>
      i === 0 ? json(res, 503, { message: 'busy' }) : json(res, 200, { workflows: [] }),
    );
    requestEvents.subscribe(listen);
    const c = createClient({
      workflowUrl: stub.url,
      spaceId: SPACE,
      apiKey: 'k',
      retryPolicy: { baseDelayMs: 1, maxDelayMs: 2 },
    });
    try {
      await c.listWorkflows();
    } finally {
      await c.close();
    }
    expect(seen).toEqual([
      { operation: 'List workflows', method: 'GET', status: 503, duration: expect.any(Number), attempt: 1 },
      { operation: 'List workflows', method: 'GET', status: 200, duration: expect.any(Number), attempt: 2 },
    ]);
    for (const e of seen) expect(e.duration).toBeGreaterThanOrEqual(0);
  });

  it('names the error class when no answer came back', async () => {
    stub = await startStub();
    const url = stub.url;
    await stub.close();
    stub = undefined;
    requestEvents.subscribe(listen);
    const c = createClient({ workflowUrl: url, spaceId: SPACE, apiKey: 'k', retries: 0 });
    try {
      expect((await rejection(c.listWorkflows())).code).toBe('network_error');
    } finally {
      await c.close();
    }
    expect(seen).toEqual([
      { operation: 'List workflows', method: 'GET', error: 'network_error', duration: expect.any(Number), attempt: 1 },
    ]);
  });
});

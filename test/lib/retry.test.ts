import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { MediaSpacesError } from '../../lib/errors';
import {
  type AttemptOutcome,
  backoffDelay,
  DEADLINE_MAX_STEP_MS,
  DEFAULT_RETRY_POLICY,
  decideRetry,
  FIRST_ATTEMPT,
  parseRetryAfter,
  RETRYABLE_STATUSES,
  type RetryDecision,
  type RetryPolicy,
  type RetryRequest,
  type RetryState,
  retryPlan,
  sleep,
} from '../../lib/retry';
import { type HttpRequest, Transport } from '../../lib/transport';
import { json, type Stub, startStub } from '../support/stub-server';

const policy: RetryPolicy = { retries: 3, baseDelayMs: 100, maxDelayMs: 1000, maxRetryAfterMs: 5000 };

describe('backoffDelay', () => {
  it('doubles the step on every attempt up to the cap', () => {
    const upper = (attempt: number) => backoffDelay(attempt, policy, () => 1);
    expect([0, 1, 2, 3, 4, 5, 10].map(upper)).toEqual([100, 200, 400, 800, 1000, 1000, 1000]);
  });

  it('draws the wait from [step/2, step] with the injected random', () => {
    expect(backoffDelay(0, policy, () => 0)).toBe(50);
    expect(backoffDelay(0, policy, () => 0.5)).toBe(75);
    expect(backoffDelay(3, policy, () => 0)).toBe(400);
    expect(backoffDelay(3, policy, () => 0.25)).toBe(500);
    expect(backoffDelay(8, policy, () => 0)).toBe(500);
    for (let attempt = 0; attempt < 8; attempt++) {
      const step = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** attempt);
      for (const r of [0, 0.1, 0.37, 0.5, 0.99, 0.999999]) {
        const d = backoffDelay(attempt, policy, () => r);
        expect(d).toBeGreaterThanOrEqual(step / 2);
        expect(d).toBeLessThanOrEqual(step);
      }
    }
  });

  it('stays within bounds with the real random source', () => {
    for (let i = 0; i < 200; i++) {
      const d = backoffDelay(2, policy);
      expect(d).toBeGreaterThanOrEqual(200);
      expect(d).toBeLessThanOrEqual(400);
    }
  });

  it('has sensible defaults and retries 429 and 502/503/504 only', () => {
    expect(DEFAULT_RETRY_POLICY).toEqual({ retries: 3, baseDelayMs: 250, maxDelayMs: 10_000, maxRetryAfterMs: 60_000 });
    expect([...RETRYABLE_STATUSES].sort()).toEqual([429, 502, 503, 504]);
  });
});

describe('parseRetryAfter', () => {
  const now = Date.parse('2024-05-01T12:00:00Z');

  it('reads delay-seconds', () => {
    expect(parseRetryAfter('0', now)).toBe(0);
    expect(parseRetryAfter('1', now)).toBe(1000);
    expect(parseRetryAfter(' 120 ', now)).toBe(120_000);
    expect(parseRetryAfter('1.5', now)).toBe(1500);
  });

  it('reads an HTTP-date relative to now, and a past date as no wait', () => {
    expect(parseRetryAfter('Wed, 01 May 2024 12:00:30 GMT', now)).toBe(30_000);
    expect(parseRetryAfter('Wed, 01 May 2024 13:00:00 GMT', now)).toBe(3_600_000);
    expect(parseRetryAfter('Wed, 01 May 2024 11:59:00 GMT', now)).toBe(0);
  });

  it('takes the first of repeated headers', () => {
    expect(parseRetryAfter(['2', '9'], now)).toBe(2000);
  });

  it('returns undefined when absent or unreadable', () => {
    expect(parseRetryAfter(undefined, now)).toBeUndefined();
    expect(parseRetryAfter('', now)).toBeUndefined();
    expect(parseRetryAfter('soon', now)).toBeUndefined();
  });
});

describe('retryPlan', () => {
  it.each<[string, RetryRequest, { retries: number; deadline?: number; maxDelayMs: number; keyed: boolean }]>([
    ['a GET takes the policy retries', { method: 'GET' }, { retries: 3, maxDelayMs: 1000, keyed: false }],
    ['a DELETE likewise', { method: 'DELETE' }, { retries: 3, maxDelayMs: 1000, keyed: false }],
    [
      'a POST without a key is sent once',
      { method: 'POST', retries: 5 },
      { retries: 0, maxDelayMs: 1000, keyed: false },
    ],
    [
      'a keyed POST may be repeated',
      { method: 'POST', idempotencyKey: 'k' },
      { retries: 3, maxDelayMs: 1000, keyed: true },
    ],
    [
      'the request retries win, floored',
      { method: 'GET', retries: 1.7 },
      { retries: 1, maxDelayMs: 1000, keyed: false },
    ],
    [
      'negative request retries are none',
      { method: 'GET', retries: -2 },
      { retries: 0, maxDelayMs: 1000, keyed: false },
    ],
    [
      'a deadline retries without count, in capped steps',
      { method: 'GET', retries: 1, deadline: 5 },
      { retries: Number.POSITIVE_INFINITY, deadline: 5, maxDelayMs: 1000, keyed: false },
    ],
    [
      'a POST without a key ignores its deadline',
      { method: 'POST', deadline: 5 },
      { retries: 0, maxDelayMs: 1000, keyed: false },
    ],
  ])('%s', (_name, req, want) => {
    const plan = retryPlan(req, policy, 2000);
    expect({
      retries: plan.retries,
      deadline: plan.deadline,
      maxDelayMs: plan.policy.maxDelayMs,
      keyed: plan.keyed,
    }).toEqual({ deadline: undefined, ...want });
    expect(plan.inFlightBudgetMs).toBe(2000);
  });

  it('caps the backoff step under a deadline', () => {
    const long = { ...policy, maxDelayMs: 60_000 };
    expect(retryPlan({ method: 'GET', deadline: 1 }, long, 1000).policy.maxDelayMs).toBe(DEADLINE_MAX_STEP_MS);
    expect(retryPlan({ method: 'GET' }, long, 1000).policy.maxDelayMs).toBe(60_000);
  });
});

describe('decideRetry', () => {
  const now = 1_000_000;
  /** random() = 1: every backoff is its full step, so the delays below are exact. */
  const top = () => 1;
  const get = retryPlan({ method: 'GET' }, policy, 2000);
  const keyed = retryPlan({ method: 'POST', idempotencyKey: 'k' }, policy, 2000);
  const unkeyed = retryPlan({ method: 'POST' }, policy, 2000);
  const withDeadline = (ms: number) => retryPlan({ method: 'GET', deadline: now + ms }, policy, 2000);
  const state = (over: Partial<RetryState> = {}): RetryState => ({ ...FIRST_ATTEMPT, ...over });
  const error = (code: string): AttemptOutcome => ({ kind: 'error', code });
  const answer = (status: number, retryAfterMs?: number, replayed = false): AttemptOutcome => ({
    kind: 'response',
    status,
    retryAfterMs,
    replayed,
  });
  const retry = (delayMs: number, spendsRetry: boolean, next: Partial<RetryState>): RetryDecision => ({
    retry: true,
    delayMs,
    spendsRetry,
    next: state(next),
  });
  const stop: RetryDecision = { retry: false };

  it.each<[string, ReturnType<typeof retryPlan>, RetryState, AttemptOutcome, RetryDecision]>([
    ['a timeout is retried after the first step', get, state(), error('timeout'), retry(100, true, { retriesUsed: 1 })],
    ['a network error likewise', get, state(), error('network_error'), retry(100, true, { retriesUsed: 1 })],
    ['the step doubles', get, state({ retriesUsed: 2 }), error('timeout'), retry(400, true, { retriesUsed: 3 })],
    ['no retry left', get, state({ retriesUsed: 3 }), error('timeout'), stop],
    ['an abort is not retried', get, state(), error('aborted'), stop],
    ['a TLS failure is not retried', get, state(), error('tls_error'), stop],
    ['an unkeyed POST is never retried', unkeyed, state(), error('timeout'), stop],
    ['503 is retried', get, state(), answer(503), retry(100, true, { retriesUsed: 1 })],
    ['429 is retried', get, state(), answer(429), retry(100, true, { retriesUsed: 1 })],
    ['502 and 504 too', get, state({ retriesUsed: 1 }), answer(504), retry(200, true, { retriesUsed: 2 })],
    ['500 is not', get, state(), answer(500), stop],
    ['404 is not', get, state(), answer(404), stop],
    ['409 on a GET is not', get, state(), answer(409), stop],
    ['Retry-After stands in for the backoff', get, state(), answer(503, 300), retry(300, true, {})],
    ['Retry-After over the cap ends it', get, state(), answer(503, 5001), stop],
    ['Retry-After on a 400 changes nothing', get, state(), answer(400, 10), stop],
    [
      'a keyed 409 asks again without spending a retry',
      keyed,
      state(),
      answer(409),
      retry(100, false, { inFlightSince: now, inFlightWaits: 1 }),
    ],
    [
      'its questions back off up to one second',
      keyed,
      state({ inFlightSince: now - 500, inFlightWaits: 5 }),
      answer(409),
      retry(1000, false, { inFlightSince: now - 500, inFlightWaits: 6 }),
    ],
    [
      'it follows the service Retry-After',
      keyed,
      state({ inFlightSince: now }),
      answer(409, 300),
      retry(300, false, { inFlightSince: now }),
    ],
    [
      'past one attempt timeout it spends retries',
      keyed,
      state({ inFlightSince: now - 1500, inFlightWaits: 4 }),
      answer(409),
      retry(100, true, { inFlightSince: now - 1500, inFlightWaits: 5, retriesUsed: 1 }),
    ],
    [
      'and then gives up',
      keyed,
      state({ inFlightSince: now - 1500, inFlightWaits: 4, retriesUsed: 3 }),
      answer(409),
      stop,
    ],
    ['a replayed 409 is the answer', keyed, state(), answer(409, undefined, true), stop],
    [
      'no questions with retries off',
      retryPlan({ method: 'POST', idempotencyKey: 'k', retries: 0 }, policy, 2000),
      state(),
      answer(409),
      stop,
    ],
    [
      'a deadline allows more than the count',
      withDeadline(10_000),
      state({ retriesUsed: 50 }),
      error('timeout'),
      retry(1000, true, { retriesUsed: 51 }),
    ],
    ['but no attempt at or past it', withDeadline(1000), state({ retriesUsed: 50 }), error('timeout'), stop],
    ['nor a Retry-After that reaches it', withDeadline(1000), state(), answer(503, 1000), stop],
  ])('%s', (_name, plan, before, outcome, want) => {
    expect(decideRetry(plan, before, outcome, now, top)).toEqual(want);
  });

  it('draws the backoff with the random it is given', () => {
    expect(decideRetry(get, state(), error('timeout'), now, () => 0)).toEqual(retry(50, true, { retriesUsed: 1 }));
  });
});

describe('sleep', () => {
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('resolves after the given time and not before', async () => {
    let done = false;
    const p = sleep(500).then(() => {
      done = true;
    });
    await vi.advanceTimersByTimeAsync(499);
    expect(done).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    await p;
    expect(done).toBe(true);
  });

  it('rejects with the reason as soon as the signal aborts, and clears its timer', async () => {
    const controller = new AbortController();
    const p = sleep(10_000, controller.signal);
    const reason = new Error('stop');
    await vi.advanceTimersByTimeAsync(100);
    controller.abort(reason);
    await expect(p).rejects.toBe(reason);
    expect(vi.getTimerCount()).toBe(0);
  });

  it('rejects at once for an already aborted signal without starting a timer', async () => {
    const controller = new AbortController();
    controller.abort('gone');
    await expect(sleep(10_000, controller.signal)).rejects.toBe('gone');
    expect(vi.getTimerCount()).toBe(0);
  });

  it('removes its abort listener once it resolves', async () => {
    const controller = new AbortController();
    const remove = vi.spyOn(controller.signal, 'removeEventListener');
    const p = sleep(10, controller.signal);
    await vi.advanceTimersByTimeAsync(10);
    await p;
    expect(remove).toHaveBeenCalledWith('abort', expect.any(Function));
    controller.abort();
  });
});

describe('Transport retries (against a scripted server)', () => {
  let stub: Stub;
  let transport: Transport;

  const make = (retry: Partial<RetryPolicy> = {}, timeoutMs = 2000) =>
    new Transport({
      timeoutMs,
      connectTimeoutMs: 1000,
      retry: { retries: 3, baseDelayMs: 10, maxDelayMs: 50, maxRetryAfterMs: 5000, ...retry },
      rejectUnauthorized: true,
      userAgent: 'test-agent',
    });

  const req = (over: Partial<HttpRequest> = {}): HttpRequest => ({
    method: 'GET',
    url: `${stub.url}/thing`,
    credential: 'k',
    context: 'Test call',
    ...over,
  });

  const fail = async (p: Promise<unknown>): Promise<MediaSpacesError> =>
    p.then(
      () => {
        throw new Error('expected a failure');
      },
      (e: MediaSpacesError) => e,
    );

  /** Answers the scripted responses in order, then 200 {ok: true}. */
  const script = (...steps: Array<(res: import('node:http').ServerResponse) => void>) =>
    stub.handle((_req, res, i) => (steps[i] ? steps[i](res) : json(res, 200, { ok: true, n: i })));

  beforeEach(async () => {
    stub = await startStub();
    transport = make();
  });

  afterEach(async () => {
    await transport.close();
    await stub.close();
  });

  it('sends the credential, accept, user agent, and a JSON body with its content type', async () => {
    const res = await transport.send(
      req({ method: 'POST', body: { a: 1 }, idempotencyKey: 'key-1' }),
      (b) => b as Record<string, never>,
    );
    expect(res).toEqual({ status: 200, data: {}, attempts: 1, replayed: false });
    const sent = stub.requests[0];
    expect(sent.headers.authorization).toBe('Bearer k');
    expect(sent.headers.accept).toBe('application/json');
    expect(sent.headers['user-agent']).toBe('test-agent');
    expect(sent.headers['content-type']).toBe('application/json');
    expect(sent.headers['idempotency-key']).toBe('key-1');
    expect(JSON.parse(sent.body)).toEqual({ a: 1 });

    await transport.send(req({ credential: undefined }), (b) => b);
    expect(stub.requests[1].headers.authorization).toBeUndefined();
    expect(stub.requests[1].headers['content-type']).toBeUndefined();
  });

  it('treats any 2xx as success, an empty body included, and reports a replay', async () => {
    script(
      (res) => {
        res.writeHead(204);
        res.end();
      },
      (res) => json(res, 201, { id: 'x' }, { 'idempotent-replayed': 'true' }),
    );
    expect(await transport.send(req({ method: 'DELETE' }), (b) => b ?? null)).toMatchObject({
      status: 204,
      data: null,
    });
    expect(await transport.send(req({ method: 'POST', idempotencyKey: 'k2' }), (b) => b)).toEqual({
      status: 201,
      data: { id: 'x' },
      attempts: 1,
      replayed: true,
    });
  });

  it('turns a parse failure of a 2xx body into invalid_response', async () => {
    const err = await fail(
      transport.send(req(), () => {
        throw new Error('id: required');
      }),
    );
    expect(err.code).toBe('invalid_response');
    expect(err.status).toBe(200);
    expect(err.message).toContain('id: required');
  });

  it('retries 502, 503 and 504 with backoff, then succeeds', async () => {
    script(
      (res) => json(res, 502, { error_message: 'a' }),
      (res) => json(res, 503, { error_message: 'b' }),
      (res) => json(res, 504, { error_message: 'c' }),
    );
    const res = await transport.send(req(), (b) => b);
    expect(res.attempts).toBe(4);
    expect(res.data).toEqual({ ok: true, n: 3 });
    expect(stub.requests).toHaveLength(4);
  });

  it('gives up after the configured retries with the last error', async () => {
    stub.handle((_r, res, i) => json(res, 503, { error_message: `down ${i}` }));
    const err = await fail(transport.send(req(), (b) => b));
    expect(err.code).toBe('server_error');
    expect(err.status).toBe(503);
    expect(err.message).toContain('down 3');
    expect(stub.requests).toHaveLength(4);
  });

  it('does not retry 500, 400, 401, 404 or 422', async () => {
    for (const status of [500, 400, 401, 404, 422]) {
      stub.requests.length = 0;
      stub.handle((_r, res) => json(res, status, { error_message: 'no' }));
      const err = await fail(transport.send(req(), (b) => b));
      expect(err.status).toBe(status);
      expect(stub.requests).toHaveLength(1);
    }
  });

  it('honours a Retry-After in seconds over the backoff', async () => {
    script((res) => json(res, 429, { error_message: 'slow down' }, { 'retry-after': '0.3' }));
    const res = await transport.send(req(), (b) => b);
    expect(res.attempts).toBe(2);
    const gap = stub.requests[1].at - stub.requests[0].at;
    expect(gap).toBeGreaterThanOrEqual(290);
  });

  it('ends the retries when Retry-After is longer than the cap', async () => {
    transport = make({ maxRetryAfterMs: 1000 });
    stub.handle((_r, res) => json(res, 429, { error_message: 'later' }, { 'retry-after': '2' }));
    const started = Date.now();
    const err = await fail(transport.send(req(), (b) => b));
    expect(err.code).toBe('rate_limited');
    expect(err.status).toBe(429);
    expect(stub.requests).toHaveLength(1);
    expect(Date.now() - started).toBeLessThan(1000);
  });

  it('never retries a POST without an Idempotency-Key, whatever the failure', async () => {
    stub.handle((_r, res) => json(res, 503, { error_message: 'busy' }));
    expect((await fail(transport.send(req({ method: 'POST', body: {} }), (b) => b))).status).toBe(503);
    expect(stub.requests).toHaveLength(1);

    stub.handle((_r, res) => {
      res.socket?.destroy();
    });
    expect((await fail(transport.send(req({ method: 'POST', body: {} }), (b) => b))).code).toBe('network_error');
    expect(stub.requests).toHaveLength(2);
  });

  it('retries 409 only for a POST with an Idempotency-Key (its first attempt is still in progress)', async () => {
    script((res) => json(res, 409, { error_message: 'a request with this Idempotency-Key is still in progress' }));
    const res = await transport.send(req({ method: 'POST', body: {}, idempotencyKey: 'k' }), (b) => b);
    expect(res.attempts).toBe(2);

    stub.requests.length = 0;
    stub.handle((_r, res) => json(res, 409, { error_message: 'conflict' }));
    expect((await fail(transport.send(req(), (b) => b))).code).toBe('conflict');
    expect((await fail(transport.send(req({ method: 'POST', body: {} }), (b) => b))).code).toBe('conflict');
    expect(stub.requests).toHaveLength(2);
  });

  describe('a key whose first request is still in progress (409)', () => {
    const inProgress = (res: import('node:http').ServerResponse) =>
      json(res, 409, { error_message: 'a request with this Idempotency-Key is still in progress; retry later' });
    const keyed = (over: Partial<HttpRequest> = {}) =>
      req({ method: 'POST', body: { a: 1 }, idempotencyKey: 'k', ...over });

    it('asks again without spending a retry, until the answer comes', async () => {
      const t = make({ retries: 1 });
      try {
        script(inProgress, inProgress, inProgress, inProgress, inProgress, inProgress);
        const res = await t.send(keyed(), (b) => b);
        expect(res.attempts).toBe(7);
        expect(res.data).toEqual({ ok: true, n: 6 });
        expect(new Set(stub.requests.map((r) => r.headers['idempotency-key']))).toEqual(new Set(['k']));

        // the retry is still there for a real failure after the wait
        stub.requests.length = 0;
        script(inProgress, inProgress, (res) => json(res, 503, { error_message: 'busy' }));
        expect((await t.send(keyed(), (b) => b)).attempts).toBe(4);
      } finally {
        await t.close();
      }
    });

    it('gives up with the 409 once it has waited as long as one attempt may take, and then spent its retries', async () => {
      const t = make({ retries: 3 }, 400);
      try {
        stub.handle((_r, res) => inProgress(res));
        const started = Date.now();
        const error = await fail(t.send(keyed(), (b) => b));
        const waited = Date.now() - started;
        expect([error.status, error.code]).toEqual([409, 'conflict']);
        expect(error.message).toContain('still in progress');
        expect(stub.requests.length).toBeGreaterThan(4);
        expect(waited).toBeGreaterThanOrEqual(300);
        expect(waited).toBeLessThan(2000);
      } finally {
        await t.close();
      }
    });

    it("follows the service's Retry-After, and does not ask again when retries are off", async () => {
      script((res) => {
        res.setHeader('retry-after', '0.3');
        inProgress(res);
      });
      const started = Date.now();
      expect((await transport.send(keyed(), (b) => b)).attempts).toBe(2);
      expect(Date.now() - started).toBeGreaterThanOrEqual(280);

      stub.requests.length = 0;
      stub.handle((_r, res) => inProgress(res));
      expect((await fail(transport.send(keyed({ retries: 0 }), (b) => b))).status).toBe(409);
      expect(stub.requests).toHaveLength(1);
    });
  });

  it('retries a POST with an Idempotency-Key after a dropped connection, with the same key', async () => {
    script((res) => res.socket?.destroy());
    const res = await transport.send(req({ method: 'POST', body: { a: 1 }, idempotencyKey: 'same' }), (b) => b);
    expect(res.attempts).toBe(2);
    expect(stub.requests.map((r) => r.headers['idempotency-key'])).toEqual(['same', 'same']);
    expect(stub.requests.map((r) => r.body)).toEqual(['{"a":1}', '{"a":1}']);
  });

  it('retries a GET and a DELETE after a dropped connection', async () => {
    script((res) => res.socket?.destroy());
    expect((await transport.send(req(), (b) => b)).attempts).toBe(2);
    stub.requests.length = 0;
    script((res) => res.socket?.destroy());
    expect((await transport.send(req({ method: 'DELETE' }), (b) => b)).attempts).toBe(2);
  });

  it('a retried DELETE that finds nothing after a lost answer succeeds as alreadyGone; a plain 404 fails', async () => {
    // the first attempt was carried out, its answer lost; the retry finds the event gone
    script(
      (res) => res.socket?.destroy(),
      (res) => json(res, 404, { error_message: 'event not found' }),
    );
    const res = await transport.send(req({ method: 'DELETE' }), (b) => b ?? null);
    expect(res).toEqual({ status: 404, data: null, attempts: 2, replayed: false, alreadyGone: true });

    // likewise after a gateway's 503 (the service behind it may have acted)
    stub.requests.length = 0;
    script(
      (r) => json(r, 503, { error_message: 'unavailable' }),
      (r) => json(r, 404, { error_message: 'event not found' }),
    );
    expect((await transport.send(req({ method: 'DELETE' }), (b) => b ?? null)).alreadyGone).toBe(true);

    // a 404 on the first attempt is an answer: no such event
    stub.requests.length = 0;
    script((r) => json(r, 404, { error_message: 'event not found' }));
    expect((await fail(transport.send(req({ method: 'DELETE' }), (b) => b))).code).toBe('not_found');
    // a GET after a lost answer that then gets 404 is not found either
    stub.requests.length = 0;
    script(
      (r) => r.socket?.destroy(),
      (r) => json(r, 404, { error_message: 'gone' }),
    );
    expect((await fail(transport.send(req(), (b) => b))).code).toBe('not_found');
  });

  it('times out an attempt that does not answer, then retries it', async () => {
    transport = make({}, 200);
    script(() => {
      /* never answers */
    });
    const res = await transport.send(req(), (b) => b);
    expect(res.attempts).toBe(2);

    stub.handle(() => {
      /* never answers */
    });
    const t2 = make({ retries: 1 }, 100);
    try {
      const err = await fail(t2.send(req(), (b) => b));
      expect(err.code).toBe('timeout');
      expect(err.message).toBe('Test call timed out after 100 ms');
    } finally {
      await t2.close();
    }
  });

  it('aborts promptly while waiting for an answer and while backing off', async () => {
    stub.handle(() => {
      /* never answers */
    });
    const c1 = new AbortController();
    const t0 = Date.now();
    setTimeout(() => c1.abort(), 30);
    const e1 = await fail(transport.send(req({ signal: c1.signal }), (b) => b));
    expect(e1.code).toBe('aborted');
    expect(Date.now() - t0).toBeLessThan(1000);

    stub.handle((_r, res) => json(res, 503, {}, { 'retry-after': '4' }));
    const c2 = new AbortController();
    const t1 = Date.now();
    const p = transport.send(req({ signal: c2.signal }), (b) => b);
    setTimeout(() => c2.abort(), 100);
    const e2 = await fail(p);
    expect(e2.code).toBe('aborted');
    expect(Date.now() - t1).toBeLessThan(2000);
  });

  it('close() aborts in-flight requests and refuses new ones', async () => {
    stub.handle(() => {
      /* never answers */
    });
    const p = fail(transport.send(req(), (b) => b));
    await new Promise((r) => setTimeout(r, 50));
    const t0 = Date.now();
    await transport.close();
    const err = await p;
    expect(err.code).toBe('aborted');
    expect(Date.now() - t0).toBeLessThan(1000);
    const after = await fail(transport.send(req(), (b) => b));
    expect(after.code).toBe('aborted');
    expect(after.message).toBe('Test call aborted: client closed');
  });

  it('with a deadline, retries past the retry count until the deadline and reports each retry', async () => {
    transport = make({ retries: 0 });
    // 503 six times, then the answer: more attempts than retries allows
    stub.handle((_req, res, i) => (i < 6 ? json(res, 503, { message: 'down' }) : json(res, 200, { ok: true, n: i })));
    const notices: { attempt: number; status?: number; delayMs: number }[] = [];
    const res = await transport.send(
      req({
        deadline: Date.now() + 10_000,
        onRetry: (n) => notices.push({ attempt: n.attempt, status: n.error.status, delayMs: n.delayMs }),
      }),
      (b) => b,
    );
    expect(res.attempts).toBe(7);
    expect(notices.map((n) => [n.attempt, n.status])).toEqual([1, 2, 3, 4, 5, 6].map((a) => [a, 503]));
    // backoff capped (the policy's 50 ms cap here, and never more than the deadline step)
    expect(notices.every((n) => n.delayMs <= 50)).toBe(true);
  });

  it('with a deadline, gives up with the last error when the next attempt would start past it', async () => {
    transport = make({ retries: 0, baseDelayMs: 200, maxDelayMs: 200 });
    stub.handle((_req, res) => json(res, 503, { message: 'down' }));
    const deadline = Date.now() + 1_000;
    const error = await fail(transport.send(req({ deadline }), (b) => b));
    expect(error.status).toBe(503);
    const attempts = stub.requests.length;
    // one attempt per 100-200 ms step inside one second, none after the deadline
    expect(attempts).toBeGreaterThanOrEqual(5);
    expect(attempts).toBeLessThanOrEqual(11);
    expect(Math.max(...stub.requests.map((r) => r.at))).toBeLessThan(deadline);
  });

  it('with a deadline, a POST without an Idempotency-Key is still sent once', async () => {
    stub.handle((_req, res) => json(res, 503, { message: 'down' }));
    const error = await fail(transport.send(req({ method: 'POST', body: {}, deadline: Date.now() + 5_000 }), (b) => b));
    expect(error.status).toBe(503);
    expect(stub.requests).toHaveLength(1);
  });

  it('a 409 the service replays for this key is its answer, not a request still in progress', async () => {
    stub.handle((_req, res) =>
      json(
        res,
        409,
        { message: 'channel is ACTIVE; only a RECORDING channel can be stopped' },
        { 'idempotent-replayed': 'true' },
      ),
    );
    const error = await fail(transport.send(req({ method: 'POST', body: {}, idempotencyKey: 'k1' }), (b) => b));
    expect(error.status).toBe(409);
    expect(stub.requests).toHaveLength(1);
  });
});

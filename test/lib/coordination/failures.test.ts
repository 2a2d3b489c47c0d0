import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type ConnectionStatus, CoordinationError, parseRedisUrl, RedisConnection } from '../../../lib/coordination';
import { freePort, RedisServer } from '../../support/redis-server';
import { Instances, sleep, waitFor } from './support';

const instances = new Instances();
const unhandled: unknown[] = [];
const onUnhandled = (reason: unknown) => unhandled.push(reason);

beforeAll(() => {
  process.on('unhandledRejection', onUnhandled);
});
afterEach(async () => {
  await instances.closeAll();
});
afterAll(() => {
  process.off('unhandledRejection', onUnhandled);
  expect(unhandled).toEqual([]);
});

const ref = { schedule: 'news', slot: '2030-01-01T06:00:00Z', phase: 'start' };

async function rejection(promise: Promise<unknown>): Promise<CoordinationError> {
  try {
    await promise;
  } catch (err) {
    expect(err).toBeInstanceOf(CoordinationError);
    return err as CoordinationError;
  }
  throw new Error('expected a rejection');
}

describe('malformed url', () => {
  it.each([
    [
      'http://127.0.0.1:6379',
      /url must be redis:\/\/host:port or rediss:\/\/host:port, got "http:\/\/127.0.0.1:6379" \(scheme http:\)/,
    ],
    ['127.0.0.1:6379', /url must be redis:\/\/host:port or rediss:\/\/host:port, got "127.0.0.1:6379"/],
    ['redis://', /url must be redis:\/\/host:port or rediss:\/\/host:port, got "redis:\/\/"/],
    ['redis://host:99999', /url must be redis:\/\/host:port or rediss:\/\/host:port, got "redis:\/\/host:99999"/],
    ['redis://host:6379/abc', /the path may only be a database number/],
    ['', /got nothing/],
    ['redis://user:secret@host:6379', /must not contain a username or password: enter them in the credentials/],
  ])('refuses %j', (url, message) => {
    let error: unknown;
    try {
      new RedisConnection({ url });
    } catch (err) {
      error = err;
    }
    expect(error).toBeInstanceOf(CoordinationError);
    expect((error as CoordinationError).code).toBe('invalid_config');
    expect((error as CoordinationError).message).toMatch(message);
    expect((error as CoordinationError).message).not.toContain('secret');
  });

  it('accepts plain, TLS, default-port and database forms', () => {
    expect(parseRedisUrl('redis://127.0.0.1:6390')).toMatchObject({
      tls: false,
      port: 6390,
      display: 'redis://127.0.0.1:6390',
    });
    expect(parseRedisUrl('rediss://redis.example.com')).toMatchObject({
      tls: true,
      port: 6379,
      host: 'redis.example.com',
    });
    expect(parseRedisUrl(' redis://[::1]:7000/2 ')).toMatchObject({ host: '::1', port: 7000, database: 2 });
  });
});

describe('unreachable redis', () => {
  it('fails fast with an error naming the server, keeps retrying, and works once Redis is up', async () => {
    const port = await freePort();
    const url = `redis://127.0.0.1:${port}`;
    const coordinator = instances.coordinator(url, 'node-a');
    const statuses: ConnectionStatus[] = [];
    coordinator.connection.onStatus((s) => statuses.push(s));

    const started = Date.now();
    const first = await rejection(coordinator.claim(ref));
    expect(first.code).toBe('unavailable');
    expect(first.unreachable).toBe(true);
    expect(first.message).toBe(`Redis at ${url} refused the connection`);
    expect(Date.now() - started).toBeLessThan(1500);

    // once known to be down, commands do not wait at all
    const again = Date.now();
    expect((await rejection(coordinator.getDone(ref))).message).toBe(`Redis at ${url} refused the connection`);
    expect(Date.now() - again).toBeLessThan(100);
    expect(coordinator.connection.status).toMatchObject({
      state: 'error',
      error: `Redis at ${url} refused the connection`,
    });

    const redis = await RedisServer.startOnPort(port);
    try {
      await waitFor(() => coordinator.connection.status.state === 'connected', 8000);
      expect((await coordinator.claim(ref)).status).toBe('won');
      expect(statuses.map((s) => s.state)).toEqual(['error', 'connected']);
    } finally {
      await redis.dispose();
    }
  });

  it('reports a lost connection, fails fast while down, and reconnects to a restarted server', async () => {
    const redis = await RedisServer.start();
    try {
      const coordinator = instances.coordinator(redis.url, 'node-a');
      expect((await coordinator.claim(ref)).status).toBe('won');
      await redis.stop();
      await waitFor(() => coordinator.connection.status.state === 'error');
      const err = await rejection(coordinator.claim({ ...ref, phase: 'end' }));
      expect(err.code).toBe('unavailable');
      expect(err.message).toMatch(new RegExp(`Redis at ${redis.url} (refused|closed) the connection`));
      await redis.start();
      await waitFor(() => coordinator.connection.status.state === 'connected', 8000);
      expect((await coordinator.claim({ ...ref, phase: 'end' })).status).toBe('won');
    } finally {
      await redis.dispose();
    }
  });

  it('times out a command of a server that stopped answering, instead of queueing it', async () => {
    const redis = await RedisServer.start();
    try {
      const connection = instances.connection({ url: redis.url, commandTimeoutMs: 200 });
      await connection.whenReady();
      redis.pause();
      const started = Date.now();
      const err = await rejection(connection.send(['PING']));
      expect(err.code).toBe('timeout');
      expect(err.message).toBe(`Redis at ${redis.url} did not answer in time`);
      expect(Date.now() - started).toBeLessThan(1000);
    } finally {
      redis.resume();
      await redis.dispose();
    }
  });

  it('rejects commands after close with code closed', async () => {
    const connection = instances.connection({ url: `redis://127.0.0.1:${await freePort()}` });
    await connection.close();
    expect((await rejection(connection.send(['PING']))).code).toBe('closed');
    await connection.close();
  });
});

describe('authentication', () => {
  let redis: RedisServer;
  beforeAll(async () => {
    redis = await RedisServer.start({ password: 'right-pass', user: { name: 'scheduler', password: 'user-pass' } });
  });
  afterAll(async () => {
    await redis.dispose();
  });

  it('says the password was rejected, and never shows it', async () => {
    const coordinator = instances.coordinator(redis.url, 'node-a', { password: 'wrong-pass' });
    const err = await rejection(coordinator.claim(ref));
    expect(err.code).toBe('auth');
    expect(err.message).toBe('Redis rejected the username or password');
    expect(JSON.stringify(coordinator.connection.status)).not.toContain('wrong-pass');
  });

  it('says a password is needed when none was given', async () => {
    const coordinator = instances.coordinator(redis.url, 'node-a');
    const err = await rejection(coordinator.claim(ref));
    expect(err.code).toBe('auth');
    expect(err.message).toBe(`Redis at ${redis.url} requires a password: enter it in the credentials`);
  });

  it('works with the right password, and with an ACL user', async () => {
    const a = instances.coordinator(redis.url, 'node-a', { password: 'right-pass' });
    const b = instances.coordinator(redis.url, 'node-b', { username: 'scheduler', password: 'user-pass' });
    expect((await a.claim(ref)).status).toBe('won');
    expect((await b.claim(ref)).status).toBe('held');
    const wrongUser = instances.coordinator(redis.url, 'node-c', { username: 'scheduler', password: 'nope' });
    expect((await rejection(wrongUser.claim(ref))).message).toBe('Redis rejected the username or password');
  });
});

describe('redis that lost its data', () => {
  it('never lets this instance act twice when told what it already did locally', async () => {
    const redis = await RedisServer.start({ persistence: 'none' });
    try {
      const a = instances.coordinator(redis.url, 'node-a');
      const b = instances.coordinator(redis.url, 'node-b');
      const won = await a.claim(ref);
      if (won.status !== 'won') throw new Error('expected won');
      await a.complete(ref, won.token, { id: 'ch-1' });
      const localJournal = new Map([[`${ref.schedule}|${ref.slot}|${ref.phase}`, { id: 'ch-1' }]]);

      await redis.restart({ persistence: 'none' }); // everything in Redis is gone
      await waitFor(() => a.connection.status.state === 'connected', 8000);
      expect(await a.getDone(ref)).toBeUndefined();

      const local = localJournal.get(`${ref.schedule}|${ref.slot}|${ref.phase}`);
      const again = await a.claim(ref, { locallyDone: local ? { result: local } : false });
      expect(again.status).toBe('done');
      // the record is written back, so the other instance sees it too, with the result
      const seen = await b.claim(ref);
      expect(seen.status).toBe('done');
      if (seen.status === 'done')
        expect(seen.record).toMatchObject({ instance: 'node-a', restored: true, result: { id: 'ch-1' } });
      expect(await b.highWaterMark('news')).toBe('2030-01-01T06:00:00.000Z');
    } finally {
      await redis.dispose();
    }
  });

  it('survives FLUSHALL: fencing tokens of the old claim no longer complete', async () => {
    const redis = await RedisServer.start();
    try {
      const a = instances.coordinator(redis.url, 'node-a');
      const b = instances.coordinator(redis.url, 'node-b');
      const first = await a.claim(ref);
      if (first.status !== 'won') throw new Error('expected won');
      await redis.cli('FLUSHALL');
      const second = await b.claim(ref);
      if (second.status !== 'won') throw new Error('expected won');
      // both hold token 1 now; the check includes the instance, so a's complete is refused
      expect(second.token).toBe(first.token);
      expect((await a.complete(ref, first.token)).status).toBe('lost');
      expect((await b.complete(ref, second.token)).status).toBe('completed');
    } finally {
      await redis.dispose();
    }
  });

  it('keeps done records across a restart with persistence (append-only file)', async () => {
    const redis = await RedisServer.start({ persistence: 'aof' });
    try {
      const a = instances.coordinator(redis.url, 'node-a');
      const won = await a.claim(ref);
      if (won.status !== 'won') throw new Error('expected won');
      await a.complete(ref, won.token, { id: 'ch-1' });
      await redis.restart();
      await sleep(50);
      await waitFor(() => a.connection.status.state === 'connected', 8000);
      // the script cache is empty after a restart: EVALSHA falls back to EVAL
      const seen = await a.claim(ref);
      expect(seen.status).toBe('done');
      expect((await a.getDone(ref))?.result).toEqual({ id: 'ch-1' });
    } finally {
      await redis.dispose();
    }
  });
});

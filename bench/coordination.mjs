// What coordination through Redis adds to each schedule slot: round trips and
// latency of claim + complete for start and for end, against a plain PING
// round trip measured in the same run, on loopback, with its own redis-server.
// `npm run build && node bench/coordination.mjs [--slots N]`
import { createRequire } from 'node:module';
import { performance } from 'node:perf_hooks';
import { startRedis } from './lib/redis-server.mjs';

const require = createRequire(import.meta.url);
const { Coordinator, RedisConnection } = require('../dist/lib/coordination/index.js');

const argv = process.argv.slice(2);
const SLOTS = Number(argv[argv.indexOf('--slots') + 1]) || 2000;

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)];
};
const p99 = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length * 0.99)];
const ms = (x) => `${x.toFixed(3)} ms`;

const redis = await startRedis();
const connection = new RedisConnection({ url: redis.url });
const coordinator = new Coordinator({ connection, instanceId: 'bench' });
try {
  await connection.whenReady();
  const ping = [];
  for (let i = 0; i < SLOTS * 2; i++) {
    const t = performance.now();
    await connection.send(['PING']);
    ping.push(performance.now() - t);
  }
  const perSlot = [];
  const base = Date.UTC(2030, 0, 1);
  for (let i = 0; i < SLOTS; i++) {
    const slot = new Date(base + i * 60_000);
    const t = performance.now();
    for (const phase of ['start', 'end']) {
      const ref = { schedule: 'bench', slot, phase };
      const claim = await coordinator.claim(ref);
      if (claim.status !== 'won') throw new Error(`unexpected ${claim.status}`);
      await coordinator.complete(ref, claim.token, { channel: { id: `ch-${i}` } });
    }
    perSlot.push(performance.now() - t);
  }
  const roundTrips = 4; // claim + complete, for start and for end
  const pingMedian = median(ping);
  console.log(`coordination benchmark: ${SLOTS} slots, redis-server on loopback`);
  console.log(`  PING round trip           median ${ms(pingMedian)}  p99 ${ms(p99(ping))}`);
  console.log(`  per slot (start + end)    ${roundTrips} round trips (EVALSHA claim, EVALSHA complete, twice)`);
  console.log(`  added latency per slot    median ${ms(median(perSlot))}  p99 ${ms(p99(perSlot))}`);
  console.log(
    `  = ${(median(perSlot) / pingMedian).toFixed(1)} × a PING round trip (${roundTrips} round trips are made)`,
  );
  if (argv.includes('--json')) {
    const round = (x) => Math.round(x * 1000) / 1000;
    const figures = {
      slots: SLOTS,
      roundTrips,
      pingMedianMs: round(pingMedian),
      perSlotMedianMs: round(median(perSlot)),
      perSlotP99Ms: round(p99(perSlot)),
    };
    console.log(JSON.stringify(figures));
  }
} finally {
  await connection.close();
  await redis.stop();
}

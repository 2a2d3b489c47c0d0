// What the coordination left in Redis: every key under the prefix, grouped
// by its shape (slot time, schedule and job id replaced by *), with its TTL.
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
const { RedisConnection } = require('../../dist/lib/coordination/index.js');

/** `media-spaces:slot:soak%3Alane0-1203:2030-…Z:start:done` -> `slot:*:start:done` */
export function keyShape(key, prefix) {
  const rest = key.startsWith(prefix) ? key.slice(prefix.length) : key;
  const parts = rest.split(':');
  if (parts[0] === 'slot') return `slot:*:${parts.at(-2)}:${parts.at(-1)}`;
  if (parts[0] === 'job') return `job:*:${parts.slice(2).join(':')}`;
  if (parts[0] === 'hwm' || parts[0] === 'lock') return `${parts[0]}:*${parts.length > 3 ? `:${parts.at(-1)}` : ''}`;
  return rest;
}

export async function redisCensus(url, prefix) {
  const connection = new RedisConnection({ url });
  await connection.whenReady(5000);
  try {
    const shapes = {};
    let cursor = '0';
    do {
      const [next, keys] = await connection.send(['SCAN', cursor, 'MATCH', `${prefix}*`, 'COUNT', '1000']);
      cursor = String(next);
      for (const key of keys) {
        const ttlMs = Number(await connection.send(['PTTL', key]));
        const shape = keyShape(key, prefix);
        shapes[shape] ??= { keys: 0, withoutTtl: 0, minTtlS: null, maxTtlS: null };
        const s = shapes[shape];
        s.keys++;
        if (ttlMs < 0) s.withoutTtl++;
        else {
          const ttlS = Math.round(ttlMs / 1000);
          s.minTtlS = s.minTtlS === null ? ttlS : Math.min(s.minTtlS, ttlS);
          s.maxTtlS = s.maxTtlS === null ? ttlS : Math.max(s.maxTtlS, ttlS);
        }
      }
    } while (cursor !== '0');
    const dbsize = Number(await connection.send(['DBSIZE']));
    const jobsHash = Number(await connection.send(['HLEN', `${prefix}jobs`]));
    const keys = Object.values(shapes).reduce((n, s) => n + s.keys, 0);
    const withoutTtl = Object.values(shapes).reduce((n, s) => n + s.withoutTtl, 0);
    return { dbsize, keys, withoutTtl, jobsHashFields: jobsHash, shapes };
  } finally {
    await connection.close();
  }
}

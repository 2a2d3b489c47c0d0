import { luaScript } from './connection';

/**
 * The Lua scripts that make each step atomic on the Redis side. Claims and
 * locks hold `{"instance":…,"token":…}`; the token comes from a per-key
 * fencing counter (a hash: `n` the last token, `owner` who got it), so a
 * stale owner whose lease ran out can no longer complete once anyone else
 * claimed.
 */

const IS_OURS = `
local function is_ours(claim_key, fence_key, instance, token)
  local claim = redis.call('GET', claim_key)
  if claim then
    local c = cjson.decode(claim)
    return c.instance == instance and tostring(c.token) == token
  end
  local f = redis.call('HMGET', fence_key, 'n', 'owner')
  return f[1] == token and f[2] == instance
end
`;

/** KEYS claim, done, fence, hwm; ARGV instance, leaseMs, localDoneJson|'' , doneTtlMs, slot */
export const CLAIM = luaScript(
  'claim',
  `
local done = redis.call('GET', KEYS[2])
if done then return {'done', done} end
if ARGV[3] ~= '' then
  redis.call('SET', KEYS[2], ARGV[3], 'PX', ARGV[4])
  local hwm = redis.call('GET', KEYS[4])
  if (not hwm) or ARGV[5] > hwm then redis.call('SET', KEYS[4], ARGV[5]) end
  redis.call('PEXPIRE', KEYS[4], ARGV[4])
  return {'done', ARGV[3]}
end
local held = redis.call('GET', KEYS[1])
if held then return {'held', held, tostring(redis.call('PTTL', KEYS[1]))} end
local token = redis.call('HINCRBY', KEYS[3], 'n', 1)
redis.call('HSET', KEYS[3], 'owner', ARGV[1])
redis.call('PEXPIRE', KEYS[3], ARGV[4])
redis.call('SET', KEYS[1], cjson.encode({instance = ARGV[1], token = token}), 'PX', ARGV[2])
return {'won', tostring(token)}
`,
);

/** KEYS claim, done, fence, hwm; ARGV instance, token, doneJson, doneTtlMs, slot */
export const COMPLETE = luaScript(
  'complete',
  `${IS_OURS}
local done = redis.call('GET', KEYS[2])
if done then return {'lost', 'done', done} end
if not is_ours(KEYS[1], KEYS[3], ARGV[1], ARGV[2]) then
  return {'lost', 'claimed', redis.call('GET', KEYS[1]) or ''}
end
redis.call('SET', KEYS[2], ARGV[3], 'PX', ARGV[4])
redis.call('DEL', KEYS[1])
local hwm = redis.call('GET', KEYS[4])
if (not hwm) or ARGV[5] > hwm then redis.call('SET', KEYS[4], ARGV[5]) end
redis.call('PEXPIRE', KEYS[4], ARGV[4])
return {'completed'}
`,
);

/**
 * KEYS claim, done, fence; ARGV instance, token, leaseMs.
 * A lease that ran out is renewed too while nobody else claimed since (the
 * fencing counter still names us), so a slow request is not lost for nothing.
 */
export const RENEW_CLAIM = luaScript(
  'renew-claim',
  `${IS_OURS}
if redis.call('EXISTS', KEYS[2]) == 1 then return 0 end
if not is_ours(KEYS[1], KEYS[3], ARGV[1], ARGV[2]) then return 0 end
redis.call('SET', KEYS[1], cjson.encode({instance = ARGV[1], token = tonumber(ARGV[2])}), 'PX', ARGV[3])
return 1
`,
);

/** KEYS claim-or-lock; ARGV instance, token. Deletes it only if still ours. */
export const RELEASE = luaScript(
  'release',
  `
local held = redis.call('GET', KEYS[1])
if not held then return 0 end
local c = cjson.decode(held)
if c.instance == ARGV[1] and tostring(c.token) == ARGV[2] then
  redis.call('DEL', KEYS[1])
  return 1
end
return 0
`,
);

/** KEYS latest-end; ARGV end (epoch ms), ttlMs. Keeps the greater of the two; returns it. */
export const RAISE_END = luaScript(
  'raise_end',
  `
local held = tonumber(redis.call('GET', KEYS[1]) or '0')
local offered = tonumber(ARGV[1])
if offered > held then
  redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
  return ARGV[1]
end
return tostring(held)
`,
);

/** KEYS lock, fence; ARGV instance, leaseMs, fenceTtlMs */
export const ACQUIRE_LOCK = luaScript(
  'acquire-lock',
  `
local held = redis.call('GET', KEYS[1])
if held then return {'held', held, tostring(redis.call('PTTL', KEYS[1]))} end
local token = redis.call('INCR', KEYS[2])
redis.call('PEXPIRE', KEYS[2], ARGV[3])
redis.call('SET', KEYS[1], cjson.encode({instance = ARGV[1], token = token}), 'PX', ARGV[2])
return {'acquired', tostring(token)}
`,
);

/** KEYS lock; ARGV instance, token, leaseMs. Extends only a lock still ours. */
export const RENEW_LOCK = luaScript(
  'renew-lock',
  `
local held = redis.call('GET', KEYS[1])
if not held then return 0 end
local c = cjson.decode(held)
if c.instance == ARGV[1] and tostring(c.token) == ARGV[2] then
  redis.call('PEXPIRE', KEYS[1], ARGV[3])
  return 1
end
return 0
`,
);

const NOW = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
`;

/**
 * KEYS jobs, reported; ARGV instance, jobId, recordJson, heartbeatMs.
 * Heartbeat expiry is measured on the Redis clock, so instances with skewed
 * clocks agree on whose heartbeat ran out.
 */
export const REGISTER_JOB = luaScript(
  'register-job',
  `${NOW}
local reported = redis.call('GET', KEYS[2])
if reported then return {'reported', reported} end
local cur = redis.call('HGET', KEYS[1], ARGV[2])
local previous = nil
local registered_at = now
if cur then
  local c = cjson.decode(cur)
  if c.owner ~= ARGV[1] and c.heartbeatUntil > now then return {'owned', cur} end
  if c.owner ~= ARGV[1] then previous = c.owner end
  registered_at = c.registeredAt or now
end
local r = cjson.decode(ARGV[3])
r.owner = ARGV[1]
r.heartbeatUntil = now + tonumber(ARGV[4])
r.registeredAt = registered_at
r.previousOwner = previous
local encoded = cjson.encode(r)
redis.call('HSET', KEYS[1], ARGV[2], encoded)
return {'registered', encoded}
`,
);

/** KEYS jobs; ARGV instance, heartbeatMs, jobId... → {kept ids, lost ids} */
export const HEARTBEAT_JOBS = luaScript(
  'heartbeat-jobs',
  `${NOW}
local kept, lost = {}, {}
for i = 3, #ARGV do
  local cur = redis.call('HGET', KEYS[1], ARGV[i])
  local ok = false
  if cur then
    local c = cjson.decode(cur)
    if c.owner == ARGV[1] then
      c.heartbeatUntil = now + tonumber(ARGV[2])
      redis.call('HSET', KEYS[1], ARGV[i], cjson.encode(c))
      ok = true
    end
  end
  if ok then kept[#kept + 1] = ARGV[i] else lost[#lost + 1] = ARGV[i] end
end
return {kept, lost}
`,
);

/** KEYS jobs; ARGV instance, heartbeatMs, max → records taken from owners whose heartbeat ran out */
export const TAKE_OVER_JOBS = luaScript(
  'take-over-jobs',
  `${NOW}
local taken = {}
local all = redis.call('HGETALL', KEYS[1])
local max = tonumber(ARGV[3])
for i = 1, #all, 2 do
  if #taken >= max then break end
  local c = cjson.decode(all[i + 1])
  if c.owner ~= ARGV[1] and c.heartbeatUntil <= now then
    c.previousOwner = c.owner
    c.owner = ARGV[1]
    c.heartbeatUntil = now + tonumber(ARGV[2])
    local encoded = cjson.encode(c)
    redis.call('HSET', KEYS[1], all[i], encoded)
    taken[#taken + 1] = encoded
  end
end
return taken
`,
);

/** KEYS jobs, reported; ARGV jobId, reportJson, reportedTtlMs → {'won'|'lost', first report} */
export const REPORT_ONCE = luaScript(
  'report-once',
  `
if redis.call('SET', KEYS[2], ARGV[2], 'NX', 'PX', ARGV[3]) then
  redis.call('HDEL', KEYS[1], ARGV[1])
  return {'won', ARGV[2]}
end
return {'lost', redis.call('GET', KEYS[2])}
`,
);

/** KEYS jobs; ARGV instance, jobId. Forgets a job only if we own it. */
export const RELEASE_JOB = luaScript(
  'release-job',
  `
local cur = redis.call('HGET', KEYS[1], ARGV[2])
if not cur then return 0 end
if cjson.decode(cur).owner ~= ARGV[1] then return 0 end
redis.call('HDEL', KEYS[1], ARGV[2])
return 1
`,
);

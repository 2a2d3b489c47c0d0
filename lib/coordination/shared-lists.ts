import { luaScript, type RedisConnection } from './connection';
import { CoordinationError } from './errors';
import { checkName } from './keys';
import type { ListHead } from './list-versions';
import { replyArray, replyText } from './records';

/** One list shared by the instances: a schedule's window fed by messages. */
export interface ListRef {
  /** the schedule id, the same on every instance */
  schedule: string;
  /** the window whose occurrences the list holds */
  window: string;
}

/** A list as Redis holds it. */
export interface SharedList extends ListHead {
  entries: unknown[];
  /** epoch ms on the Redis clock when it was written */
  at: number;
}

export type PublishResult =
  | { status: 'written'; version: number }
  /** a conditional write refused: Redis holds a version later than the one it was based on */
  | { status: 'superseded'; version: number; instance: string };

/**
 * KEYS list; ARGV instance, entriesJson, floor, basedOn|'', ttlMs.
 * The version is raised and the list stored in one step: two instances writing at once get two versions,
 * in the order Redis took them. `basedOn` makes the write conditional (a list kept while Redis was away).
 */
const PUBLISH = luaScript(
  'publish-list',
  `
local cur = tonumber(redis.call('HGET', KEYS[1], 'v') or '0') or 0
if ARGV[4] ~= '' and cur > tonumber(ARGV[4]) then
  return {'superseded', tostring(cur), redis.call('HGET', KEYS[1], 'instance') or ''}
end
local v = math.max(cur, tonumber(ARGV[3]) or 0) + 1
local t = redis.call('TIME')
local at = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
redis.call('HSET', KEYS[1], 'v', tostring(v), 'list', ARGV[2], 'instance', ARGV[1], 'at', tostring(at))
redis.call('PEXPIRE', KEYS[1], ARGV[5])
return {'written', tostring(v)}
`,
);

/** KEYS list; ARGV version, entriesJson, instance, at, ttlMs: writes a list back only over an older one. */
const RESTORE = luaScript(
  'restore-list',
  `
local cur = tonumber(redis.call('HGET', KEYS[1], 'v') or '0') or 0
if cur >= tonumber(ARGV[1]) then return {'kept', tostring(cur)} end
redis.call('HSET', KEYS[1], 'v', ARGV[1], 'list', ARGV[2], 'instance', ARGV[3], 'at', ARGV[4])
redis.call('PEXPIRE', KEYS[1], ARGV[5])
return {'restored', ARGV[1]}
`,
);

/** KEYS the lists: the version of each (0 when missing), in one round trip. */
const VERSIONS = luaScript(
  'list-versions',
  `
local out = {}
for i, key in ipairs(KEYS) do out[i] = redis.call('HGET', key, 'v') or '0' end
return out
`,
);

/** The longest list text written (10 000 entries of a few hundred bytes). */
const MAX_LIST_BYTES = 8 * 1024 * 1024;

/**
 * Lists that every instance of a schedule takes up: one hash per (schedule, window),
 * `{p}list:{schedule}:{window}` with fields `v` (the version), `list` (JSON), `instance` and `at`.
 * See list-versions.ts for which version wins.
 */
export class SharedLists {
  constructor(
    private readonly connection: RedisConnection,
    private readonly keyPrefix: string,
    private readonly instanceId: string,
    private readonly ttlMs: number,
  ) {}

  key(ref: ListRef): string {
    const schedule = encodeURIComponent(checkName('schedule', ref.schedule));
    const window = encodeURIComponent(checkName('window', ref.window));
    return `${this.keyPrefix}list:${schedule}:${window}`;
  }

  /**
   * Stores a list under a new version. `floor`: the highest version the writer knows (versions keep rising
   * after Redis lost its data). `basedOn`: write only if Redis holds nothing later (a pending list).
   */
  async publish(ref: ListRef, entries: unknown[], options: { floor?: number; basedOn?: number } = {}) {
    const text = listText(entries);
    const reply = replyArray(
      await this.connection.evalScript(
        PUBLISH,
        [this.key(ref)],
        [
          this.instanceId,
          text,
          String(options.floor ?? 0),
          options.basedOn === undefined ? '' : String(options.basedOn),
          String(this.ttlMs),
        ],
      ),
    );
    const version = Number(replyText(reply[1]));
    if (replyText(reply[0]) === 'written') return { status: 'written', version } satisfies PublishResult;
    return { status: 'superseded', version, instance: replyText(reply[2]) } satisfies PublishResult;
  }

  /** Writes a list this instance holds back, only where Redis holds an older version or none. */
  async restore(ref: ListRef, list: SharedList): Promise<boolean> {
    const reply = replyArray(
      await this.connection.evalScript(
        RESTORE,
        [this.key(ref)],
        [String(list.version), listText(list.entries), list.instance, String(list.at), String(this.ttlMs)],
      ),
    );
    return replyText(reply[0]) === 'restored';
  }

  /** The version of each list (0 when Redis holds none), in the order asked. */
  async versions(refs: ListRef[]): Promise<number[]> {
    if (refs.length === 0) return [];
    const reply = replyArray(
      await this.connection.evalScript(
        VERSIONS,
        refs.map((r) => this.key(r)),
        [],
      ),
    );
    return refs.map((_, i) => {
      const n = Number(replyText(reply[i]));
      return Number.isSafeInteger(n) && n > 0 ? n : 0;
    });
  }

  /** The list as Redis holds it; undefined when there is none. Throws `invalid_input` for a list that does not parse. */
  async read(ref: ListRef): Promise<SharedList | undefined> {
    const reply = replyArray(await this.connection.send(['HMGET', this.key(ref), 'v', 'list', 'instance', 'at']));
    const version = Number(replyText(reply[0]));
    if (!Number.isSafeInteger(version) || version <= 0 || reply[1] === null || reply[1] === undefined) return undefined;
    const text = replyText(reply[1]);
    let entries: unknown;
    try {
      entries = JSON.parse(text);
    } catch {
      entries = undefined;
    }
    if (!Array.isArray(entries)) {
      throw new CoordinationError(
        'invalid_input',
        `the shared list ${this.key(ref)} (version ${version}) is not a list`,
      );
    }
    return { version, entries, instance: replyText(reply[2]), at: Number(replyText(reply[3])) || 0 };
  }
}

function listText(entries: unknown[]): string {
  const text = JSON.stringify(entries);
  if (text.length > MAX_LIST_BYTES) {
    throw new CoordinationError('invalid_input', `the list is ${text.length} bytes; at most ${MAX_LIST_BYTES}`);
  }
  return text;
}

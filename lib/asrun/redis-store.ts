import { DAY } from '../schedule/tz';
import { DEFAULT_RETENTION_DAYS, parseEntry } from './jsonl-store';
import type { AsRunEntry } from './record';

/** The one command a store sends through: a coordination node's RedisConnection has it. */
export interface RedisCommands {
  send(args: string[]): Promise<unknown>;
}

const PAGE = 1000;

/**
 * The as-run log shared by coordinated instances: one Redis Stream
 * (`<prefix>as-run`), each entry one field `e` holding the same JSON line as
 * the file store. Each instance appends only the transitions it acted on
 * (only the acting instance publishes one), so a slot whose start one
 * instance made and whose end another did has its whole life in the stream;
 * readers fold entries by slot key, one record per slot. Every XADD trims
 * entries older than the retention (MINID on the time-based ids).
 *
 * Entries rather than one finished record per slot: a record written at the
 * terminal phase by the instance acting on it would lack what another
 * instance saw earlier (actual start, lateness, the first segment), and a
 * read-modify-write of one record by two instances would need a lock.
 */
export class RedisAsRunStore {
  readonly key: string;

  constructor(
    private readonly redis: RedisCommands,
    keyPrefix: string,
    readonly retentionDays = DEFAULT_RETENTION_DAYS,
    private readonly now: () => number = Date.now,
  ) {
    this.key = `${keyPrefix}as-run`;
  }

  async append(entry: AsRunEntry): Promise<void> {
    const minId = String(Math.max(0, this.now() - this.retentionDays * DAY));
    // exact MINID: `~` trims whole macro nodes only, and a log of a few entries a minute would keep old ones for months
    await this.redis.send(['XADD', this.key, 'MINID', minId, '*', 'e', JSON.stringify(entry)]);
  }

  /** The entries written between two instants (epoch ms, both included). */
  async read(from: number, to: number): Promise<AsRunEntry[]> {
    const entries: AsRunEntry[] = [];
    let start = String(Math.max(0, Math.floor(from)));
    const end = String(Math.floor(to));
    for (;;) {
      const page = (await this.redis.send(['XRANGE', this.key, start, end, 'COUNT', String(PAGE)])) as unknown[];
      if (!Array.isArray(page) || page.length === 0) break;
      let lastId = '';
      for (const item of page) {
        const [id, fields] = item as [unknown, unknown[]];
        lastId = String(id);
        const at = Array.isArray(fields) ? fields.findIndex((f, i) => i % 2 === 0 && String(f) === 'e') : -1;
        const entry = at >= 0 ? parseEntry(String(fields[at + 1])) : undefined;
        if (entry) entries.push(entry);
      }
      if (page.length < PAGE) break;
      start = `(${lastId}`;
    }
    return entries;
  }
}

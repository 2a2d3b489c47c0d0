import { appendFile, chmod, mkdir, readdir, readFile, unlink } from 'node:fs/promises';
import path from 'node:path';
import { DAY } from '../schedule/tz';
import { utcDates } from './day';
import type { AsRunEntry } from './record';

export const DEFAULT_RETENTION_DAYS = 90;
const FILE = /^as-run-(\d{4}-\d{2}-\d{2})\.jsonl$/;

/**
 * The as-run log of this instance: one append-only JSON Lines file per UTC
 * day of writing (`as-run-YYYY-MM-DD.jsonl`), one entry a line, written as it
 * happens, so a crash loses at most the lines being written (a torn last line
 * is skipped on reading). Lines that come while an append is under way go
 * together in the next one: fifty windows opening at one second are a few
 * appends, not fifty opens and closes of the file in the middle of their
 * starts. Files older than the retention are deleted when a new day's file is
 * first written.
 */
export class JsonlAsRunStore {
  private queue: Promise<void> = Promise.resolve();
  private lastDate: string | undefined;
  /** the append queued and not begun yet, which lines of its day join */
  private waiting: Batch | undefined;

  constructor(
    readonly dir: string,
    readonly retentionDays = DEFAULT_RETENTION_DAYS,
    private readonly now: () => number = Date.now,
  ) {}

  /** Appends in order; never rejects (a failed write is reported to each of its entries' onError, and the next goes on). */
  append(entry: AsRunEntry, onError: (error: unknown) => void = () => undefined): Promise<void> {
    const date = new Date(this.now()).toISOString().slice(0, 10);
    const line = `${JSON.stringify(entry)}\n`;
    let batch = this.waiting;
    if (batch?.date !== date) {
      const fresh: Batch = { date, lines: [], onErrors: [] };
      batch = fresh;
      this.waiting = fresh;
      this.queue = this.queue.then(() => this.write(fresh));
    }
    batch.lines.push(line);
    batch.onErrors.push(onError);
    return this.queue;
  }

  private async write(batch: Batch): Promise<void> {
    if (this.waiting === batch) this.waiting = undefined;
    try {
      if (batch.date !== this.lastDate) {
        // the log names programmes, channels and outputs: the owner's only, like the journal
        await mkdir(this.dir, { recursive: true, mode: 0o700 });
        // a folder an earlier version created 0755; one this user does not own stays as it is
        await chmod(this.dir, 0o700).catch(() => undefined);
        await this.prune();
        this.lastDate = batch.date;
      }
      await appendFile(this.fileOf(batch.date), batch.lines.join(''), { encoding: 'utf8', mode: 0o600 });
    } catch (error) {
      for (const onError of batch.onErrors) onError(error);
    }
  }

  /** Resolves when every entry appended so far is written (or failed). */
  flushed(): Promise<void> {
    return this.queue;
  }

  /** The entries written from one instant's UTC day to another's. */
  async read(from: number, to: number): Promise<AsRunEntry[]> {
    await this.queue;
    const entries: AsRunEntry[] = [];
    for (const date of utcDates(from, to)) {
      let text: string;
      try {
        text = await readFile(this.fileOf(date), 'utf8');
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === 'ENOENT') continue;
        throw error;
      }
      for (const line of text.split('\n')) {
        const entry = parseEntry(line);
        if (entry) entries.push(entry);
      }
    }
    return entries;
  }

  /** Deletes the files of days older than the retention. */
  async prune(): Promise<void> {
    const oldest = new Date(this.now() - this.retentionDays * DAY).toISOString().slice(0, 10);
    let names: string[];
    try {
      names = await readdir(this.dir);
    } catch {
      return;
    }
    for (const name of names) {
      const m = FILE.exec(name);
      if (m && m[1] < oldest) await unlink(path.join(this.dir, name)).catch(() => undefined);
    }
  }

  private fileOf(date: string): string {
    return path.join(this.dir, `as-run-${date}.jsonl`);
  }
}

/** Lines of one day waiting for their append. */
interface Batch {
  date: string;
  lines: string[];
  onErrors: Array<(error: unknown) => void>;
}

/** One line back into an entry; anything else (a torn line, a hand edit) is skipped. */
export function parseEntry(line: string): AsRunEntry | undefined {
  if (line.trim() === '') return undefined;
  try {
    const value = JSON.parse(line) as Partial<AsRunEntry>;
    if (value?.kind === 'slot' && typeof value.event?.slot === 'string' && typeof value.event.at === 'string') {
      return value as AsRunEntry;
    }
    if (value?.kind === 'job' && typeof value.event?.slot === 'string' && typeof value.event.job?.id === 'string') {
      return value as AsRunEntry;
    }
  } catch {
    // a line cut by a crash mid-write
  }
  return undefined;
}

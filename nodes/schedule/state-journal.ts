import * as fs from 'node:fs';
import * as path from 'node:path';
import { isPlainObject } from '../../lib/guards';
import { safeId } from '../shared/node-state';

/**
 * A synchronous copy of a node's saved state, in files of its own.
 *
 * Node-RED's file context store (localfilesystem) keeps writes in memory and
 * flushes them every `flushInterval` seconds (30 by default), so a process
 * that dies without closing (kill -9, out of memory, power cut) forgets
 * whatever was set since the last flush. For the schedule that meant a
 * window started, its channel created, and then no record of it: no end, no
 * follow-up. The journal is written before the node acts on a change (write
 * ahead), and read back at start when it is newer than the context copy.
 *
 * Two copies are written in turn, each overwritten in place, and the newer
 * whole one is read back: a write cut short (a kill between the write and
 * the truncate, a power cut that keeps part of a page) leaves a copy that
 * does not parse, and the other one holds the state before it, which nothing
 * has acted on since. That costs about an eighth of a temporary file and a rename
 * (ext4 flushes a file renamed over another one): at the top of the hour,
 * fifty schedules write twice each within a few milliseconds.
 * `schedule-<id>.json`, the single file of earlier releases, is still read,
 * and removed at the first write.
 *
 * The slots' state is the schedule's own durable data, so the journal is
 * kept whatever the context store: with localfilesystem in a dot-folder of
 * the context directory (which the store skips when it loads, and which goes
 * with it when a user deletes the context directory); with any other store
 * (Node-RED's default memory store among them) in `.media-spaces` of the user
 * directory, so that a restart mid-window still stops the recording and
 * follows it up. `mediaSpaces: { journal: false }` in settings.js turns it
 * off for read-only installations (a restart then forgets the slots in
 * progress, as the memory store does).
 */
export class StateJournal {
  /** the two copies, `<name>.1.json` and `<name>.2.json` */
  readonly copies: readonly [string, string];
  private dirReady = false;
  /** whether the earlier releases' file was there when the journal was read: removed at the first write then */
  private legacyFound = false;
  /** the copy written next: the one not holding the newest state; known once the journal was read */
  private next: 0 | 1 | undefined;
  /** the number of the last write: the newer copy is the one with the higher, whatever the clock did */
  private written = 0;

  /** `file`: `<dir>/<name>.json`, the single file of earlier releases */
  constructor(readonly file: string) {
    const base = file.replace(/\.json$/, '');
    this.copies = [`${base}.1.json`, `${base}.2.json`];
  }

  /**
   * The newer whole copy (by its write number: a clock set back between two writes does not make the
   * older one win), or the earlier releases' file when its `savedAt` is newer.
   */
  read(): unknown {
    const [a, b] = [readJson(this.copies[0]), readJson(this.copies[1])];
    const copy = a === undefined || (b !== undefined && writeNumber(b) > writeNumber(a)) ? b : a;
    this.written = Math.max(this.written, writeNumber(a), writeNumber(b));
    this.next = copy !== undefined && copy === a ? 1 : 0;
    const legacy = readText(this.file);
    this.legacyFound = legacy !== undefined;
    return newerState(parseJson(legacy), copy);
  }

  /** Throws when the file cannot be written (the caller reports it). */
  write(value: unknown): void {
    if (!this.dirReady) {
      fs.mkdirSync(path.dirname(this.file), { recursive: true, mode: 0o700 });
      this.dirReady = true;
    }
    if (this.next === undefined) this.read();
    const target = this.next ?? 0;
    this.written++;
    const text = Buffer.from(JSON.stringify(isPlainObject(value) ? { ...value, [WRITE_NUMBER]: this.written } : value));
    // not O_TRUNC: a truncate to zero makes ext4 flush the file, as a rename over it does
    const fd = fs.openSync(this.copies[target], fs.constants.O_WRONLY | fs.constants.O_CREAT, 0o600);
    try {
      fs.writeSync(fd, text, 0, text.length, 0);
      fs.ftruncateSync(fd, text.length);
    } finally {
      fs.closeSync(fd);
    }
    this.next = target === 0 ? 1 : 0;
    // only when it was found: removing a file that is not there throws inside rmSync, and costs more than the
    // write itself, fifty times at the top of the hour
    if (this.legacyFound) {
      this.legacyFound = false;
      try {
        fs.rmSync(this.file, { force: true });
      } catch {
        // read again at the next start, where the copies are newer
      }
    }
  }

  remove(): void {
    for (const file of [...this.copies, this.file]) {
      try {
        fs.rmSync(file, { force: true });
      } catch {
        // nothing to remove
      }
    }
    this.next = 0;
  }
}

/** The field of a copy that numbers the journal's writes. */
const WRITE_NUMBER = 'journalWrite';

function writeNumber(copy: unknown): number {
  return isPlainObject(copy) && typeof copy[WRITE_NUMBER] === 'number' ? copy[WRITE_NUMBER] : 0;
}

/** A file's JSON, or undefined when it is missing or not whole. */
function readJson(file: string): unknown {
  return parseJson(readText(file));
}

/** A file's text, or undefined when it cannot be read (missing, most often). */
function readText(file: string): string | undefined {
  try {
    return fs.readFileSync(file, 'utf8');
  } catch {
    return undefined;
  }
}

function parseJson(text: string | undefined): unknown {
  if (text === undefined) return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

interface JournalSettings {
  userDir?: unknown;
  contextStorage?: unknown;
  mediaSpaces?: unknown;
}

/**
 * The journal of one node (`kind` names the node type, e.g. "schedule"), or
 * undefined when settings.js turns journals off or there is no directory to keep it in.
 */
export function stateJournal(
  settings: JournalSettings | undefined,
  kind: string,
  nodeId: string,
): StateJournal | undefined {
  if (isPlainObject(settings?.mediaSpaces) && settings.mediaSpaces.journal === false) return undefined;
  const name = `${kind}-${safeId(nodeId)}.json`;
  const store = defaultStore(settings?.contextStorage);
  const userDir = typeof settings?.userDir === 'string' && settings.userDir !== '' ? settings.userDir : undefined;
  if (store?.module !== 'localfilesystem') {
    return userDir ? new StateJournal(path.join(userDir, '.media-spaces', name)) : undefined;
  }
  const config = isPlainObject(store.config) ? store.config : {};
  const dir = typeof config.dir === 'string' ? config.dir : userDir;
  if (typeof dir !== 'string' || dir === '') return undefined;
  const base = typeof config.base === 'string' && config.base !== '' ? config.base : 'context';
  return new StateJournal(path.join(dir, base, '.media-spaces', name));
}

/** The store node context uses without a store name: `default`, else the first one listed; names may alias. */
function defaultStore(storage: unknown): Record<string, unknown> | undefined {
  if (!isPlainObject(storage)) return undefined;
  let entry: unknown = 'default' in storage ? storage.default : storage[Object.keys(storage)[0]];
  if (typeof entry === 'string') entry = storage[entry];
  return isPlainObject(entry) ? entry : undefined;
}

/** The newer of two saved states by their `savedAt` stamp (a state without one counts as oldest). */
export function newerState(a: unknown, b: unknown): unknown {
  const at = (v: unknown) => (isPlainObject(v) && typeof v.savedAt === 'number' ? v.savedAt : -1);
  if (a === undefined || a === null) return b;
  if (b === undefined || b === null) return a;
  return at(b) > at(a) ? b : a;
}

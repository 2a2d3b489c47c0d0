/**
 * Which copy of a shared list wins, and what an instance does to agree with Redis: pure rules, no I/O
 * (the Redis side is shared-lists.ts, the schedule's use nodes/schedule/shared-windows.ts).
 *
 * A list's version comes from Redis, raised in the same script that stores the list, so "later" is the
 * order in which Redis took the writes, never the clocks of two machines. An instance remembers the version
 * it holds; a list it took while Redis could not be used is *pending*, based on the version it held then.
 */

/** The head of a list as Redis holds it. */
export interface ListHead {
  version: number;
  /** the instance that wrote it */
  instance: string;
}

/** What one instance knows of one shared list. */
export interface LocalList {
  /** the version of the list it holds (0: none from Redis yet) */
  version: number;
  /** the entries of that version, to write back if Redis lost them */
  entries?: unknown[];
  /** a list taken here while Redis could not be used, not yet written */
  pending?: PendingList;
}

export interface PendingList {
  entries: unknown[];
  /** the version this instance held when the list was sent to it */
  basedOn: number;
  /** epoch ms it was sent here (for the log only) */
  sentAt: number;
}

export type ListSync =
  /** Redis and this instance agree */
  | { action: 'none' }
  /** Redis holds a later version: take it */
  | { action: 'adopt'; version: number }
  /** the pending list goes out: written unless Redis holds a version later than `basedOn` by then */
  | { action: 'write'; basedOn: number; floor: number }
  /** another instance wrote a later list while this one could not: take it, the pending list is dropped */
  | { action: 'superseded'; version: number }
  /** Redis lost the list (restart without persistence, FLUSHALL) or holds an older one: write ours back */
  | { action: 'restore'; version: number };

/**
 * What an instance does when it reads a list's version in Redis (`remote`: 0 when there is none).
 * - A pending list is written while Redis holds nothing later than the version it was based on; a list
 *   written elsewhere meanwhile is later, and wins.
 * - Otherwise the higher version wins: adopted when it is Redis's, written back when it is ours.
 */
export function syncAction(local: LocalList, remote: number): ListSync {
  const remoteVersion = versionOf(remote);
  if (local.pending) {
    if (remoteVersion > local.pending.basedOn) return { action: 'superseded', version: remoteVersion };
    return { action: 'write', basedOn: local.pending.basedOn, floor: Math.max(local.version, local.pending.basedOn) };
  }
  if (remoteVersion > local.version) return { action: 'adopt', version: remoteVersion };
  if (remoteVersion < local.version && local.entries !== undefined)
    return { action: 'restore', version: local.version };
  return { action: 'none' };
}

/**
 * The version a write takes: one more than the highest of Redis's and the writer's own (`floor`), so that
 * versions keep rising after Redis lost its data while an instance remembers a later one. (The Lua script
 * does the same on the Redis side; this is its rule, for the tests and the docs.)
 */
export function nextVersion(current: number, floor: number): number {
  return Math.max(versionOf(current), versionOf(floor)) + 1;
}

/**
 * Whether a conditional write (a pending list, `basedOn` the version its sender held) may go out over what
 * Redis holds now: only when nothing later than its base was written meanwhile.
 */
export function mayWrite(current: number, basedOn: number | undefined): boolean {
  return basedOn === undefined || versionOf(current) <= versionOf(basedOn);
}

/** The later of two heads: the higher version; equal versions (only after Redis lost data) by instance name. */
export function laterList<T extends ListHead>(a: T | undefined, b: T | undefined): T | undefined {
  if (!a) return b;
  if (!b) return a;
  if (a.version !== b.version) return a.version > b.version ? a : b;
  return a.instance >= b.instance ? a : b;
}

/** The state after a write of ours came back with `version` (the pending list, if any, is gone). */
export function written(local: LocalList, version: number, entries: unknown[]): LocalList {
  return { version: Math.max(local.version, version), entries };
}

/** The state after a list of `version` was taken from Redis. */
export function adopted(version: number, entries: unknown[]): LocalList {
  return { version, entries };
}

/** The state after a list was sent here while Redis could not be used: pending, based on what is held. */
export function keptPending(local: LocalList, entries: unknown[], sentAt: number): LocalList {
  // a second list sent while still cut off replaces the first, on the same base: Redis never saw the first
  const basedOn = local.pending?.basedOn ?? local.version;
  return { ...local, pending: { entries, basedOn, sentAt } };
}

/** A saved LocalList read back, or a fresh one when it does not parse. */
export function readLocalList(value: unknown): LocalList {
  if (typeof value !== 'object' || value === null) return { version: 0 };
  const v = value as Record<string, unknown>;
  const out: LocalList = { version: versionOf(v.version) };
  if (Array.isArray(v.entries)) out.entries = v.entries;
  const p = v.pending as Record<string, unknown> | undefined;
  if (typeof p === 'object' && p !== null && Array.isArray(p.entries)) {
    out.pending = {
      entries: p.entries,
      basedOn: versionOf(p.basedOn),
      sentAt: typeof p.sentAt === 'number' ? p.sentAt : 0,
    };
  }
  return out;
}

function versionOf(value: unknown): number {
  const n = typeof value === 'number' ? value : typeof value === 'string' ? Number(value) : Number.NaN;
  return Number.isSafeInteger(n) && n > 0 ? n : 0;
}

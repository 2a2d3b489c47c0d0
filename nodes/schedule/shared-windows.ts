import {
  adopted,
  CoordinationError,
  keptPending,
  type ListRef,
  type LocalList,
  readLocalList,
  type SharedLists,
  syncAction,
  written,
} from '../../lib/coordination';
import { isPlainObject } from '../../lib/guards';
import type { ScheduleWindow } from '../../lib/schedule';
import type { CoordinationProvider } from '../shared/coordination-provider';
import type { StateJournal } from './state-journal';

/** How often an instance reads the versions of its schedule's shared lists. */
export const LIST_POLL_MS = 1_000;

/** What the sharing reads of the schedule node it works for. */
export interface SharedWindowsReads {
  /** the schedule id every instance shares (the slot keys' too) */
  scheduleId(): string;
  /** the schedule's windows fed by messages, as configured now */
  windows(): ScheduleWindow[];
}

/**
 * A list taken from Redis made the window's occurrences. An action the sharing calls, not an effect as data
 * like `SharedWindowsOut`: it throws naming a bad entry, and the sharing must know at once, for a list it
 * cannot take is warned of once per version and still recorded as read, so that it is not tried again. Nothing
 * answers a list from Redis, so it returns nothing; a list sent here is taken by `send`'s own `apply`, whose
 * reply answers the message.
 */
export type TakeSharedList = (window: ScheduleWindow, entries: unknown[]) => void;

/**
 * What the sharing asks of the schedule node, as data; the node carries each out, in the order given:
 * - `log`: a list written to Redis, taken from it, or written back after Redis lost it: lists move between
 *   the instances unasked, and the log is where that shows;
 * - `warn`: a list kept here only, while Redis cannot be used or refuses it; a list from Redis this instance
 *   cannot take (once per version); a list kept here that another instance's later one replaced; a read or
 *   the journal failing;
 * - `changed`: a list became pending here or stopped being so (the badge counts the pending ones).
 */
export type SharedWindowsOut = { kind: 'log'; text: string } | { kind: 'warn'; text: string } | { kind: 'changed' };

/** What a `windows` message's reply says of the list's sharing. */
export type Shared = { shared: true; version: number } | { shared: false; pending: boolean; reason: string };

/**
 * The lists of a schedule's windows fed by messages, shared by every instance on one Redis
 * (lib/coordination/shared-lists.ts, list-versions.ts): a list sent to any instance is written under a
 * new version and taken up by the others at their next read (every LIST_POLL_MS); a survivor holds the
 * latest list as its own. A list sent while Redis cannot be used is kept here, said so, and written once
 * Redis is back, unless another instance wrote a later one meanwhile.
 *
 * Each window's steps (a list sent here, a read of Redis) run one after the other, so a list taken from
 * Redis never overtakes one sent here a moment later.
 */
export class SharedWindows {
  private readonly local = new Map<string, LocalList>();
  private readonly queues = new Map<string, Promise<unknown>>();
  /** windows with a read queued or running: a slow Redis does not pile reads up */
  private readonly reading = new Set<string>();
  /** per window, the version whose list could not be taken: said once */
  private readonly badVersions = new Map<string, number>();
  private timer: ReturnType<typeof setInterval> | undefined;
  private readonly unsubscribe: () => void;
  private closed = false;

  constructor(
    private readonly provider: CoordinationProvider | undefined,
    private readonly problem: string | undefined,
    private readonly journal: StateJournal | undefined,
    private readonly reads: SharedWindowsReads,
    private readonly take: TakeSharedList,
    /** the node's one way of carrying out what the sharing asks */
    private readonly out: (effect: SharedWindowsOut) => void,
    private readonly pollMs = LIST_POLL_MS,
  ) {
    const saved = journal?.read();
    const lists = isPlainObject(saved) && isPlainObject(saved.lists) ? saved.lists : {};
    for (const [id, value] of Object.entries(lists)) this.local.set(id, readLocalList(value));
    // Redis back: a list kept here goes out at once
    this.unsubscribe =
      provider?.onCoordinationStatus((status) => {
        if (status.state === 'connected') this.pollSoon();
      }) ?? (() => undefined);
  }

  /** Starts reading Redis (once the schedule loaded its own state, which a list taken up must not precede). */
  start(): void {
    if (this.closed || this.timer) return;
    this.timer = setInterval(() => this.poll(), this.pollMs);
    this.timer.unref?.();
    this.poll();
  }

  /** How many lists are kept here only, waiting for Redis. */
  get pendingCount(): number {
    let n = 0;
    for (const l of this.local.values()) if (l.pending) n++;
    return n;
  }

  /**
   * A `windows` message: the list taken here (`apply`) and written to Redis, in this window's turn. Resolves
   * with the reply's payload; rejects only when `apply` does (bad entries), before anything is written.
   */
  send(
    window: ScheduleWindow,
    entries: unknown[],
    apply: () => Record<string, unknown>,
  ): Promise<Record<string, unknown>> {
    return this.queue(window.id, async () => {
      const result = apply();
      return { ...result, ...(await this.write(window, entries)) };
    });
  }

  close(): void {
    this.closed = true;
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
    this.unsubscribe();
  }

  /** The node was removed: what it kept goes with it. */
  remove(): void {
    this.journal?.remove();
  }

  private async write(window: ScheduleWindow, entries: unknown[]): Promise<Shared> {
    const ref = this.ref(window.id);
    const local = this.localOf(window.id);
    try {
      const lists = this.lists();
      const floor = Math.max(local.version, local.pending?.basedOn ?? 0);
      const result = await lists.publish(ref, entries, { floor });
      // unconditional: a list sent now is the latest Redis took
      this.save(window.id, written(local, result.version, entries));
      this.out({
        kind: 'log',
        text: `window ${window.id}: list of ${entries.length} shared as version ${result.version}`,
      });
      if (local.pending) this.out({ kind: 'changed' });
      return { shared: true, version: result.version };
    } catch (err) {
      const e = asCoordinationError(err);
      if (e.code === 'invalid_input') {
        this.out({ kind: 'warn', text: `window ${window.id}: the list is taken on this instance only: ${e.message}` });
        return { shared: false, pending: false, reason: e.message };
      }
      this.save(window.id, keptPending(local, entries, Date.now()));
      this.out({
        kind: 'warn',
        text:
          `window ${window.id}: the list of ${entries.length} is kept on this instance only, Redis cannot be used (${e.message}); ` +
          'it is written when Redis is back, unless another instance writes a later list meanwhile',
      });
      this.out({ kind: 'changed' });
      return { shared: false, pending: true, reason: e.message };
    }
  }

  private poll(): void {
    if (this.closed || !this.provider) return;
    if (this.provider.coordinationStatus().state !== 'connected') return;
    for (const window of this.reads.windows()) {
      if (this.reading.has(window.id)) continue;
      this.reading.add(window.id);
      void this.queue(window.id, () => this.sync(window))
        .catch((err) =>
          this.out({ kind: 'warn', text: `window ${window.id}: cannot read its shared list: ${describe(err)}` }),
        )
        .finally(() => this.reading.delete(window.id));
    }
  }

  private pollSoon(): void {
    setImmediate(() => this.poll());
  }

  /** One read of Redis for one window, and what it calls for (list-versions.ts syncAction). */
  private async sync(window: ScheduleWindow): Promise<void> {
    if (this.closed) return;
    const ref = this.ref(window.id);
    const lists = this.lists();
    let local = this.localOf(window.id);
    const [remote] = await lists.versions([ref]);
    const action = syncAction(local, remote ?? 0);
    switch (action.action) {
      case 'none':
        return;
      case 'adopt':
      case 'superseded':
        await this.adopt(window, ref, action.action === 'superseded');
        return;
      case 'write': {
        const pending = local.pending;
        if (!pending) return;
        const result = await lists.publish(ref, pending.entries, { floor: action.floor, basedOn: action.basedOn });
        if (result.status === 'superseded') {
          await this.adopt(window, ref, true);
          return;
        }
        local = this.localOf(window.id);
        this.save(window.id, written(local, result.version, pending.entries));
        this.out({
          kind: 'log',
          text: `window ${window.id}: Redis is back, the list kept here since ${new Date(pending.sentAt).toISOString()} is shared as version ${result.version}`,
        });
        this.out({ kind: 'changed' });
        return;
      }
      case 'restore': {
        if (local.entries === undefined) return;
        const restored = await lists.restore(ref, {
          version: local.version,
          entries: local.entries,
          instance: 'restored',
          at: Date.now(),
        });
        if (restored)
          this.out({
            kind: 'log',
            text: `window ${window.id}: Redis had lost its list; version ${local.version} written back`,
          });
        return;
      }
    }
  }

  /** Takes the list Redis holds; `superseded`: it replaces a list kept here that was never written. */
  private async adopt(window: ScheduleWindow, ref: ListRef, superseded: boolean): Promise<void> {
    const list = await this.lists().read(ref);
    if (!list || this.closed) return;
    const local = this.localOf(window.id);
    if (!local.pending && list.version <= local.version) return;
    try {
      this.take(window, list.entries);
    } catch (err) {
      // a list this instance cannot take (another release's form, a window changed here): said once, then skipped
      if (this.badVersions.get(window.id) !== list.version) {
        this.badVersions.set(window.id, list.version);
        this.out({
          kind: 'warn',
          text: `window ${window.id}: the shared list version ${list.version} (from ${list.instance}) cannot be taken: ${describe(err)}`,
        });
      }
      this.save(window.id, { ...adopted(list.version, list.entries) });
      if (local.pending) this.out({ kind: 'changed' });
      return;
    }
    this.save(window.id, adopted(list.version, list.entries));
    if (superseded && local.pending) {
      this.out({
        kind: 'warn',
        text:
          `window ${window.id}: the list kept here since ${new Date(local.pending.sentAt).toISOString()} was not written: ` +
          `another instance (${list.instance}) wrote a later one while Redis could not be used from here; it is taken instead (version ${list.version})`,
      });
      this.out({ kind: 'changed' });
    } else {
      this.out({
        kind: 'log',
        text: `window ${window.id}: took the shared list version ${list.version} (${list.entries.length} entries)`,
      });
    }
  }

  private queue<T>(windowId: string, step: () => Promise<T>): Promise<T> {
    const before = this.queues.get(windowId) ?? Promise.resolve();
    const next = before.then(step, step);
    const settled = next.catch(() => undefined);
    this.queues.set(windowId, settled);
    void settled.then(() => {
      if (this.queues.get(windowId) === settled) this.queues.delete(windowId);
    });
    return next;
  }

  private lists(): SharedLists {
    if (!this.provider) throw new CoordinationError('invalid_config', this.problem ?? 'no coordination node');
    return this.provider.getCoordinator().lists;
  }

  private ref(windowId: string): ListRef {
    return { schedule: this.reads.scheduleId(), window: windowId };
  }

  private localOf(windowId: string): LocalList {
    return this.local.get(windowId) ?? { version: 0 };
  }

  private save(windowId: string, state: LocalList): void {
    this.local.set(windowId, state);
    if (!this.journal || this.closed) return;
    try {
      this.journal.write({ lists: Object.fromEntries(this.local), savedAt: Date.now() });
    } catch (err) {
      this.out({ kind: 'warn', text: `cannot write the shared lists' journal ${this.journal.file}: ${describe(err)}` });
    }
  }
}

function asCoordinationError(err: unknown): CoordinationError {
  return err instanceof CoordinationError ? err : new CoordinationError('redis', describe(err), err);
}

function describe(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

import { NotYet, retryUntilDeadline } from '../retry-until';
import type { RedisConnection } from './connection';
import { CoordinationError } from './errors';
import { JobRegistry } from './job-registry';
import { checkName, highWaterKey, lockKeys, normalizeKeyPrefix, type SlotRef, slotKeys } from './keys';
import { type DoneRecord, encodeJson, type HeldBy, parseJson, replyArray, replyText } from './records';
import { ACQUIRE_LOCK, CLAIM, COMPLETE, RAISE_END, RELEASE, RENEW_CLAIM, RENEW_LOCK } from './scripts';
import { SharedLists } from './shared-lists';

export interface CoordinatorOptions {
  /** Shared by every coordinator of one config node; not closed by the coordinator. */
  connection: RedisConnection;
  /** Unique per Node-RED process, stable while it runs. */
  instanceId: string;
  /** Default `media-spaces:`; a `:` is added when missing. */
  keyPrefix?: string;
  /** How long a claim holds without renewal (default 30 s). */
  leaseMs?: number;
  /** How long done records and the high-water mark live; longer than any catch-up horizon (default 7 days). */
  doneTtlMs?: number;
  /** Heartbeat of followed jobs (default 30 s). */
  jobHeartbeatMs?: number;
}

export type ClaimResult =
  /** Act now; then complete() with this token (or release() on failure). */
  | { status: 'won'; token: number; leaseMs: number }
  /** Already done (by anyone, or restored from the caller's local knowledge): do not act. */
  | { status: 'done'; record: DoneRecord }
  /** Another claim is live: do not act now; claim again after `retryInMs` (its lease end) while the window is open. */
  | { status: 'held'; holder: HeldBy | undefined; retryInMs: number };

export type CompleteResult =
  | { status: 'completed' }
  /** Refused: someone else completed (`done`) or claimed since our lease ran out (`claimed`). */
  | { status: 'lost'; reason: 'done' | 'claimed'; record?: DoneRecord; holder?: HeldBy };

export interface ClaimOptions {
  leaseMs?: number;
  /**
   * The caller's own durable memory says it already completed this slot and
   * phase (e.g. its state journal). Then claim() never returns `won`: it
   * rewrites the done record if Redis lost it (restart without persistence,
   * FLUSHALL) and returns `done`. Pass `{ result }` to restore the result too.
   */
  locallyDone?: false | { result?: unknown; completedAt?: string };
}

export type LockResult =
  | { status: 'acquired'; token: number }
  | { status: 'held'; holder: HeldBy | undefined; retryInMs: number };

export interface LeaseKeeper {
  /** Stops renewing (call once the request finished, before complete/release). */
  stop(): void;
  /** True once a renewal found the claim taken or done by someone else. */
  readonly lost: boolean;
}

const DEFAULT_LEASE_MS = 30_000;
const DEFAULT_DONE_TTL_MS = 7 * 24 * 3600_000;
const MIN_RETRY_MS = 50;

/**
 * Exactly-once steps across several Node-RED instances that each keep their
 * own timers: for every (schedule, slot, phase) one instance wins a claim,
 * acts, and completes; the others see `held` or `done`. See README.md.
 */
export class Coordinator {
  readonly connection: RedisConnection;
  readonly instanceId: string;
  readonly keyPrefix: string;
  readonly leaseMs: number;
  readonly doneTtlMs: number;
  readonly jobs: JobRegistry;
  /** lists every instance takes up (a schedule's windows fed by messages), kept as long as done records */
  readonly lists: SharedLists;

  constructor(options: CoordinatorOptions) {
    this.connection = options.connection;
    this.instanceId = checkName('instanceId', options.instanceId);
    this.keyPrefix = normalizeKeyPrefix(options.keyPrefix);
    this.leaseMs = duration('leaseMs', options.leaseMs, DEFAULT_LEASE_MS);
    this.doneTtlMs = duration('doneTtlMs', options.doneTtlMs, DEFAULT_DONE_TTL_MS);
    this.jobs = new JobRegistry({
      connection: this.connection,
      instanceId: this.instanceId,
      keyPrefix: this.keyPrefix,
      heartbeatMs: options.jobHeartbeatMs,
      reportedTtlMs: this.doneTtlMs,
    });
    this.lists = new SharedLists(this.connection, this.keyPrefix, this.instanceId, this.doneTtlMs);
  }

  async claim(ref: SlotRef, options: ClaimOptions = {}): Promise<ClaimResult> {
    const keys = slotKeys(this.keyPrefix, ref);
    const leaseMs = duration('leaseMs', options.leaseMs, this.leaseMs);
    const local = options.locallyDone;
    const localRecord = local
      ? encodeJson('locallyDone.result', {
          instance: this.instanceId,
          token: 0,
          completedAt: local.completedAt ?? new Date().toISOString(),
          result: local.result,
          restored: true,
        } satisfies DoneRecord)
      : '';
    const reply = replyArray(
      await this.connection.evalScript(
        CLAIM,
        [keys.claim, keys.done, keys.fence, keys.highWater],
        [this.instanceId, String(leaseMs), localRecord, String(this.doneTtlMs), keys.slot],
      ),
    );
    const status = replyText(reply[0]);
    if (status === 'won') return { status: 'won', token: Number(replyText(reply[1])), leaseMs };
    if (status === 'done') return { status: 'done', record: doneRecord(reply[1]) };
    return { status: 'held', holder: parseJson<HeldBy>(replyText(reply[1])), retryInMs: retryIn(reply[2]) };
  }

  /**
   * Marks the claim done with `result`. The done record is kept `doneTtlMs`, counted from `keepUntil` (epoch
   * ms) when that is later than now: a report or a booking made days before its slot is still known as done
   * at the slot, whenever an instance asks.
   */
  async complete(ref: SlotRef, token: number, result?: unknown, keepUntil?: number): Promise<CompleteResult> {
    const keys = slotKeys(this.keyPrefix, ref);
    const record: DoneRecord = { instance: this.instanceId, token, completedAt: new Date().toISOString(), result };
    const now = Date.now();
    const ttlMs = this.doneTtlMs + (keepUntil !== undefined && keepUntil > now ? Math.round(keepUntil - now) : 0);
    const reply = replyArray(
      await this.connection.evalScript(
        COMPLETE,
        [keys.claim, keys.done, keys.fence, keys.highWater],
        [this.instanceId, tokenText(token), encodeJson('result', record), String(ttlMs), keys.slot],
      ),
    );
    if (replyText(reply[0]) === 'completed') return { status: 'completed' };
    if (replyText(reply[1]) === 'done') return { status: 'lost', reason: 'done', record: doneRecord(reply[2]) };
    return { status: 'lost', reason: 'claimed', holder: parseJson<HeldBy>(replyText(reply[2])) };
  }

  /** Extends our claim; false once someone else claimed or it is done. */
  async renew(ref: SlotRef, token: number, leaseMs = this.leaseMs): Promise<boolean> {
    const keys = slotKeys(this.keyPrefix, ref);
    const reply = await this.connection.evalScript(
      RENEW_CLAIM,
      [keys.claim, keys.done, keys.fence],
      [this.instanceId, tokenText(token), String(duration('leaseMs', leaseMs, this.leaseMs))],
    );
    return Number(reply) === 1;
  }

  /** Gives up our claim at once (e.g. the request failed) so another instance may try without waiting for the lease. */
  async release(ref: SlotRef, token: number): Promise<boolean> {
    const keys = slotKeys(this.keyPrefix, ref);
    return Number(await this.connection.evalScript(RELEASE, [keys.claim], [this.instanceId, tokenText(token)])) === 1;
  }

  /** The done record of a step, e.g. `end` reading the channel that `start` created. */
  async getDone(ref: SlotRef): Promise<DoneRecord | undefined> {
    const keys = slotKeys(this.keyPrefix, ref);
    const text = await this.connection.send(['GET', keys.done]);
    return text === null || text === undefined ? undefined : doneRecord(text);
  }

  /**
   * The latest end (epoch ms) any instance has seen for a slot, raised to `end` if that is later: two
   * instances that read a moved occurrence at different moments end its recording at the later end.
   */
  async raiseEnd(ref: SlotRef, end: number): Promise<number> {
    const keys = slotKeys(this.keyPrefix, ref);
    const reply = await this.connection.evalScript(
      RAISE_END,
      [keys.latestEnd],
      [String(Math.round(end)), String(this.doneTtlMs)],
    );
    const latest = Number(replyText(reply));
    return Number.isFinite(latest) ? latest : end;
  }

  /** The latest slot (ISO) any instance completed for this schedule, for catch-up. */
  async highWaterMark(schedule: string): Promise<string | undefined> {
    const text = await this.connection.send(['GET', highWaterKey(this.keyPrefix, schedule)]);
    return typeof text === 'string' ? text : undefined;
  }

  /**
   * Renews the claim every third of the lease while a request is in flight.
   * Transient Redis errors are passed to `onError` and retried at the next
   * tick; `onLost` fires once if someone else took the claim over.
   */
  keepLease(
    ref: SlotRef,
    token: number,
    options: { leaseMs?: number; onLost?: () => void; onError?: (err: CoordinationError) => void } = {},
  ): LeaseKeeper {
    const leaseMs = duration('leaseMs', options.leaseMs, this.leaseMs);
    let stopped = false;
    let lost = false;
    const tick = async () => {
      try {
        const kept = await this.renew(ref, token, leaseMs);
        if (!kept && !stopped && !lost) {
          lost = true;
          clearInterval(timer);
          options.onLost?.();
        }
      } catch (err) {
        if (!stopped) options.onError?.(asCoordinationError(err));
      }
    };
    const timer = setInterval(() => void tick(), Math.max(MIN_RETRY_MS, Math.floor(leaseMs / 3)));
    timer.unref?.();
    return {
      stop() {
        stopped = true;
        clearInterval(timer);
      },
      get lost() {
        return lost;
      },
    };
  }

  /**
   * Claims, and while someone else holds the step, claims again when their
   * lease ends, until `deadline` (the end of the slot's window) or `signal`.
   * So a winner that crashed after claiming is replaced within one lease.
   * Redis errors are thrown (the caller applies its unreachable policy).
   */
  async claimUntil(
    ref: SlotRef,
    options: ClaimOptions & { deadline: Date | number; signal?: AbortSignal },
  ): Promise<ClaimResult | { status: 'expired' } | { status: 'aborted' }> {
    const deadline = options.deadline instanceof Date ? options.deadline.getTime() : options.deadline;
    if (options.signal?.aborted) return { status: 'aborted' };
    try {
      return await retryUntilDeadline({
        deadline,
        signal: options.signal,
        attempt: async () => {
          const result = await this.claim(ref, options);
          if (result.status === 'held') throw new NotYet(result.retryInMs);
          return result;
        },
        decide: (error) =>
          error instanceof NotYet
            ? {
                retry: true,
                delayMs: Math.max(MIN_RETRY_MS, error.retryInMs) + Math.floor(Math.random() * MIN_RETRY_MS),
              }
            : { retry: false },
      });
    } catch (error) {
      if (options.signal?.aborted) return { status: 'aborted' };
      if (error instanceof NotYet) return { status: 'expired' };
      throw error;
    }
  }

  /** Catch-up mutex per schedule: only one instance replays missed slots at a time. */
  async acquireCatchUp(schedule: string, leaseMs = this.leaseMs): Promise<LockResult> {
    const keys = lockKeys(this.keyPrefix, `catch-up:${checkName('schedule', schedule)}`);
    const reply = replyArray(
      await this.connection.evalScript(
        ACQUIRE_LOCK,
        [keys.lock, keys.fence],
        [this.instanceId, String(duration('leaseMs', leaseMs, this.leaseMs)), String(this.doneTtlMs)],
      ),
    );
    if (replyText(reply[0]) === 'acquired') return { status: 'acquired', token: Number(replyText(reply[1])) };
    return { status: 'held', holder: parseJson<HeldBy>(replyText(reply[1])), retryInMs: retryIn(reply[2]) };
  }

  async renewCatchUp(schedule: string, token: number, leaseMs = this.leaseMs): Promise<boolean> {
    const keys = lockKeys(this.keyPrefix, `catch-up:${checkName('schedule', schedule)}`);
    const reply = await this.connection.evalScript(
      RENEW_LOCK,
      [keys.lock],
      [this.instanceId, tokenText(token), String(duration('leaseMs', leaseMs, this.leaseMs))],
    );
    return Number(reply) === 1;
  }

  /** Releases the mutex only if it is still ours; false if it had run out and someone else holds it. */
  async releaseCatchUp(schedule: string, token: number): Promise<boolean> {
    const keys = lockKeys(this.keyPrefix, `catch-up:${checkName('schedule', schedule)}`);
    return Number(await this.connection.evalScript(RELEASE, [keys.lock], [this.instanceId, tokenText(token)])) === 1;
  }
}

function doneRecord(raw: unknown): DoneRecord {
  const parsed = parseJson<DoneRecord>(replyText(raw));
  // a done key that does not parse still means done: never act twice because of a damaged record
  return parsed && typeof parsed === 'object' ? parsed : { instance: 'unknown', token: 0, completedAt: '' };
}

function retryIn(raw: unknown): number {
  const ms = Number(replyText(raw));
  return Number.isFinite(ms) && ms > 0 ? ms : MIN_RETRY_MS;
}

function tokenText(token: number): string {
  if (!Number.isSafeInteger(token) || token < 0) {
    throw new CoordinationError('invalid_input', `token must be the whole number claim() returned, got ${token}`);
  }
  return String(token);
}

function duration(what: string, value: number | undefined, fallback: number): number {
  if (value === undefined) return fallback;
  if (!Number.isSafeInteger(value) || value < 10) {
    throw new CoordinationError('invalid_config', `${what} must be a whole number of milliseconds >= 10, got ${value}`);
  }
  return value;
}

function asCoordinationError(err: unknown): CoordinationError {
  return err instanceof CoordinationError ? err : new CoordinationError('redis', String(err), err);
}

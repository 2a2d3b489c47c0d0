import { type SlotJobOutcome, type SlotTransition, slotJobs, slotTransitions } from '../schedule/slot-events';
import { DAY } from '../schedule/tz';
import { WRITTEN_WITHIN_MS, zoneDay } from './day';
import { finishedRecord } from './finished';
import { DEFAULT_RETENTION_DAYS, JsonlAsRunStore } from './jsonl-store';
import { type AsRunEntry, type AsRunOutcome, type AsRunRecord, foldRecords } from './record';
import type { RedisAsRunStore } from './redis-store';
import { scheduleOfSlot } from './slot-key';

export interface AsRunRecorderOptions {
  /** where the day files go (Node-RED's user directory, or a folder in it) */
  dir: string;
  retentionDays?: number;
  /** The shared store of a schedule that runs under Redis coordination; undefined when it has none (now). */
  redisFor?: (scheduleId: string) => RedisAsRunStore | undefined;
  /** Every shared store a read should include (the coordination nodes deployed now). */
  redisStores?: () => RedisAsRunStore[];
  /** A write that failed (disk full, Redis down): the log goes on with the next entry. */
  onError?: (error: unknown, where: 'file' | 'redis') => void;
  now?: () => number;
}

export interface AsRunQuery {
  /** `YYYY-MM-DD` */
  day: string;
  /** IANA zone the day is read in */
  zone: string;
  outcome?: AsRunOutcome;
  /** a schedule's id or name */
  schedule?: string;
}

/**
 * How far before the day a slot's entries may have been written: an
 * operator may skip or cancel a slot days ahead. Planned transitions are not
 * logged (they tell of the future, and every later transition carries the
 * slot's whole description).
 */
const WRITTEN_BEFORE_MS = 7 * DAY;

/** Slots whose schedule is remembered for their follow-up job's outcome: the most recent. */
const SLOTS_KEPT = 4096;

/**
 * The as-run log: subscribes to slot transitions and follow-up job outcomes
 * (lib/schedule/slot-events) and appends each to this instance's day file
 * and, for a coordinated slot, to the shared Redis Stream. It keeps no state
 * of any slot: a record is folded from the entries when read, so a restart
 * mid-slot loses nothing that was published, and the entries of one slot
 * from two instances fold into one record.
 */
export class AsRunRecorder {
  readonly file: JsonlAsRunStore;
  private subscribed = false;
  /**
   * The schedule node of each recent slot and whether it ran coordinated: a job outcome names the slot only,
   * and a slot key starts with the schedule's `schedule_id` when it has one, not with its node id.
   */
  private readonly slots = new Map<string, { schedule: string; coordinated: boolean }>();
  private readonly onTransition = (message: unknown) => this.guard(() => this.transition(message as SlotTransition));
  private readonly onJob = (message: unknown) => this.guard(() => this.job(message as SlotJobOutcome));

  constructor(private readonly options: AsRunRecorderOptions) {
    this.file = new JsonlAsRunStore(options.dir, options.retentionDays ?? DEFAULT_RETENTION_DAYS, options.now);
  }

  start(): void {
    if (this.subscribed) return;
    this.subscribed = true;
    slotTransitions.subscribe(this.onTransition);
    slotJobs.subscribe(this.onJob);
  }

  stop(): void {
    if (!this.subscribed) return;
    this.subscribed = false;
    slotTransitions.unsubscribe(this.onTransition);
    slotJobs.unsubscribe(this.onJob);
  }

  /** An event heard before this recorder subscribed (the lazy start in a host), by its channel's name. */
  handle(channel: string, message: unknown): void {
    if (channel === slotTransitions.name) this.onTransition(message);
    else if (channel === slotJobs.name) this.onJob(message);
  }

  /** Resolves when every entry heard so far is in the day file. */
  flushed(): Promise<void> {
    return this.file.flushed();
  }

  /**
   * The records of the slots scheduled to start in a day of a zone, filtered, in order of scheduled
   * start. A shared store that cannot be read (Redis down) is left out and named in `warnings`: this
   * instance's file still answers for what it acted on.
   */
  async read(query: AsRunQuery, warnings: string[] = []): Promise<AsRunRecord[]> {
    const day = zoneDay(query.day, query.zone);
    const from = day.start - WRITTEN_BEFORE_MS;
    const to = day.end + WRITTEN_WITHIN_MS;
    const shared = (this.options.redisStores?.() ?? []).map((s) =>
      s.read(from, to).catch((error: unknown) => {
        warnings.push(
          `the shared log ${s.key} could not be read (${error instanceof Error ? error.message : String(error)}): only this instance's slots are shown`,
        );
        return [];
      }),
    );
    const entries = (await Promise.all([this.file.read(from, to), ...shared])).flat();
    return foldRecords(entries).filter((r) => {
      const start = Date.parse(r.scheduled.start);
      if (!(start >= day.start && start < day.end)) return false;
      if (query.outcome && r.outcome !== query.outcome) return false;
      if (query.schedule && r.schedule.id !== query.schedule && r.schedule.name !== query.schedule) return false;
      return true;
    });
  }

  /**
   * The whole record of a slot that has just reached its final phase `final`:
   * this instance's file and, for a coordinated slot, the shared stream (what
   * another instance did of the slot), read after every entry heard so far is
   * written. A shared store that cannot be read leaves the record to the file.
   */
  async finished(final: SlotTransition): Promise<{ record: AsRunRecord; repeated: boolean }> {
    await this.file.flushed();
    const now = (this.options.now ?? Date.now)();
    const start = Date.parse(final.scheduled.start);
    const from = (Number.isFinite(start) ? Math.min(start, now) : now) - WRITTEN_BEFORE_MS;
    const shared = final.coordinated ? this.options.redisFor?.(final.schedule.id) : undefined;
    const entries = await Promise.all([
      this.file.read(from, now),
      shared ? shared.read(from, now).catch(() => []) : [],
    ]);
    return finishedRecord(entries.flat(), final);
  }

  private transition(t: SlotTransition): void {
    if (t.to === 'planned' || typeof t.slot !== 'string') return;
    this.write({ kind: 'slot', event: t }, t.coordinated ? t.schedule?.id : undefined);
    if (typeof t.schedule?.id !== 'string') return;
    this.slots.delete(t.slot);
    this.slots.set(t.slot, { schedule: t.schedule.id, coordinated: t.coordinated === true });
    if (this.slots.size > SLOTS_KEPT) this.slots.delete(this.slots.keys().next().value as string);
  }

  private job(outcome: SlotJobOutcome): void {
    if (typeof outcome.slot !== 'string' || typeof outcome.job?.id !== 'string') return;
    const at = new Date((this.options.now ?? Date.now)()).toISOString();
    const known = this.slots.get(outcome.slot);
    // a slot not heard of since the start (a restart): its schedule's coordination, by the key's head
    const shared = known ? (known.coordinated ? known.schedule : undefined) : scheduleOfSlot(outcome.slot);
    this.write({ kind: 'job', at, event: outcome }, shared);
  }

  private write(entry: AsRunEntry, sharedFor: string | undefined): void {
    const onError = this.options.onError ?? (() => undefined);
    void this.file.append(entry, (error) => onError(error, 'file'));
    const shared = sharedFor === undefined ? undefined : this.options.redisFor?.(sharedFor);
    shared?.append(entry).catch((error: unknown) => onError(error, 'redis'));
  }

  /** A subscriber that throws would surface as an uncaught exception in whoever published. */
  private guard(fn: () => void): void {
    try {
      fn();
    } catch (error) {
      this.options.onError?.(error, 'file');
    }
  }
}

import type { SlotRef } from '../../lib/coordination';
import { isoSeconds, type ScheduleConfig, type Scheduler } from '../../lib/schedule';
import { type Contender, type Loss, lostToWords } from '../../lib/schedule/conflicts';

/** How far ahead conflicts are looked for: the feeds' plan (a week and a day). */
const AHEAD_MS = 8 * 24 * 3600_000;
/** Slots of one window looked at, at the most (a minutely cron window over 8 days is 11,520). */
const PER_WINDOW = 2000;

/**
 * The output-3 message of one occurrence that will not record: more overlap it than the document's
 * `max_channels` allows, and the windows' priorities gave the channels to others.
 */
export type ConflictReport = {
  topic: 'conflict';
  payload: {
    slot: string;
    window_id: string;
    /** padded, ISO */
    start: string;
    end: string;
    title?: string;
    /** what it lost to, in words (a programme's title, else the slot), best first */
    lost_to: string[];
    /** the slots it lost to, best first */
    lost_to_slots: string[];
    limit: number;
    /** the conflict's reason as the as-run log tells it: `conflict: lost to Evening news` */
    reason: string;
  };
};

/** A loser being told: its loss, and which time it loses (1; 2 once it won again and lost again; and so on). */
export interface ConflictTold {
  loser: Loss;
  round: number;
}

/**
 * Where Redis keeps that a loser was told, with a coordination node: each instance decides the same plan and
 * so finds the same losers, and the one that wins this claim sends the report. Under a name of the window's
 * own (`<schedule id>:<window id>#conflicts`: ids hold no `#`), so that a report of a start days ahead moves
 * no mark the slots' catch-up reads; the occurrence by its id, so that a listed one that moves keeps its key;
 * the phase `conflict`, then `conflict:2` and on for a loser that loses again after winning.
 */
export function conflictRef(scheduleId: string, { loser, round }: ConflictTold): SlotRef {
  const prefix = `${scheduleId}:${loser.windowId}:`;
  return {
    schedule: `${scheduleId}:${loser.windowId}#conflicts`,
    slot: loser.rankStart ?? loser.start,
    occurrence: loser.key.startsWith(prefix) ? loser.key.slice(prefix.length) : loser.key,
    phase: round === 1 ? 'conflict' : `conflict:${round}`,
  };
}

/** The reason a loser gives wherever it is told (the as-run log, the sidebar, the report). */
export function conflictReason(lostTo: readonly Pick<Contender, 'key' | 'title'>[]): string {
  return `conflict: lost to ${lostToWords(lostTo) || 'the other recordings'}`;
}

/**
 * Watches a schedule's plan against the document's `max_channels`: the scheduler decides (by the windows'
 * priorities, lib/schedule/conflicts) which overlapping occurrences record; each one that loses is reported
 * once, before its start, on output 3. A loser that wins again (a winner cancelled) is no longer marked, and
 * is reported again should it lose again. The scheduler holds the losers back at their start: none is tried.
 * `send` gets each report with the loss it tells (with a coordination node, one instance sends it: the
 * controller claims it in Redis under conflictRef).
 */
export class ConflictWatch {
  /** per loser reported: what it lost to, as told */
  private readonly reported = new Map<string, string>();
  /** per loser told: how many times it lost, until its end (a loss after winning again is told again) */
  private readonly rounds = new Map<string, { round: number; end: number }>();
  private lastCheck = '';
  /** slot keys of the occurrences that lose (planned, or waiting for a channel): the sidebar's timeline marks them */
  keys: ReadonlySet<string> = new Set();

  constructor(private readonly send: (report: ConflictReport, told: ConflictTold) => void) {}

  /** True when the losers changed (each new one reported). */
  check(scheduler: Scheduler | undefined, config: ScheduleConfig, now = Date.now()): boolean {
    const limit = config.maxChannels;
    if (!scheduler || limit === undefined) return this.reset();
    // the same plan, slots and minute decide the same: not decided again
    const state = [
      scheduler.planRevision,
      scheduler.scheduleId,
      config.windows.map((w) => `${w.id}:${w.enabled}:${w.priority ?? 0}`).join(','),
      limit,
      scheduler.paused,
      scheduler.skippedCount,
      scheduler.activeSlots().map((s) => `${s.key}@${s.end}`),
      scheduler.heldSlots().map((s) => s.key),
      Math.floor(now / 60_000),
    ].join('|');
    if (state === this.lastCheck) return false;
    this.lastCheck = state;
    const decision = scheduler.conflictDecision(now, now + AHEAD_MS, PER_WINDOW);
    const losers = [...(decision?.losers.values() ?? [])];
    const keys = new Set(losers.map((l) => l.key));
    for (const key of [...this.reported.keys()]) if (!keys.has(key)) this.reported.delete(key);
    for (const [key, { end }] of this.rounds) if (end <= now) this.rounds.delete(key);
    // a loser whose start passed was reported then (held): the running decision names it too
    for (const loser of losers) this.report(loser);
    const changed = keys.size !== this.keys.size || [...keys].some((k) => !this.keys.has(k));
    this.keys = keys;
    return changed;
  }

  /**
   * A loser held back at its start: reported now unless it was before (a conflict decided only at the start,
   * when a manual start took a channel). The reason, as the as-run log tells it.
   */
  held(loser: Contender & { lostTo: Contender[] }, limit: number): string {
    this.report({ ...loser, limit, concurrent: limit + 1 });
    if (!this.keys.has(loser.key)) this.keys = new Set([...this.keys, loser.key]);
    return conflictReason(loser.lostTo);
  }

  private report(loser: Loss): void {
    const said = loser.lostTo.map((c) => c.key).join('\n');
    if (this.reported.get(loser.key) === said) return;
    const first = !this.reported.has(loser.key);
    this.reported.set(loser.key, said);
    // once per loser: what it loses to may change (another winner) without a second report
    if (!first) return;
    const round = (this.rounds.get(loser.key)?.round ?? 0) + 1;
    this.rounds.set(loser.key, { round, end: loser.end });
    const report: ConflictReport = {
      topic: 'conflict',
      payload: {
        slot: loser.key,
        window_id: loser.windowId,
        start: isoSeconds(loser.rankStart ?? loser.start),
        end: isoSeconds(loser.end),
        ...(loser.title ? { title: loser.title } : {}),
        lost_to: loser.lostTo.map((c) => c.title ?? c.key),
        lost_to_slots: loser.lostTo.map((c) => c.key),
        limit: loser.limit,
        reason: conflictReason(loser.lostTo),
      },
    };
    this.send(report, { loser, round });
  }

  /** No limit (any more): nothing loses, and nothing is reported. */
  private reset(): boolean {
    const changed = this.keys.size > 0;
    this.lastCheck = '';
    this.reported.clear();
    this.keys = new Set();
    return changed;
  }
}

import { isoSeconds, type ScheduleConfig, type Scheduler } from '../../lib/schedule';
import { findConflicts } from '../../lib/schedule/conflicts';

/** How far ahead conflicts are looked for: the feeds' plan (a week and a day). */
const AHEAD_MS = 8 * 24 * 3600_000;
/** Slots of one window looked at, at the most (a minutely cron window over 8 days is 11,520). */
const PER_WINDOW = 2000;

/** The output-3 message naming the occurrences a plan puts over the space's `max_channels`. */
export type ConflictReport = {
  topic: 'conflict';
  payload: {
    limit: number;
    conflicts: Array<{
      slot: string;
      window_id: string;
      start: string;
      end: string;
      title?: string;
      concurrent: number;
      with: string[];
    }>;
  };
};

/**
 * Watches a schedule's plan against the document's `max_channels`: when the occurrences over it change (a
 * feed refreshed, a reload, a windows message), one `conflict` report names them all, before they happen.
 * Nothing is dropped: each is still recorded if the service lets it.
 */
export class ConflictWatch {
  private last = '';
  /** slot keys of the occurrences over the limit, as last reported (the sidebar's timeline marks them) */
  keys: ReadonlySet<string> = new Set();

  constructor(private readonly send: (report: ConflictReport) => void) {}

  /** True when the occurrences over the limit changed (then reported). */
  check(scheduler: Scheduler | undefined, config: ScheduleConfig, now = Date.now()): boolean {
    const limit = config.maxChannels;
    if (!scheduler || limit === undefined) return this.reset();
    const entries = scheduler
      .planned(now, now + AHEAD_MS, PER_WINDOW)
      .filter((p) => !p.band)
      .map((p) => ({
        key: p.key,
        windowId: p.windowId,
        start: p.start,
        end: p.end,
        ...(p.title ? { title: p.title } : {}),
      }));
    const conflicts = findConflicts(entries, limit);
    const said = conflicts.map((c) => c.key).join('\n');
    if (said === this.last) return false;
    this.last = said;
    this.keys = new Set(conflicts.map((c) => c.key));
    this.send({
      topic: 'conflict',
      payload: {
        limit,
        conflicts: conflicts.map((c) => ({
          slot: c.key,
          window_id: c.windowId,
          start: isoSeconds(c.start),
          end: isoSeconds(c.end),
          ...(c.title ? { title: c.title } : {}),
          concurrent: c.concurrent,
          with: c.with,
        })),
      },
    });
    return true;
  }

  /** No limit (any more): nothing is over it, and nothing is reported. */
  private reset(): boolean {
    const changed = this.keys.size > 0;
    this.last = '';
    this.keys = new Set();
    return changed;
  }
}

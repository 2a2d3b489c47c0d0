import { type CronSpec, compileCron, nextOccurrence, nextOccurrences, occurrencesBetween } from './cron';
import { isoSeconds } from './tz';

/**
 * One dated occurrence of a window as the scheduler times it: the recording's
 * times (padded), and what templates and reports read of the programme.
 * Times are epoch ms.
 */
export interface PlannedOccurrence {
  /** stable across refreshes: a cron start's ISO time, a calendar's UID + RECURRENCE-ID, a guide's channel + episode */
  id: string;
  /** when the recording starts and ends (the occurrence's own times with the window's padding) */
  start: number;
  end: number;
  /** changes when the occurrence's times or title change */
  revision?: string;
  /** the programme as the source gives it (absent for cron) */
  programme?: Programme;
  /** a later airing booked to record what this earlier slot failed to (lib/schedule/rerecord) */
  rerecordOf?: string;
}

/** What a calendar event or a guide's programme says of itself; times unpadded, epoch ms. */
export interface Programme {
  title?: string;
  description?: string;
  subtitle?: string;
  /** a guide's channel id */
  channel?: string;
  episode?: string;
  categories?: string[];
  location?: string;
  /** the live source the guide's channel maps to */
  sourceId?: string;
  start: number;
  end: number;
}

/** The occurrences of one window, in time: cron computes them, a feed or messages list them. */
export interface WindowPlan {
  /** the first occurrence starting after `after`, or null */
  next(after: number): PlannedOccurrence | null;
  /** occurrences starting in (from, to], earliest first; past `limit`, the latest are kept */
  between(from: number, to: number, limit: number): PlannedOccurrence[];
  /** occurrences whose recording overlaps [from, to), earliest first, at most `limit` */
  overlapping(from: number, to: number, limit: number): PlannedOccurrence[];
  /** the occurrence with this id, when the plan lists it (cron: any ISO time it would start at) */
  find(id: string): PlannedOccurrence | undefined;
}

/** A cron window's plan: an occurrence per start, `duration` ms long, its id the start's ISO time. */
export class CronPlan implements WindowPlan {
  private readonly spec: CronSpec | undefined;

  constructor(
    cron: string,
    private readonly timezone: string,
    private readonly durationMs: number,
  ) {
    try {
      this.spec = compileCron(cron);
    } catch {
      // a cron that no longer compiles plans nothing (the document's check names it)
      this.spec = undefined;
    }
  }

  next(after: number): PlannedOccurrence | null {
    if (!this.spec) return null;
    const start = nextOccurrence(this.spec, after, this.timezone);
    return start === null ? null : this.at(start);
  }

  /** The first `n` occurrences starting after `after` (the preview's list of next starts). */
  first(after: number, n: number): PlannedOccurrence[] {
    if (!this.spec) return [];
    return nextOccurrences(this.spec, after, this.timezone, n).map((start) => this.at(start));
  }

  between(from: number, to: number, limit: number): PlannedOccurrence[] {
    if (!this.spec) return [];
    return occurrencesBetween(this.spec, from, to, this.timezone, limit).map((start) => this.at(start));
  }

  overlapping(from: number, to: number, limit: number): PlannedOccurrence[] {
    const out: PlannedOccurrence[] = [];
    let next = this.next(from - this.durationMs - 1);
    while (next !== null && next.start < to && out.length < limit) {
      if (next.end > from) out.push(next);
      next = this.next(next.start);
    }
    return out;
  }

  find(id: string): PlannedOccurrence | undefined {
    const start = Date.parse(id);
    return Number.isFinite(start) && isoSeconds(start) === id ? this.at(start) : undefined;
  }

  private at(start: number): PlannedOccurrence {
    return { id: isoSeconds(start), start, end: start + this.durationMs };
  }
}

/** A listed plan (a calendar, a guide, messages): the occurrences as given, ordered by start. */
export class ListedPlan implements WindowPlan {
  private readonly list: PlannedOccurrence[];
  private readonly byId: Map<string, PlannedOccurrence>;

  constructor(occurrences: readonly PlannedOccurrence[]) {
    this.list = [...occurrences].sort((a, b) => a.start - b.start || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
    this.byId = new Map(this.list.map((o) => [o.id, o]));
  }

  get size(): number {
    return this.list.length;
  }

  all(): readonly PlannedOccurrence[] {
    return this.list;
  }

  next(after: number): PlannedOccurrence | null {
    return this.list[this.firstAfter(after)] ?? null;
  }

  between(from: number, to: number, limit: number): PlannedOccurrence[] {
    const out: PlannedOccurrence[] = [];
    for (let i = this.firstAfter(from); i < this.list.length && this.list[i].start <= to; i++) out.push(this.list[i]);
    return out.length > limit ? out.slice(out.length - limit) : out;
  }

  overlapping(from: number, to: number, limit: number): PlannedOccurrence[] {
    const out: PlannedOccurrence[] = [];
    for (const o of this.list) {
      if (o.start >= to || out.length >= limit) break;
      if (o.end > from) out.push(o);
    }
    return out;
  }

  find(id: string): PlannedOccurrence | undefined {
    return this.byId.get(id);
  }

  /** index of the first occurrence starting after `t` (binary search) */
  private firstAfter(t: number): number {
    let lo = 0;
    let hi = this.list.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.list[mid].start <= t) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }
}

/** How a listed plan changed: what a re-plan reports and acts on. */
export interface PlanChange {
  /** in the old plan, not in the new one, and starting after `now` */
  cancelled: PlannedOccurrence[];
  /** in both, with other times */
  moved: Array<{ before: PlannedOccurrence; after: PlannedOccurrence }>;
  added: PlannedOccurrence[];
}

/**
 * Compares two listed plans over the range the new one covers: an occurrence
 * past the new range's end is not "cancelled", only no longer looked at.
 */
export function comparePlans(before: ListedPlan, after: ListedPlan, coveredTo: number): PlanChange {
  const change: PlanChange = { cancelled: [], moved: [], added: [] };
  for (const old of before.all()) {
    const now = after.find(old.id);
    if (!now) {
      if (old.start <= coveredTo) change.cancelled.push(old);
    } else if (now.start !== old.start || now.end !== old.end) change.moved.push({ before: old, after: now });
  }
  for (const o of after.all()) if (!before.find(o.id)) change.added.push(o);
  return change;
}

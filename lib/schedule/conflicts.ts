/**
 * Conflicts of a plan with a space's limit of concurrent channels
 * (`max_channels`): which recordings would be one channel too many, and which
 * of the overlapping ones record. Every entry stays in the plan (nothing is
 * silently dropped): `decideConflicts` names the losers and what each lost to,
 * so that the scheduler holds them back before their start and the editor,
 * the sidebar and the node's reports can say so before it happens.
 */

/** One planned recording: its padded times in ms (the channel exists from start to end). */
export interface PlanEntry {
  key: string;
  windowId: string;
  start: number;
  end: number;
  title?: string;
}

export interface Conflict extends PlanEntry {
  /** channels recording at once when this one starts, itself included */
  concurrent: number;
  limit: number;
  /** keys of the entries it overlaps: those running when it starts, then those starting while it runs */
  with: string[];
}

const byKey = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
const byStartThenKey = (a: PlanEntry, b: PlanEntry) =>
  a.start - b.start || (a.key < b.key ? -1 : a.key > b.key ? 1 : 0);

/**
 * The entries that would take a channel over `limit` concurrent channels: a
 * sweep over the (padded) times in order of start, ties by key, so that the
 * later-starting entries are the ones marked. An entry ending when another
 * starts does not overlap it. Each entry counts whether or not it is marked
 * (how many would run at once if every one were tried: `decideConflicts` says
 * which are). A limit that is not a positive number marks nothing.
 */
export function findConflicts(entries: readonly PlanEntry[], limit: number): Conflict[] {
  if (!Number.isFinite(limit) || limit < 1) return [];
  const sorted = entries.filter((e) => e.end > e.start).sort(byStartThenKey);
  const overlaps = new Map<string, string[]>();
  const marked: { entry: PlanEntry; concurrent: number }[] = [];
  /** running entries, kept ordered by end (a binary insert: the running set is small beside the plan) */
  let running: PlanEntry[] = [];
  for (const entry of sorted) {
    let firstLive = 0;
    while (firstLive < running.length && running[firstLive].end <= entry.start) firstLive++;
    if (firstLive > 0) running = running.slice(firstLive);
    const mine: string[] = [];
    for (const other of running) {
      mine.push(other.key);
      overlaps.get(other.key)?.push(entry.key);
    }
    overlaps.set(entry.key, mine);
    const concurrent = running.length + 1;
    if (concurrent > limit) marked.push({ entry, concurrent });
    running.splice(insertAt(running, entry.end), 0, entry);
  }
  return marked.map(({ entry, concurrent }) => ({
    ...entry,
    concurrent,
    limit,
    with: overlaps.get(entry.key) ?? [],
  }));
}

/** Where an entry ending at `end` goes in a list ordered by end. */
function insertAt(list: readonly PlanEntry[], end: number): number {
  let lo = 0;
  let hi = list.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (list[mid].end <= end) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** One recording that wants a channel, as the priority rule reads it. */
export interface Contender extends PlanEntry {
  /** the window's `priority`: higher wins (default 0) */
  priority?: number;
  /** the window's place in the document: ties of priority and start go to the earlier window */
  order?: number;
  /** the occurrence's own (padded) start, when `start` was moved on to now (a loser waiting for a free channel) */
  rankStart?: number;
  /** recording now: it keeps its channel whatever its rank */
  running?: boolean;
}

/** A contender that does not record: over the limit beside the higher-ranked ones it overlaps. */
export interface Loss extends Contender {
  limit: number;
  /** channels that would record at once at its busiest instant, were it tried too (itself included) */
  concurrent: number;
  /** the winners it overlaps, best first: those it lost to */
  lostTo: Contender[];
}

export interface ConflictDecision {
  /** keys of the contenders that record */
  winners: Set<string>;
  /** the ones that do not, by key, in rank order */
  losers: Map<string, Loss>;
}

/**
 * The priority rule: higher `priority` first; equal priorities, the earlier start; then the window's place in
 * the document; then the key (so that any two instances, and any restart, order the same plan the same way).
 */
export function compareRank(a: Contender, b: Contender): number {
  return (
    (b.priority ?? 0) - (a.priority ?? 0) ||
    (a.rankStart ?? a.start) - (b.rankStart ?? b.start) ||
    (a.order ?? 0) - (b.order ?? 0) ||
    byKey(a.key, b.key)
  );
}

/**
 * Which recordings of a plan record when more overlap than `limit` channels allow: a pure function of the
 * entries (the same plan gives the same decision on every instance and after every restart). Running entries
 * keep their channels; then, best rank first (compareRank), an entry records when, at every instant of its
 * recording, fewer than `limit` of the entries already chosen record. A loser lost to the winners it overlaps.
 * An entry ending when another starts does not overlap it. A limit that is not a positive number: all record.
 */
export function decideConflicts(entries: readonly Contender[], limit: number): ConflictDecision {
  const usable = entries.filter((e) => e.end > e.start);
  const decision: ConflictDecision = { winners: new Set(), losers: new Map() };
  if (!Number.isFinite(limit) || limit < 1) {
    for (const e of usable) decision.winners.add(e.key);
    return decision;
  }
  const order = [...usable].sort(
    (a, b) => Number(b.running === true) - Number(a.running === true) || compareRank(a, b),
  );
  /** the winners so far, ordered by start (a binary insert), and the longest of them */
  const chosen: Contender[] = [];
  let longest = 0;
  for (const e of order) {
    const overlapping = overlappingOf(chosen, longest, e);
    const peak = peakOf(overlapping, e);
    if (e.running || peak < limit) {
      decision.winners.add(e.key);
      chosen.splice(insertByStart(chosen, e.start), 0, e);
      longest = Math.max(longest, e.end - e.start);
    } else {
      decision.losers.set(e.key, { ...e, limit, concurrent: peak + 1, lostTo: overlapping.sort(compareRank) });
    }
  }
  return decision;
}

/** The chosen entries whose recording overlaps `e`'s (chosen is ordered by start; none is longer than `longest`). */
function overlappingOf(chosen: readonly Contender[], longest: number, e: Contender): Contender[] {
  const out: Contender[] = [];
  for (let i = insertByStart(chosen, e.end - 1) - 1; i >= 0 && chosen[i].start > e.start - longest; i--) {
    const c = chosen[i];
    if (c.start < e.end && c.end > e.start) out.push(c);
  }
  return out;
}

/** The most of `others` recording at one instant of `e`'s recording. */
function peakOf(others: readonly Contender[], e: Contender): number {
  if (others.length === 0) return 0;
  const edges: Array<[number, number]> = [];
  for (const o of others) edges.push([Math.max(o.start, e.start), 1], [Math.min(o.end, e.end), -1]);
  // an end before a start at the same instant: back to back is no overlap
  edges.sort((a, b) => a[0] - b[0] || a[1] - b[1]);
  let now = 0;
  let peak = 0;
  for (const [, step] of edges) {
    now += step;
    peak = Math.max(peak, now);
  }
  return peak;
}

/** Where an entry starting at `start` goes in a list ordered by start (after those starting at or before it). */
function insertByStart(list: readonly Contender[], start: number): number {
  let lo = 0;
  let hi = list.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (list[mid].start <= start) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** "Evening news, Match": what a loser lost to, in words (its title, else its key). */
export function lostToWords(lostTo: readonly Pick<Contender, 'key' | 'title'>[]): string {
  return lostTo.map((c) => c.title ?? c.key).join(', ');
}

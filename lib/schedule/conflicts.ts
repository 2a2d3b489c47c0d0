/**
 * Conflicts of a plan with a space's limit of concurrent channels
 * (`max_channels`): which recordings would be one channel too many. Every
 * entry stays in the plan (nothing is silently dropped); the ones over the
 * limit are named so that the editor, the sidebar and the node's reports can
 * say so before they happen.
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

const byStartThenKey = (a: PlanEntry, b: PlanEntry) =>
  a.start - b.start || (a.key < b.key ? -1 : a.key > b.key ? 1 : 0);

/**
 * The entries that would take a channel over `limit` concurrent channels: a
 * sweep over the (padded) times in order of start, ties by key, so that the
 * later-starting entries are the ones marked. An entry ending when another
 * starts does not overlap it. Each entry counts whether or not it is marked:
 * the limit is the service's, and a marked recording is still attempted.
 * A limit that is not a positive number marks nothing.
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

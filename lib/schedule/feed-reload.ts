/** What "Reload feed" read: the occurrences the window now plans, the feed's problems, or why it failed. */
export interface FeedReloadResult {
  windowId: string;
  /** false: the fetch failed; the window keeps its last good plan (`error` says why) */
  ok: boolean;
  /** occurrences the window plans from the feed (the last good copy's when the fetch failed) */
  occurrences: number;
  /** events or programmes left out, one sentence each */
  problems: string[];
  error?: string;
}

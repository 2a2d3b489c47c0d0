/**
 * What a calendar or guide window does with each field it leaves out: the one table the runtime reads its
 * defaults from (sources/window-config.ts, sources/guide-match.ts) and the editor's window form shows them
 * from. A pure module: the editor bundle imports it.
 */
export const FEED_WINDOW_DEFAULTS = {
  /** how often the feed is fetched again */
  refresh: '15m',
  refreshMs: 15 * 60_000,
  /** a recording whose occurrence is cancelled runs to its planned end */
  on_cancel: 'keep',
  /** a calendar's all-day events are left out */
  all_day: false,
  /**
   * a window's length when it names no `duration`: a manual start's, and (as `default_duration`) a
   * calendar's timed event without DTEND or DURATION
   */
  duration: '1h',
  durationS: 3600,
  /** a feed that suddenly reads to nothing is taken as broken (the last good plan is kept) */
  allow_empty: false,
  /** a guide's repeats are recorded too */
  new_only: false,
  /** the same title and episode shown again is recorded again */
  duplicates: 'all',
} as const satisfies {
  refresh: string;
  refreshMs: number;
  on_cancel: 'keep' | 'stop';
  all_day: boolean;
  duration: string;
  durationS: number;
  allow_empty: boolean;
  new_only: boolean;
  duplicates: 'once' | 'all';
};

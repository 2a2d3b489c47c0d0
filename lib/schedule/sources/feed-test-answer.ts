/** What "Test feed" answers (a pure module: the editor bundle reads its types). */

/** A window field that does not validate (as window-config's issues name it). */
export interface FeedTestIssue {
  /** the field, as a path in the window: `padding.before`, `match.title` */
  path: string;
  message: string;
}

export interface FeedTestOccurrence {
  id: string;
  title?: string;
  /** ISO with the zone's offset: the occurrence's own times */
  start: string;
  end: string;
  /** the recording's times: padding added */
  padded_start: string;
  padded_end: string;
  channel?: string;
  source_id?: string;
}

/** An occurrence that would not record: it loses a conflict over max_channels (lib/schedule/conflicts). */
export interface FeedTestConflict {
  id: string;
  title?: string;
  padded_start: string;
  padded_end: string;
  /** channels at once at its busiest instant, were it tried too */
  concurrent: number;
  limit: number;
  /** ids of the occurrences it lost to (they record), best first */
  with: string[];
  /** the same, in words: their titles, else their ids */
  lost_to: string[];
}

export interface FeedTestAnswer {
  ok: boolean;
  window?: string;
  timezone?: string;
  kind?: 'ical' | 'xmltv';
  occurrences: FeedTestOccurrence[];
  /** matching occurrences in the horizon beyond those listed */
  more: number;
  conflicts: FeedTestConflict[];
  /** things the feed left out, one sentence each */
  problems: string[];
  /** why the feed as a whole cannot be read or fetched, or the window is wrong */
  error?: string;
  /** the window's fields that do not validate */
  issues?: FeedTestIssue[];
}

import diagnostics_channel from 'node:diagnostics_channel';

/** A refresh of an external schedule source (a calendar, an EPG feed), as the metrics see it. */
export interface FeedRefreshEvent {
  /** the feed's name or URL without credentials: a low-cardinality label */
  feed: string;
  ok: boolean;
  /** epoch ms of the refresh */
  at: number;
}

export const feedEvents = diagnostics_channel.channel('media-spaces:feed');

/** What feed code calls after each refresh: the metrics count failures and export the last success (staleness). */
export function reportFeedRefresh(feed: string, ok: boolean, at = Date.now()): void {
  if (feedEvents.hasSubscribers) feedEvents.publish({ feed, ok, at } satisfies FeedRefreshEvent);
}

import { ACTIVITY_TOPIC } from './activity-types';
import { ActivityFeed } from './feed';

/** The slice of the RED object a feed needs: the runtime's event bus and comms. */
export interface FeedHost {
  events?: { on(event: string, listener: (...args: unknown[]) => void): unknown };
  comms?: { publish(topic: string, data: unknown, retain?: boolean): void };
}

const feeds = new WeakMap<object, ActivityFeed>();
/** Stands in for the event bus of a RED object without one (unit-test stand-ins of RED). */
const NO_EVENTS = {};

/**
 * The one activity feed of a Node-RED runtime. Each node module and plugin
 * gets its own RED object, but all of them share the runtime's event bus,
 * which is what the feed is keyed by: the schedule nodes, the follow-job
 * nodes and the sidebar plugin all reach the same feed.
 *
 * The signal is published retained, so an editor that connects later (a
 * reload, a runtime restart) is told the current revision at once and
 * fetches the state.
 */
export function activityFeed(RED: FeedHost): ActivityFeed {
  const key = RED.events ?? NO_EVENTS;
  let feed = feeds.get(key);
  if (!feed) {
    const comms = RED.comms;
    const created = new ActivityFeed((signal) => comms?.publish(ACTIVITY_TOPIC, signal, true));
    // a redeploy or restart: editors refetch even if no node registered anything new
    RED.events?.on('flows:started', () => created.announce());
    feeds.set(key, created);
    feed = created;
  }
  return feed;
}

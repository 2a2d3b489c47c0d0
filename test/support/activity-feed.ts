import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import type { ActivityFeed } from '../../nodes/sidebar/feed';
import { nodeEntry, ROOT } from './node-modules';

const require = createRequire(import.meta.url);

/**
 * The activity feed of the Node-RED runtime the test helper runs: the one the
 * compiled nodes report into (dist/, loaded with Node's require like the
 * runtime loads them), keyed by the runtime's event bus.
 */
export function runtimeFeed(): ActivityFeed {
  const host = join(ROOT, dirname(nodeEntry('media-spaces-schedule')), '..', 'sidebar', 'feed-host.js');
  const { activityFeed } = require(host) as typeof import('../../nodes/sidebar/feed-host');
  const { events } = require('@node-red/util') as { events: { on(e: string, l: () => void): unknown } };
  return activityFeed({ events });
}

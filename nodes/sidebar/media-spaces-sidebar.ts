import type { NodeAPI } from '../shared/node-red-types';
import { activityFeed } from './feed-host';
import { registerMonitoringRoutes } from './monitoring';
import { registerActivityRoutes } from './routes';

/**
 * The "Media Spaces" sidebar plugin, runtime side: the admin endpoints the
 * tab reads and acts through. Its editor side (the tab) is the .html beside
 * this file. The schedule and follow-job nodes report into the same feed
 * (activityFeed(RED)). The monitoring endpoints (metrics, as-run log) and
 * the process's as-run recorder start here too (monitoring.ts).
 */
export = function register(RED: NodeAPI): void {
  registerActivityRoutes(RED, activityFeed(RED));
  registerMonitoringRoutes(RED);
  RED.plugins?.registerPlugin('media-spaces-sidebar', {
    type: 'media-spaces-sidebar',
    // settings.js `'media-spaces-sidebar': { requestTimeout: <ms> }`: how long the tab waits for an answer
    settings: { requestTimeout: { exportable: true } },
  });
};

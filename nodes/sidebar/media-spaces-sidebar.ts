import type { NodeAPI } from '../shared/node-red-types';
import { activityFeed } from './feed-host';
import { registerActivityRoutes } from './routes';

/**
 * The "Media Spaces" sidebar plugin, runtime side: the admin endpoints the
 * tab reads and acts through. Its editor side (the tab) is the .html beside
 * this file. The schedule and follow-job nodes report into the same feed
 * (activityFeed(RED)).
 */
export = function register(RED: NodeAPI): void {
  registerActivityRoutes(RED, activityFeed(RED));
  RED.plugins?.registerPlugin('media-spaces-sidebar', { type: 'media-spaces-sidebar' });
};

import type { RequestHandler } from '../shared/node-red-types';
import { requirePermission, WRITE_PERMISSION } from '../shared/permission';
import type { ScheduleAPI } from './types';

const TEST_FEED_PATH = '/media-spaces/schedule/test-feed';

/** POST: the window form's "Test feed" (test-feed.ts), with media-spaces.write. */
export function registerTestFeedRoute(RED: ScheduleAPI): void {
  let handler: RequestHandler | undefined;
  // the handler and what it reads (the deployed flows, the feed's secrets) load with the first test
  RED.httpAdmin.post(TEST_FEED_PATH, requirePermission(RED, WRITE_PERMISSION), (req, res, next) => {
    handler ??= (require('./test-feed') as typeof import('./test-feed')).testFeedHandler(RED);
    return handler(req, res, next);
  });
}

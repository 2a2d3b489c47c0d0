import type { NodeDef } from '../shared/node-red-types';
import { startMonitoringSoon } from '../sidebar/monitoring';
import { registerPatternRoute } from './pattern-route';
import { registerPreviewRoute } from './preview-route';
import { listenForFlowsStarted } from './start-gate';
import { registerTestFeedRoute } from './test-feed-route';
import type { ScheduleAPI, ScheduleNode } from './types';

/**
 * media-spaces-schedule: recording windows (YAML inline or in a watched
 * file, or the editor's list) that emit, without anyone at the keyboard,
 * - output 1 `start`: a create-channel request when a window opens,
 * - output 2 `end`: a submit-job request when it closes,
 * - output 3 `control`: replies to control messages.
 * The scheduling logic is lib/schedule; controller.ts maps it onto Node-RED.
 */
export = function register(RED: ScheduleAPI): void {
  function MediaSpacesScheduleNode(this: ScheduleNode, def: NodeDef): void {
    RED.nodes.createNode(this, def);
    // required on first deploy, not at Node-RED start: a flow without a schedule never loads yaml or node-cron
    const { start } = require('./controller') as typeof import('./controller');
    start(RED, this, def);
    startMonitoringSoon();
  }

  // feeds: per window id, a private feed address and the feed's user and password or token (JSON text)
  RED.nodes.registerType('media-spaces-schedule', MediaSpacesScheduleNode, {
    credentials: { feeds: { type: 'password' } },
  });
  registerPreviewRoute(RED);
  registerPatternRoute(RED);
  registerTestFeedRoute(RED);
  listenForFlowsStarted(RED);
};

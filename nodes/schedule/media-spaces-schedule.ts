import type { NodeDef } from '../shared/node-red-types';
import { registerPreviewRoute } from './preview-route';
import { listenForFlowsStarted } from './start-gate';
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
    const { asMediaSpacesError, failMessage } = require('../shared/failure') as typeof import('../shared/failure');
    const { dialogLabels, settingsWithWarnings } = require('../shared/settings') as typeof import('../shared/settings');
    const { FIELDS } = require('./fields') as typeof import('./fields');
    const { ScheduleController } = require('./controller') as typeof import('./controller');
    const { scheduleSettingsSchema } = require('./settings') as typeof import('./settings');
    const controller = new ScheduleController(
      RED,
      this,
      settingsWithWarnings(scheduleSettingsSchema, def, dialogLabels(RED, def.type, FIELDS), (text) => this.warn(text)),
    );

    this.on('input', (msg, send, done) => {
      try {
        // Node-RED sends null to an output that gets nothing; its typings here know only full arrays
        send(controller.control(msg) as Parameters<typeof send>[0]);
        done();
      } catch (err) {
        failMessage(this, msg, asMediaSpacesError(err, 'Schedule').toJSON(), done);
      }
    });

    this.on('close', (removed, done) => {
      controller.close(removed);
      done();
    });
  }

  RED.nodes.registerType('media-spaces-schedule', MediaSpacesScheduleNode);
  registerPreviewRoute(RED);
  listenForFlowsStarted(RED);
};

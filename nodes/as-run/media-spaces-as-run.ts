import type { NodeAPI, NodeDef } from '../shared/node-red-types';
import type { AsRunNode } from './controller';

/**
 * media-spaces-as-run: sends the as-run record of each slot when it reaches
 * its final phase (recorded, overran, partial, missed, skipped, cancelled), filtered by
 * schedule and outcome, so a flow can mail or archive it. The record is read
 * from the as-run log (lib/asrun), which the sidebar plugin's monitoring
 * keeps.
 */
export = function register(RED: NodeAPI): void {
  function AsRunNodeType(this: AsRunNode, def: NodeDef): void {
    RED.nodes.createNode(this, def);
    // required on first deploy, not at Node-RED start
    const { start } = require('./controller') as typeof import('./controller');
    start(RED, this, def);
  }

  RED.nodes.registerType('media-spaces-as-run', AsRunNodeType);
};

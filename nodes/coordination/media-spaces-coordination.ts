import type { NodeAPI, NodeDef } from '../shared/node-red-types';
import type { CoordinationNode } from './controller';

/**
 * media-spaces-coordination: the Redis that several Node-RED instances share
 * so each schedule slot and followed job is acted on once. Owns the one
 * connection every node using it shares; closes it on redeploy.
 */
export = function register(RED: NodeAPI): void {
  function MediaSpacesCoordinationNode(this: CoordinationNode, def: NodeDef): void {
    RED.nodes.createNode(this, def);
    // required on first deploy, not at Node-RED start
    const { start } = require('./controller') as typeof import('./controller');
    start(RED, this, def);
  }

  RED.nodes.registerType('media-spaces-coordination', MediaSpacesCoordinationNode, {
    credentials: { username: { type: 'password' }, password: { type: 'password' } },
  });
};

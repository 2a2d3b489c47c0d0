import type { NodeAPI, NodeDef } from '../shared/node-red-types';
import { registerAdminRoutes } from './admin-routes';
import type { ConfigNode } from './controller';
import { registerOAuthCallback } from './oauth-callback';

/**
 * media-spaces-config: where the service is and how to authenticate. Owns the
 * one client (and so the one keep-alive connection pool) that every node
 * using this config shares. Its public surface is getClient(); the
 * credentials stay inside, but for the editor's calls to the very settings
 * they were deployed with (storedCredentialsFor, nodes/config/stored-credentials.ts).
 */
export = function register(RED: NodeAPI): void {
  function MediaSpacesConfigNode(this: ConfigNode, def: NodeDef): void {
    RED.nodes.createNode(this, def);
    // required on first deploy, not at Node-RED start
    const { start } = require('./controller') as typeof import('./controller');
    start(this, def);
  }

  RED.nodes.registerType('media-spaces-config', MediaSpacesConfigNode, {
    credentials: {
      apiKey: { type: 'password' },
      accessToken: { type: 'password' },
      workflowToken: { type: 'password' },
      workflowTokenExpiresAt: { type: 'text' },
    },
  });
  registerAdminRoutes(RED);
  registerOAuthCallback(RED);
};

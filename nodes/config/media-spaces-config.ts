import type { MediaSpacesClient } from '../../lib/client';
import type { Node, NodeAPI, NodeDef } from '../shared/node-red-types';
import type { Area, ClientProvider } from '../shared/server-client';
import { registerAdminRoutes } from './admin-routes';
import { registerOAuthCallback } from './oauth-callback';
import type { StoredCredentialSource } from './stored-credentials';

/**
 * media-spaces-config: where the service is and how to authenticate. Owns the
 * one client (and so the one keep-alive connection pool) that every node
 * using this config shares. Its public surface is getClient(); the
 * credentials stay inside, but for the editor's calls to the very settings
 * they were deployed with (storedCredentialsFor, nodes/config/stored-credentials.ts).
 */
type ConfigNode = Node & ClientProvider & StoredCredentialSource;

export = function register(RED: NodeAPI): void {
  function MediaSpacesConfigNode(this: ConfigNode, def: NodeDef): void {
    RED.nodes.createNode(this, def);
    // required on first deploy, not at Node-RED start
    const { createClient } = require('../../lib/client') as typeof import('../../lib/client');
    const { MediaSpacesError } = require('../../lib/errors') as typeof import('../../lib/errors');
    const { configError, parseConfig } = require('./config-settings') as typeof import('./config-settings');
    const { credentialTargets, storedForTarget } =
      require('./stored-credentials') as typeof import('./stored-credentials');
    const label = def.name ? `"${String(def.name)}"` : this.id;
    let client: MediaSpacesClient | undefined;
    let closed = false;

    const credentials = this.credentials ?? {};
    const parsed = parseConfig(def, {
      apiKey: credentials.apiKey,
      accessToken: credentials.accessToken,
      workflowToken: credentials.workflowToken,
      workflowTokenExpiresAt: credentials.workflowTokenExpiresAt,
    });
    // said once per deploy, not per request
    if (parsed.warnings.length > 0) this.warn(`Media Spaces config ${label}: ${parsed.warnings.join('; ')}`);

    const deployedTargets = credentialTargets(def);
    this.storedCredentialsFor = (fields) => storedForTarget(deployedTargets, credentials, fields);

    this.getClient = (area?: Area): MediaSpacesClient => {
      if (closed) {
        throw new MediaSpacesError({ code: 'aborted', message: `Media Spaces config ${label} is closed (redeploy)` });
      }
      if (Object.keys(parsed.problems).length > 0) throw configError(label, parsed.problems);
      if (area === 'workflow' && !parsed.config.apiKey && !parsed.config.workflowToken) {
        throw MediaSpacesError.invalidInput(
          `Media Spaces config ${label} has no API key: enter it in the config node, or Sign in there`,
          {
            apiKey: 'is required',
          },
        );
      }
      if (area === 'liveCapture' && !parsed.config.accessToken) {
        throw MediaSpacesError.invalidInput(
          `Media Spaces config ${label} has no access token: enter it in the config node`,
          { accessToken: 'is required' },
        );
      }
      client ??= createClient(parsed.config);
      return client;
    };

    this.on('close', (_removed, done) => {
      closed = true;
      const closing = client?.close() ?? Promise.resolve();
      client = undefined;
      closing.then(done, done);
    });
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

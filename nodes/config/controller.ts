import { createClient, type MediaSpacesClient } from '../../lib/client';
import { MediaSpacesError } from '../../lib/errors';
import type { Node, NodeDef } from '../shared/node-red-types';
import type { Area, ClientProvider } from '../shared/server-client';
import { UNTIL_FIXED } from '../shared/setting-name';
import { configError, parseConfig } from './config-settings';
import { credentialTargets, type StoredCredentialSource, storedForTarget } from './stored-credentials';

export type ConfigNode = Node & ClientProvider & StoredCredentialSource;

/**
 * The config node as a provider: one client (and so one keep-alive connection pool) for every
 * node using it, built on first use from the deployed settings and credentials, closed on redeploy.
 */
export function start(node: ConfigNode, def: NodeDef): void {
  const label = def.name ? `"${String(def.name)}"` : node.id;
  let client: MediaSpacesClient | undefined;
  let closed = false;

  const credentials = node.credentials ?? {};
  const parsed = parseConfig(def, {
    apiKey: credentials.apiKey,
    accessToken: credentials.accessToken,
    workflowToken: credentials.workflowToken,
    workflowTokenExpiresAt: credentials.workflowTokenExpiresAt,
  });
  // said once per deploy, not per request
  if (parsed.warnings.length > 0) node.warn(`Media Spaces config ${label}: ${parsed.warnings.join('; ')}`);
  // a bad setting refuses every use, as an operation node's refuses each message; said once here too
  if (Object.keys(parsed.problems).length > 0) {
    node.error(`${configError(label, parsed.problems).message}; ${UNTIL_FIXED.uses}`);
  }

  const deployedTargets = credentialTargets(def);
  node.storedCredentialsFor = (fields) => storedForTarget(deployedTargets, credentials, fields);

  node.getClient = (area?: Area): MediaSpacesClient => {
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

  node.on('close', (_removed, done) => {
    closed = true;
    const closing = client?.close() ?? Promise.resolve();
    client = undefined;
    closing.then(done, done);
  });
}

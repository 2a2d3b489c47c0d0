import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import { type ConnectionStatus, CoordinationError, Coordinator, RedisConnection } from '../../lib/coordination';
import type { CoordinationProvider } from '../shared/coordination-provider';
import type { Node, NodeAPI, NodeDef } from '../shared/node-red-types';
import { UNTIL_FIXED } from '../shared/setting-name';
import { type CoordinationSettings, parseCoordinationSettings } from './coordination-settings';

export type CoordinationNode = Node & CoordinationProvider;

// one id per Node-RED process: claims survive a redeploy as "ours" only until their lease ends
const INSTANCE_ID = `${hostname()}:${process.pid}:${randomUUID().slice(0, 8)}`;

/**
 * The coordination node as a provider: one Coordinator on one Redis connection for every node
 * using it, connected on deploy and closed on redeploy; bad settings are said once and given
 * to every user as the reason.
 */
export function start(RED: NodeAPI, node: CoordinationNode, def: NodeDef): void {
  const label = def.name ? `"${String(def.name)}"` : node.id;
  const credentials = node.credentials ?? {};
  let settings: CoordinationSettings | undefined;
  let coordinator: Coordinator | undefined;
  let problem: CoordinationError | undefined;
  let closed = false;
  try {
    settings = parseCoordinationSettings(def, RED);
    const connection = new RedisConnection({
      url: settings.url,
      username: credentials.username,
      password: credentials.password,
      clientName: `media-spaces:${INSTANCE_ID}`.replace(/\s/g, '_'),
    });
    coordinator = new Coordinator({
      connection,
      instanceId: INSTANCE_ID,
      keyPrefix: settings.keyPrefix,
      leaseMs: settings.leaseMs,
      doneTtlMs: settings.doneTtlMs,
      // one setting for both: how long a silent instance keeps a slot or a followed job before a survivor takes it
      jobHeartbeatMs: settings.leaseMs,
    });
  } catch (err) {
    problem = err instanceof CoordinationError ? err : new CoordinationError('invalid_config', String(err));
    settings = undefined;
    // a bad setting refuses every use (getCoordinator says why), as the server config node's does; said once here
    node.error(`Redis coordination ${label}: ${problem.message}; ${UNTIL_FIXED.uses}`);
  }

  // said once per change, not on every reconnect attempt
  coordinator?.connection.onStatus((status) => {
    if (status.state === 'error') node.warn(`Redis coordination ${label}: ${status.error}`);
    else if (status.state === 'connected')
      node.log(`Redis coordination ${label}: connected to ${coordinator?.connection.endpoint.display}`);
  });
  coordinator?.connection.connect();

  node.coordinationSettings = settings;
  node.getCoordinator = (): Coordinator => {
    if (closed) throw new CoordinationError('closed', `Redis coordination ${label} is closed (redeploy)`);
    if (!coordinator) throw new CoordinationError('invalid_config', `Redis coordination ${label}: ${problem?.message}`);
    return coordinator;
  };
  node.coordinationStatus = (): ConnectionStatus =>
    coordinator?.connection.status ?? { state: 'error', error: problem?.message, errorCode: 'invalid_config' };
  node.onCoordinationStatus = (listener) => coordinator?.connection.onStatus(listener) ?? (() => undefined);

  node.on('close', (_removed, done) => {
    closed = true;
    const closing = coordinator?.connection.close() ?? Promise.resolve();
    closing.then(done, done);
  });
}

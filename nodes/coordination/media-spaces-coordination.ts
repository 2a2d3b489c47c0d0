import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import type { ConnectionStatus, Coordinator } from '../../lib/coordination';
import type { Node, NodeAPI, NodeDef } from '../shared/node-red-types';
import type { CoordinationProvider } from './coordination-provider';
import type { CoordinationSettings } from './coordination-settings';

/**
 * media-spaces-coordination: the Redis that several Node-RED instances share
 * so each schedule slot and followed job is acted on once. Owns the one
 * connection every node using it shares; closes it on redeploy.
 */
type CoordinationNode = Node & CoordinationProvider;

// one id per Node-RED process: claims survive a redeploy as "ours" only until their lease ends
const INSTANCE_ID = `${hostname()}:${process.pid}:${randomUUID().slice(0, 8)}`;

export = function register(RED: NodeAPI): void {
  function MediaSpacesCoordinationNode(this: CoordinationNode, def: NodeDef): void {
    RED.nodes.createNode(this, def);
    // required on first deploy, not at Node-RED start
    const { CoordinationError, Coordinator, RedisConnection } =
      require('../../lib/coordination') as typeof import('../../lib/coordination');
    const { parseCoordinationSettings } =
      require('./coordination-settings') as typeof import('./coordination-settings');
    const label = def.name ? `"${String(def.name)}"` : this.id;
    const credentials = this.credentials ?? {};
    let settings: CoordinationSettings | undefined;
    let coordinator: Coordinator | undefined;
    let problem: InstanceType<typeof CoordinationError> | undefined;
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
      this.error(`Redis coordination ${label}: ${problem.message}`);
    }

    // said once per change, not on every reconnect attempt
    coordinator?.connection.onStatus((status) => {
      if (status.state === 'error') this.warn(`Redis coordination ${label}: ${status.error}`);
      else if (status.state === 'connected')
        this.log(`Redis coordination ${label}: connected to ${coordinator?.connection.endpoint.display}`);
    });
    coordinator?.connection.connect();

    this.coordinationSettings = settings;
    this.getCoordinator = (): Coordinator => {
      if (closed) throw new CoordinationError('closed', `Redis coordination ${label} is closed (redeploy)`);
      if (!coordinator)
        throw new CoordinationError('invalid_config', `Redis coordination ${label}: ${problem?.message}`);
      return coordinator;
    };
    this.coordinationStatus = (): ConnectionStatus =>
      coordinator?.connection.status ?? { state: 'error', error: problem?.message, errorCode: 'invalid_config' };
    this.onCoordinationStatus = (listener) => coordinator?.connection.onStatus(listener) ?? (() => undefined);

    this.on('close', (_removed, done) => {
      closed = true;
      const closing = coordinator?.connection.close() ?? Promise.resolve();
      closing.then(done, done);
    });
  }

  RED.nodes.registerType('media-spaces-coordination', MediaSpacesCoordinationNode, {
    credentials: { username: { type: 'password' }, password: { type: 'password' } },
  });
};

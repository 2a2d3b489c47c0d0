import type { ConnectionStatus, Coordinator } from '../../lib/coordination';
import type { CoordinationSettings } from './coordination-settings';

/**
 * What a `media-spaces-coordination` config node offers the nodes that use it
 * (schedule, follow-job): one Coordinator on one shared Redis connection.
 */
export interface CoordinationProvider {
  /** Throws CoordinationError `invalid_config` (bad settings) or `closed` (after redeploy). */
  getCoordinator(): Coordinator;
  /** Valid settings, or undefined when they are not (getCoordinator says why). */
  coordinationSettings: CoordinationSettings | undefined;
  /** The connection's status now; `error` with the settings problem when they are invalid. */
  coordinationStatus(): ConnectionStatus;
  /** Status changes of the shared connection; returns an unsubscribe function (call it on close). */
  onCoordinationStatus(listener: (status: ConnectionStatus) => void): () => void;
}

import type { ConnectionStatus, Coordinator } from '../../lib/coordination';

/** What a schedule does with a slot while Redis cannot be used. */
export const UNREACHABLE_POLICIES = ['skip', 'alone'] as const;
export type UnreachablePolicy = (typeof UNREACHABLE_POLICIES)[number];

/**
 * What a `media-spaces-coordination` config node offers the nodes that use it
 * (schedule, follow-job): one Coordinator on one shared Redis connection.
 */
export interface CoordinationProvider {
  /** Throws CoordinationError `invalid_config` (bad settings) or `closed` (after redeploy). */
  getCoordinator(): Coordinator;
  /** The settings its users read, or undefined when the node's are not valid (getCoordinator says why). */
  coordinationSettings: { whenUnreachable: UnreachablePolicy } | undefined;
  /** The connection's status now; `error` with the settings problem when they are invalid. */
  coordinationStatus(): ConnectionStatus;
  /** Status changes of the shared connection; returns an unsubscribe function (call it on close). */
  onCoordinationStatus(listener: (status: ConnectionStatus) => void): () => void;
}

/** The node's methods are what makes it a provider; a node of another type with this id is not one. */
export function isCoordinationProvider(node: unknown): node is CoordinationProvider {
  if (typeof node !== 'object' || node === null) return false;
  const candidate: Partial<Record<keyof CoordinationProvider, unknown>> = node;
  return (
    typeof candidate.getCoordinator === 'function' &&
    typeof candidate.coordinationStatus === 'function' &&
    typeof candidate.onCoordinationStatus === 'function'
  );
}

/**
 * The coordination config node a schedule or follow-job node names, or
 * undefined when it names none (this instance alone, as without
 * coordination). A name that leads nowhere is an error the caller reports.
 */
export function findCoordination(
  getNode: (id: string) => unknown,
  id: string | undefined,
): { provider?: CoordinationProvider; problem?: string } {
  if (!id) return {};
  const node = getNode(id);
  if (isCoordinationProvider(node)) return { provider: node };
  return { problem: `the Redis coordination node ${id} is missing or not deployed: each slot is skipped` };
}

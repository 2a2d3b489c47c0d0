/**
 * What a node keeps across a redeploy in this process.
 *
 * Node-RED deletes a node's context when it closes unless a context store is
 * configured in settings.js, so without a hand-over a plain redeploy would
 * forget windows in progress and jobs being followed. The closing node keeps
 * its state here under its id; its successor with the same id takes it once.
 * A configured context store (and the state journal) covers process restarts.
 */
export class Handover<State> {
  private readonly states = new Map<string, State>();

  keep(nodeId: string, state: State): void {
    this.states.set(nodeId, state);
  }

  /** The state left by this node's predecessor, removed so that it is used once. */
  take(nodeId: string): State | undefined {
    const state = this.states.get(nodeId);
    this.states.delete(nodeId);
    return state;
  }

  has(nodeId: string): boolean {
    return this.states.has(nodeId);
  }

  drop(nodeId: string): void {
    this.states.delete(nodeId);
  }
}

/**
 * A node id made safe for a file name or a key: Node-RED ids are hex, but an
 * imported flow may carry anything.
 */
export function safeId(nodeId: string): string {
  return nodeId.replace(/[^A-Za-z0-9_.-]/g, '_').slice(0, 64) || 'node';
}

import type { Node, NodeStatus } from './node-red-types';

/** Shortest gap between two badge updates of one node. */
export const STATUS_INTERVAL_MS = 250;

/**
 * A node's status badge, updated at most every 250 ms and only when it
 * changes: a node following 5,000 jobs, or taking a thousand messages a
 * second, would otherwise flood the editor with status events. The last
 * status set always shows, at most 250 ms late.
 */
export class StatusBoard {
  private pending: NodeStatus | undefined;
  private timer: ReturnType<typeof setTimeout> | undefined;
  private lastAt = Number.NEGATIVE_INFINITY;
  private shown = '';
  private closed = false;

  constructor(private readonly node: Pick<Node, 'status'>) {}

  set(status: NodeStatus): void {
    if (this.closed) return;
    this.pending = status;
    const wait = this.lastAt + STATUS_INTERVAL_MS - Date.now();
    if (wait <= 0) this.flush();
    else this.timer ??= setTimeout(() => this.flush(), wait);
  }

  /** Clears the badge and stops updating it (the node is closing). */
  close(): void {
    this.closed = true;
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timer = undefined;
    this.node.status({});
  }

  private flush(): void {
    this.timer = undefined;
    if (this.closed || this.pending === undefined) return;
    const key = JSON.stringify(this.pending);
    this.lastAt = Date.now();
    if (key !== this.shown) this.node.status(this.pending);
    this.shown = key;
    this.pending = undefined;
  }
}

import type { Node, NodeStatus } from './node-red-types';

/** Shortest gap between two badge updates of one node. */
const STATUS_INTERVAL_MS = 250;

/**
 * A node's status badge, updated at most every 250 ms and only when it
 * changes: a node following 5,000 jobs, or taking a thousand messages a
 * second, would otherwise flood the editor with status events. The last
 * status set always shows, at most 250 ms late.
 */
export class StatusBoard {
  private pending: NodeStatus | (() => NodeStatus) | undefined;
  private timer: ReturnType<typeof setTimeout> | undefined;
  private lastAt = Number.NEGATIVE_INFINITY;
  private shown = '';
  private closed = false;

  constructor(private readonly node: Pick<Node, 'status'>) {}

  /**
   * `status` may be a function that gives it when it is shown: a node taking a thousand
   * messages a second then builds one status per update, not one per message.
   */
  set(status: NodeStatus | (() => NodeStatus)): void {
    if (this.closed) return;
    this.pending = status;
    // an update is already due: it shows this status
    if (this.timer !== undefined) return;
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
    const status = typeof this.pending === 'function' ? this.pending() : this.pending;
    const key = JSON.stringify(status);
    this.lastAt = Date.now();
    if (key !== this.shown) this.node.status(status);
    this.shown = key;
    this.pending = undefined;
  }
}

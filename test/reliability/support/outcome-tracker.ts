import type { HelperNode } from 'node-red-node-test-helper';

export type Msg = Record<string, unknown> & {
  _msgid?: string;
  payload?: unknown;
  statusCode?: number;
  error?: Record<string, unknown> & { cause?: Record<string, unknown> };
};

export interface Tracked {
  id: string;
  /** What the message was sent to, e.g. the node's operation. */
  kind: string;
  /** Messages on an outcome output (the operation's result). */
  outputs: Msg[];
  /** Messages a Catch node received for it. */
  errors: Msg[];
  /** Messages on a progress output (not an outcome; e.g. watch progress). */
  progress: number;
  sentAt: number;
  settledAt?: number;
}

/**
 * Follows messages by `_msgid` (which Node-RED keeps on everything a node
 * sends for an input, and on what it hands to Catch nodes) from the moment
 * they are sent until their outcome: an output, or a Catch-visible error.
 * Anything arriving for an unknown id is a stray (e.g. a schedule's own
 * start message).
 */
export class OutcomeTracker {
  readonly byId = new Map<string, Tracked>();
  readonly strays: Msg[] = [];
  private open = 0;
  private waiters: Array<() => void> = [];

  /** Listens on helper nodes: `outcome` outputs, `error` (Catch) and `progress` outputs. */
  attach(nodes: { outcome: HelperNode[]; error: HelperNode[]; progress?: HelperNode[] }): void {
    for (const n of nodes.outcome) n.on('input', (m) => this.record(m as Msg, 'output'));
    for (const n of nodes.error) n.on('input', (m) => this.record(m as Msg, 'error'));
    for (const n of nodes.progress ?? []) n.on('input', (m) => this.record(m as Msg, 'progress'));
  }

  expect(id: string, kind: string): void {
    this.byId.set(id, { id, kind, outputs: [], errors: [], progress: 0, sentAt: Date.now() });
    this.open++;
  }

  /** Messages sent and not yet settled. */
  get pending(): number {
    return this.open;
  }

  /** Resolves when fewer than `n` messages are pending, or after `timeoutMs` (false then). */
  async below(n: number, timeoutMs: number): Promise<boolean> {
    const deadline = Date.now() + timeoutMs;
    while (this.open >= n) {
      const left = deadline - Date.now();
      if (left <= 0) return false;
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, Math.min(left, 250));
        this.waiters.push(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
    return true;
  }

  /** Waits until nothing is pending or no message settles for `quietMs`. */
  async drain(quietMs: number): Promise<void> {
    let last = this.open;
    while (this.open > 0) {
      const moved = await this.below(last, quietMs);
      if (!moved) return;
      last = this.open;
    }
  }

  private record(msg: Msg, what: 'output' | 'error' | 'progress'): void {
    const id = typeof msg._msgid === 'string' ? msg._msgid : '';
    const t = this.byId.get(id);
    if (!t) {
      this.strays.push(msg);
      return;
    }
    if (what === 'progress') {
      t.progress++;
      return;
    }
    const first = t.outputs.length + t.errors.length === 0;
    if (what === 'output') t.outputs.push(msg);
    else t.errors.push(msg);
    if (first) {
      t.settledAt = Date.now();
      this.open--;
      const waiters = this.waiters;
      this.waiters = [];
      for (const w of waiters) w();
    }
  }

  /** Ids with other than exactly one outcome. */
  anomalies(): { lost: Tracked[]; multiple: Tracked[] } {
    const lost: Tracked[] = [];
    const multiple: Tracked[] = [];
    for (const t of this.byId.values()) {
      const n = t.outputs.length + t.errors.length;
      if (n === 0) lost.push(t);
      else if (n > 1) multiple.push(t);
    }
    return { lost, multiple };
  }
}

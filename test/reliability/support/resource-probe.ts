import { createHook } from 'node:async_hooks';
import type { Socket } from 'node:net';

/**
 * Counts what a process holds: active handles (process._getActiveHandles(),
 * which misses unref'd ones), live async resources by type (async_hooks:
 * every timer and socket from creation to destruction, ref'd or not), and
 * the heap after a full garbage collection (needs --expose-gc).
 *
 * Timers made by the test runner itself (vitest's own bookkeeping) are told
 * apart by the stack at their creation and reported separately.
 */

const TRACKED = new Set(['Timeout', 'Immediate', 'TCPWRAP', 'TCPSERVERWRAP', 'TCPCONNECTWRAP', 'HTTPCLIENTREQUEST']);
const RUNNER = /node_modules[\\/](vitest|@vitest|tinypool|tinyspy)[\\/]/;

export interface ResourceCounts {
  handles: number;
  handlesByType: Record<string, number>;
  /** Sockets among the active handles (either end of a connection). */
  sockets: number;
  /** Sockets to or from the given port (the simulator), both ends. */
  socketsToPort: number;
  /** Live async resources by type (async_hooks), runner timers excluded. */
  live: Record<string, number>;
  /** Live timers (setTimeout/setInterval, ref'd or not) of the product, Node-RED and the simulator. */
  timers: number;
  /** Live timers of the test runner. */
  runnerTimers: number;
  /** Where each live timer (not the runner's) was made, by async id. */
  timerOrigins: Record<string, string>;
  heapUsedMB: number;
}

type Resource = { type: string; runner: boolean; origin?: string };

/** Where a timer was made: the first frames outside node's own internals. */
function origin(stack: string): string {
  return stack
    .split('\n')
    .slice(1)
    .map((l) => l.trim())
    .filter((l) => !l.includes('node:internal') && !l.includes('resource-probe'))
    .slice(0, 4)
    .join(' < ');
}

export class ResourceProbe {
  private readonly live = new Map<number, Resource>();
  private readonly hook = createHook({
    init: (asyncId, type) => {
      if (!TRACKED.has(type)) return;
      if (type !== 'Timeout') {
        this.live.set(asyncId, { type, runner: false });
        return;
      }
      const stack = new Error().stack ?? '';
      const runner = RUNNER.test(stack);
      this.live.set(asyncId, { type, runner, origin: runner ? undefined : origin(stack) });
    },
    destroy: (asyncId) => {
      this.live.delete(asyncId);
    },
  });

  start(): this {
    this.hook.enable();
    return this;
  }

  stop(): void {
    this.hook.disable();
  }

  /** Counts now; with `gc`, after full collections (so that destroyed-but-uncollected objects are gone). */
  async measure(options: { port?: number; gc?: boolean } = {}): Promise<ResourceCounts> {
    if (options.gc) await fullGc();
    const handles = (process as unknown as { _getActiveHandles(): unknown[] })._getActiveHandles();
    const handlesByType: Record<string, number> = {};
    let sockets = 0;
    let socketsToPort = 0;
    for (const h of handles) {
      const name = (h as object)?.constructor?.name ?? typeof h;
      handlesByType[name] = (handlesByType[name] ?? 0) + 1;
      const s = h as Partial<Socket>;
      if (typeof s.remotePort === 'number' || name === 'Socket') {
        sockets++;
        if (options.port !== undefined && (s.localPort === options.port || s.remotePort === options.port)) {
          socketsToPort++;
        }
      }
    }
    const live: Record<string, number> = {};
    let timers = 0;
    let runnerTimers = 0;
    const timerOrigins: Record<string, string> = {};
    for (const [id, r] of this.live) {
      if (r.runner) {
        runnerTimers++;
        continue;
      }
      live[r.type] = (live[r.type] ?? 0) + 1;
      if (r.type === 'Timeout') {
        timers++;
        timerOrigins[id] = r.origin ?? '';
      }
    }
    return {
      handles: handles.length,
      handlesByType,
      sockets,
      socketsToPort,
      live,
      timers,
      runnerTimers,
      timerOrigins,
      heapUsedMB: Math.round((process.memoryUsage().heapUsed / 1024 / 1024) * 10) / 10,
    };
  }
}

/** Several full collections with turns of the event loop between them (finalizers, weak refs). */
export async function fullGc(): Promise<void> {
  const gc = (globalThis as { gc?: () => void }).gc;
  if (!gc) throw new Error('global.gc is missing: run with node --expose-gc (the reliability config passes it)');
  for (let i = 0; i < 4; i++) {
    gc();
    await new Promise((resolve) => setImmediate(resolve));
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

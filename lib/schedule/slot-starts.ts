/**
 * What a create-channel node tells the schedule about the start of one of its
 * slots, in the same runtime: each attempt that failed and will be tried again,
 * the channel once created, or that it gave up. The schedule needs this to own
 * the recording (stop it at the end, follow it up, or report the slot missed)
 * whether or not the flow wires the created channel back into it, and to show
 * "starting, attempt 4: 503 …" in the sidebar.
 *
 * Keyed by slot key (`<schedule id>:<window id>:<start>`, the start message's
 * `msg.window.slotKey`); a schedule listens from its start until its end.
 */
export type StartReport =
  /** the first request for the channel is on its way */
  | { kind: 'requesting' }
  | { kind: 'attempt'; attempt: number; reason: string; retryInMs: number }
  | { kind: 'started'; channel: Record<string, unknown>; attempts: number; lateMs: number }
  | { kind: 'failed'; reason: string; attempts: number };

type Listener = (report: StartReport) => void;

const listeners = new Map<string, Listener>();

/** Listens to the reports of one slot's start; returns the unsubscribe. */
export function listenToStart(slotKey: string, listener: Listener): () => void {
  listeners.set(slotKey, listener);
  return () => {
    if (listeners.get(slotKey) === listener) listeners.delete(slotKey);
  };
}

/** Reports on a slot's start; nothing happens when no schedule of this runtime listens. */
export function reportStart(slotKey: string, report: StartReport): void {
  const listener = listeners.get(slotKey);
  if (!listener) return;
  try {
    listener(report);
  } catch {
    // a schedule's bookkeeping must never fail the create-channel message
  }
}

/** How many slots are listened to now: bench/workers/soak-host.mjs checks none is left behind after its windows. */
export function listenedStarts(): number {
  return listeners.size;
}

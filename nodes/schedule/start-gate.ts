import type { ScheduleAPI } from './types';

/**
 * Nodes waiting for their flow to start. One 'flows:started' listener per
 * runtime serves them all (a listener per node would trip the emitter's
 * max-listeners warning with a dozen schedules).
 */
const waiting = new Set<() => void>();
const listeningEmitters = new WeakSet<object>();

/** Installs the runtime's one listener (at registration). */
export function listenForFlowsStarted(RED: ScheduleAPI): void {
  const events = RED.events;
  if (!events || listeningEmitters.has(events)) return;
  listeningEmitters.add(events);
  events.on('flows:started', () => {
    for (const begin of [...waiting]) begin();
  });
}

/**
 * Runs `begin` once the whole flow runs (at once, on the next turn, in a
 * runtime without events). Returns the cancellation for a node closing first.
 */
export function whenFlowsStarted(RED: ScheduleAPI, begin: () => void): () => void {
  const once = () => {
    waiting.delete(once);
    begin();
  };
  if (RED.events) waiting.add(once);
  else setImmediate(once);
  return () => waiting.delete(once);
}

import type { SchedulerState, SchedulerStore } from '../../lib/schedule';
import { Handover } from '../shared/node-state';
import { newerState, type StateJournal, stateJournal } from './state-journal';
import type { ScheduleAPI, ScheduleNode } from './types';

/** Node context key of the scheduler state (slots in progress, emitted slot keys, paused). */
const CONTEXT_KEY = 'mediaSpacesSchedule';

/** States handed from a closing schedule node to its successor with the same id (a redeploy). */
export const handover = new Handover<SchedulerState>();

/**
 * Where a schedule keeps its state: node context and, with a file context
 * store, also a synchronous journal, so that a crash loses nothing the
 * schedule acted on. A redeploy's hand-over comes first.
 */
export class ScheduleStateStore implements SchedulerStore {
  private readonly journal: StateJournal | undefined;
  private journalFailed = false;
  /** the newest state saved in this turn of the event loop, written to the journal at the turn's end */
  private pending: (SchedulerState & { savedAt: number }) | undefined;

  constructor(
    RED: ScheduleAPI,
    private readonly node: ScheduleNode,
    private readonly isClosed: () => boolean,
  ) {
    this.journal = stateJournal(RED.settings, 'schedule', node.id);
  }

  load(): Promise<SchedulerState | undefined> {
    const handed = handover.take(this.node.id);
    if (handed) return Promise.resolve(handed);
    return new Promise((resolve) => {
      const fromJournal = this.journal?.read() as SchedulerState | undefined;
      try {
        this.node.context().get(CONTEXT_KEY, (err, value) => {
          if (err) this.node.warn(`cannot read the schedule state from node context: ${err.message}`);
          resolve(newerState(err ? undefined : value, fromJournal) as SchedulerState | undefined);
        });
      } catch (err) {
        this.node.warn(`cannot read the schedule state from node context: ${(err as Error).message}`);
        resolve(fromJournal);
      }
    });
  }

  save(state: SchedulerState): void {
    if (this.isClosed()) return;
    const stamped = { ...state, savedAt: Date.now() };
    this.deferJournal(stamped);
    this.node.context().set(CONTEXT_KEY, stamped, (err) => {
      if (err) this.node.warn(`cannot save the schedule state to node context: ${err.message}`);
    });
  }

  /** A removed node's context is deleted by the runtime; its journal goes with it. */
  remove(): void {
    this.pending = undefined;
    this.journal?.remove();
  }

  /**
   * The scheduler saves more than once while it handles one instant (the start recorded, then the
   * instant's changes), and each journal write is a file written and renamed. Writing once, at the
   * end of the turn (a microtask), keeps the journal ahead of every action: a start message is
   * delivered, and a request sent, only in a later turn (Node-RED delivers by setImmediate).
   */
  private deferJournal(stamped: SchedulerState & { savedAt: number }): void {
    if (!this.journal) return;
    const first = this.pending === undefined;
    this.pending = stamped;
    if (!first) return;
    queueMicrotask(() => {
      const newest = this.pending;
      this.pending = undefined;
      // saved before the node closed: written even if it closed since (a removed node's is dropped)
      if (newest) this.writeJournal(newest);
    });
  }

  private writeJournal(stamped: SchedulerState & { savedAt: number }): void {
    if (!this.journal) return;
    try {
      this.journal.write(stamped);
      this.journalFailed = false;
    } catch (err) {
      // warned once per run of failures, not on every save
      if (!this.journalFailed) {
        this.node.warn(`cannot write the schedule journal ${this.journal.file}: ${(err as Error).message}`);
      }
      this.journalFailed = true;
    }
  }
}

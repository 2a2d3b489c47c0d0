import { type AsRunRecord, foldRecords, isTerminalPhase, outcomeOfTransition } from '../../lib/asrun/record';
import type { AsRunRecorder } from '../../lib/asrun/recorder';
import { type SlotTransition, slotTransitions } from '../../lib/schedule/slot-events';
import type { Node, NodeAPI, NodeDef, NodeMessage, NodeStatus } from '../shared/node-red-types';
import { dialogLabels, settingsWithWarnings } from '../shared/settings';
import { StatusBoard } from '../shared/status-board';
import { asRunLog } from '../sidebar/monitoring';
import { FIELDS, FINISHED_OUTCOMES } from './fields';
import { type AsRunSettings, asRunSettings } from './settings';

export type AsRunNode = Node & { send(msg: NodeMessage): void };

/** Slot keys sent lately, so a final phase heard twice in one run is sent once; the log catches the rest. */
const REMEMBERED = 1000;

/**
 * Listens to the slots' transitions (lib/schedule/slot-events). A slot's final
 * transition is published once, by the instance that acted on it, so each
 * finished slot is sent once, by that instance, also with two coordinated
 * instances running the same flows. Its record is read from the as-run log
 * (the file, and the shared stream when coordinated), so it holds what another
 * instance or an earlier run of this one saw of the slot.
 */
export class AsRunSender {
  private readonly sent = new Set<string>();
  private count = 0;
  private closed = false;
  /** records go out in the order their slots finished, whichever log read answers first */
  private inOrder: Promise<void> = Promise.resolve();
  private readonly listener = (message: unknown) => this.heard(message as SlotTransition);

  constructor(
    private readonly node: AsRunNode,
    private readonly settings: AsRunSettings,
    private readonly log: AsRunRecorder,
    private readonly status: StatusBoard,
  ) {
    slotTransitions.subscribe(this.listener);
  }

  close(): void {
    this.closed = true;
    slotTransitions.unsubscribe(this.listener);
  }

  /** Whether the node sends a slot that ended with this transition. */
  wants(t: SlotTransition): boolean {
    if (typeof t?.slot !== 'string' || !isTerminalPhase(t.to)) return false;
    const wanted = this.settings.schedule;
    if (wanted !== '' && t.schedule?.id !== wanted && t.schedule?.name !== wanted) return false;
    const outcome = outcomeOfTransition(t);
    return FINISHED_OUTCOMES.some((o) => o === outcome && this.settings[o]);
  }

  private heard(t: SlotTransition): void {
    if (this.closed || !this.wants(t) || this.sent.has(t.slot)) return;
    this.sent.add(t.slot);
    if (this.sent.size > REMEMBERED) this.sent.delete(this.sent.values().next().value as string);
    const read = this.log.finished(t);
    this.inOrder = this.inOrder.then(() =>
      read.then(
        ({ record, repeated }) => {
          if (!repeated) this.send(record);
        },
        (error: unknown) => {
          // the log could not be read: the final transition alone still says what happened and why
          this.node.warn(`media-spaces-as-run: the as-run log could not be read (${String(error)})`);
          this.send(recordOfTransition(t));
        },
      ),
    );
    // a send that throws (a wired node's own fault) must not hold back the records after it
    this.inOrder = this.inOrder.catch((error: unknown) => this.node.error(`media-spaces-as-run: ${String(error)}`));
  }

  private send(record: AsRunRecord): void {
    if (this.closed) return;
    this.count++;
    this.node.send({ topic: record.outcome, payload: record });
    this.status.set(sentStatus(this.count, record));
  }
}

function recordOfTransition(t: SlotTransition): AsRunRecord {
  return foldRecords([{ kind: 'slot', event: t }])[0];
}

function sentStatus(count: number, last: AsRunRecord): NodeStatus {
  const fine = last.outcome === 'recorded' && last.discrepancy === undefined;
  const title = last.occurrence.title ?? last.window.id;
  return {
    fill: fine ? 'green' : last.outcome === 'skipped' || last.outcome === 'cancelled' ? 'grey' : 'red',
    shape: 'dot',
    text: `${count} sent; last: ${title} ${last.outcome}`,
  };
}

/** The node's runtime, from its deploy on. */
export function start(RED: NodeAPI, node: AsRunNode, def: NodeDef): void {
  const warn = (text: string) => node.warn(`media-spaces-as-run: ${text}`);
  const settings = settingsWithWarnings(asRunSettings, def, dialogLabels(RED, def.type, FIELDS), warn);
  const status = new StatusBoard(node);
  // the log subscribes before this node does, so a final transition is in its queue when the node reads it
  const sender = new AsRunSender(node, settings, asRunLog(RED), status);
  node.on('close', (_removed, done) => {
    sender.close();
    status.close();
    done();
  });
}

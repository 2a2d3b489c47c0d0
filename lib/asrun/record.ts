import type { SlotJobOutcome, SlotPhase, SlotTransition } from '../schedule/slot-events';
import {
  isFinalPhase,
  isLate,
  lateSentence,
  outcomeOf,
  overrunSentence,
  SLOT_OUTCOMES,
  type SlotOutcome,
} from '../schedule/slot-outcome';
import { skewSentence } from '../service-clock';

/** How a slot ended, as the as-run log reports it (lib/schedule/slot-outcome); `open` while it has not ended. */
export type AsRunOutcome = SlotOutcome | 'open';
export const AS_RUN_OUTCOMES: readonly AsRunOutcome[] = [...SLOT_OUTCOMES, 'open'];

export function isTerminalPhase(phase: SlotPhase): boolean {
  return isFinalPhase(phase);
}

/** The outcome of a slot that ended with this transition; `open` when it did not end with it. */
export function outcomeOfTransition(t: Pick<SlotTransition, 'to' | 'overrun'>): AsRunOutcome {
  return outcomeOf(t) ?? 'open';
}

/** One line of the log: a slot's transition, or how its follow-up job ended (written when heard). */
export type AsRunEntry = { kind: 'slot'; event: SlotTransition } | { kind: 'job'; at: string; event: SlotJobOutcome };

export interface AsRunChannel {
  id: string;
  outputs?: unknown[];
}

/** What was scheduled for a slot and what happened, folded from its entries. */
export interface AsRunRecord {
  slot: string;
  schedule: { id: string; name: string };
  window: { id: string; zone: string };
  occurrence: { id: string; title?: string; episode?: string; start: string; end: string };
  /** padded */
  scheduled: { start: string; end: string };
  /**
   * by the service's clock: when the first segment began to record (its `recording.started_at`, else the
   * first read in RECORDING) and when the recording ended (its `recording.ended_at`); in logs written before
   * these were told, when the slot entered recording, and finishing (else its final phase)
   */
  actual: { start?: string; end?: string };
  /** seconds from the padded start to the actual start */
  lateBy?: number;
  /** seconds the recording ran past the scheduled (padded) end, when it overran it (lib/schedule/slot-outcome) */
  overrunBy?: number;
  /**
   * the service's clock minus this host's (seconds) when they differed by surely more than 2 s: the schedule
   * started and stopped the recording by this host's clock, `actual` is the service's
   */
  clockOffset?: number;
  /** every segment, in the order they started */
  channels: AsRunChannel[];
  gaps: { from: string; to: string; why: string }[];
  interruptions: number;
  attempts?: number;
  job?: SlotJobOutcome['job'];
  outcome: AsRunOutcome;
  /** the last phase the slot reached */
  phase: SlotPhase;
  reason?: string;
  coordinated?: boolean;
  /** the earlier slot this one records again, at a later airing (a window's rerecord) */
  rerecordOf?: string;
  /** why the slot differs from its schedule (missed, partial, late, interrupted, the follow-up failed); absent when it does not */
  discrepancy?: string;
}

/**
 * The records of the slots the entries tell of, one per slot key, in order
 * of scheduled start. Entries may come in any order, twice (two stores, or a
 * transition published again after a restart), or from two instances: a
 * record is the same whatever their order, so readers merge stores freely.
 * A job entry for a slot with no transition among the entries is left out
 * (its slot lies outside what was read).
 */
export function foldRecords(entries: Iterable<AsRunEntry>): AsRunRecord[] {
  const bySlot = new Map<string, { transitions: Map<string, SlotTransition>; job?: SlotJobOutcome['job'] }>();
  const slotOf = (key: string) => {
    let s = bySlot.get(key);
    if (!s) {
      s = { transitions: new Map() };
      bySlot.set(key, s);
    }
    return s;
  };
  for (const entry of entries) {
    if (entry.kind === 'slot') {
      const t = entry.event;
      slotOf(t.slot).transitions.set(`${t.at}|${t.from}|${t.to}`, t);
    } else {
      const s = slotOf(entry.event.slot);
      // two reports of one job (a replayed end): the last state heard
      s.job = entry.event.job;
    }
  }
  const records: AsRunRecord[] = [];
  for (const [slot, s] of bySlot) {
    if (s.transitions.size === 0) continue;
    records.push(recordOf(slot, untilFinal([...s.transitions.values()].sort(byTime)), s.job));
  }
  return records.sort((a, b) => a.scheduled.start.localeCompare(b.scheduled.start) || a.slot.localeCompare(b.slot));
}

/**
 * A slot's transitions up to its first final phase: a slot ends once, and a
 * final transition after it is the schedule telling of an end again (an end
 * replayed after a restart re-publishes the slot as finished, without the
 * gaps of a partial one), not a second ending. The one exception: a
 * conflict's loser, skipped at its start, started late once a channel freed
 * up (a `revived` transition): its life goes on from there.
 */
function untilFinal(transitions: SlotTransition[]): SlotTransition[] {
  let revivedAt = -1;
  transitions.forEach((t, i) => {
    if (t.revived === true) revivedAt = i;
  });
  if (revivedAt > 0) {
    const before = transitions.slice(0, revivedAt).filter((t) => t.to !== 'skipped');
    transitions = [...before, ...transitions.slice(revivedAt)];
  }
  const first = transitions.findIndex((t) => isTerminalPhase(t.to));
  return first < 0 ? transitions : transitions.slice(0, first + 1);
}

function byTime(a: SlotTransition, b: SlotTransition): number {
  return Date.parse(a.at) - Date.parse(b.at);
}

function recordOf(slot: string, transitions: SlotTransition[], job: SlotJobOutcome['job'] | undefined): AsRunRecord {
  const last = transitions[transitions.length - 1];
  const terminal = transitions.filter((t) => isTerminalPhase(t.to)).at(-1);
  const firstRecording = transitions.find((t) => t.to === 'recording');
  const end =
    transitions.find((t) => t.to === 'finishing') ?? (terminal && terminal.to !== 'missed' ? terminal : undefined);
  const channels = new Map<string, AsRunChannel>();
  let gaps: AsRunRecord['gaps'] = [];
  let attempts: number | undefined;
  let coordinated: boolean | undefined;
  let rerecordOf: string | undefined;
  for (const t of transitions) {
    if (t.rerecordOf) rerecordOf = t.rerecordOf;
    if (t.channel) {
      const known = channels.get(t.channel.id);
      const outputs = t.channel.outputs ?? known?.outputs;
      channels.set(t.channel.id, { id: t.channel.id, ...(outputs !== undefined ? { outputs } : {}) });
    }
    if (t.gaps) gaps = t.gaps;
    if (t.attempts !== undefined) attempts = Math.max(attempts ?? 0, t.attempts);
    if (t.coordinated) coordinated = true;
  }
  const outcome = terminal ? outcomeOfTransition(terminal) : 'open';
  // a recording that began only after its window's end tells its start with the stop (no recording phase)
  const began = firstRecording ?? transitions.find((t) => t.startedAt !== undefined);
  const lateBy = began?.lateBy;
  const overrun = terminal?.overrun;
  const endedAt = transitions.filter((t) => t.endedAt !== undefined).at(-1)?.endedAt;
  const reason = terminal?.why;
  const clockOffset = transitions.filter((t) => t.clockOffset !== undefined).at(-1)?.clockOffset;
  const record: AsRunRecord = {
    slot,
    schedule: last.schedule,
    window: last.window,
    occurrence: last.occurrence,
    scheduled: last.scheduled,
    actual: {
      ...(began ? { start: began.startedAt ?? began.at } : {}),
      ...(end && began ? { end: endedAt ?? end.at } : {}),
    },
    ...(lateBy !== undefined ? { lateBy } : {}),
    ...(overrun ? { overrunBy: overrun.by } : {}),
    ...(clockOffset !== undefined ? { clockOffset } : {}),
    channels: [...channels.values()],
    gaps,
    interruptions: transitions.filter((t) => t.to === 'interrupted').length,
    ...(attempts !== undefined ? { attempts } : {}),
    ...(job ? { job } : {}),
    outcome,
    phase: terminal?.to ?? last.to,
    ...(reason ? { reason } : {}),
    ...(coordinated ? { coordinated } : {}),
    ...(rerecordOf ? { rerecordOf } : {}),
  };
  const discrepancy = discrepancyOf(record, transitions);
  if (discrepancy) record.discrepancy = discrepancy;
  return record;
}

/** Every way the slot differs from what was scheduled, in words. */
function discrepancyOf(r: AsRunRecord, transitions: SlotTransition[]): string | undefined {
  const parts: string[] = [];
  const terminal = transitions.filter((t) => isTerminalPhase(t.to)).at(-1);
  if (r.outcome !== 'recorded' && r.outcome !== 'open' && r.outcome !== 'overran')
    parts.push(r.reason ? `${r.outcome}: ${r.reason}` : r.outcome);
  const revived = transitions.find((t) => t.revived === true);
  if (revived) parts.push(revived.why ?? 'started after a channel freed up');
  if (r.lateBy !== undefined && isLate(r.lateBy)) parts.push(lateSentence(r.lateBy));
  if (terminal?.overrun) parts.push(overrunSentence(terminal.overrun));
  if (r.clockOffset !== undefined) parts.push(skewSentence(r.clockOffset));
  if (r.interruptions > 0) {
    const whys = transitions.filter((t) => t.to === 'interrupted' && t.why).map((t) => t.why);
    parts.push(
      `interrupted ${r.interruptions} time${r.interruptions === 1 ? '' : 's'}${whys.length ? ` (${whys.join('; ')})` : ''}`,
    );
  }
  if (r.gaps.length > 0 && r.outcome !== 'partial') parts.push(`${r.gaps.length} gap${r.gaps.length === 1 ? '' : 's'}`);
  if (r.job && r.job.state !== 'succeeded') parts.push(`follow-up job ${r.job.id} ${r.job.state}`);
  return parts.length > 0 ? parts.join('; ') : undefined;
}

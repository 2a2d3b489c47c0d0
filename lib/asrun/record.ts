import type { SlotJobOutcome, SlotPhase, SlotTransition } from '../schedule/slot-events';

/** How a slot ended, as the as-run log reports it; `open` while it has not ended. */
export type AsRunOutcome = 'recorded' | 'partial' | 'missed' | 'skipped' | 'cancelled' | 'open';
export const AS_RUN_OUTCOMES: readonly AsRunOutcome[] = [
  'recorded',
  'partial',
  'missed',
  'skipped',
  'cancelled',
  'open',
];

const OUTCOME_OF: Partial<Record<SlotPhase, AsRunOutcome>> = {
  finished: 'recorded',
  partial: 'partial',
  missed: 'missed',
  skipped: 'skipped',
  cancelled: 'cancelled',
};

export function isTerminalPhase(phase: SlotPhase): boolean {
  return OUTCOME_OF[phase] !== undefined;
}

export function outcomeOfPhase(phase: SlotPhase): AsRunOutcome {
  return OUTCOME_OF[phase] ?? 'open';
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
  /** first recording, and the end of the recording (finishing, else the final phase) */
  actual: { start?: string; end?: string };
  /** seconds */
  lateBy?: number;
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
  /** why the slot differs from its schedule (missed, partial, late, interrupted, the follow-up failed); absent when it does not */
  discrepancy?: string;
}

/** Lateness below this is a slot on time (the start is polled, not instant). */
const LATE_AFTER_S = 1;

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
 * gaps of a partial one), not a second ending.
 */
function untilFinal(transitions: SlotTransition[]): SlotTransition[] {
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
  for (const t of transitions) {
    if (t.channel) {
      const known = channels.get(t.channel.id);
      const outputs = t.channel.outputs ?? known?.outputs;
      channels.set(t.channel.id, { id: t.channel.id, ...(outputs !== undefined ? { outputs } : {}) });
    }
    if (t.gaps) gaps = t.gaps;
    if (t.attempts !== undefined) attempts = Math.max(attempts ?? 0, t.attempts);
    if (t.coordinated) coordinated = true;
  }
  const outcome = terminal ? outcomeOfPhase(terminal.to) : 'open';
  const lateBy = firstRecording?.lateBy;
  const reason = terminal?.why;
  const record: AsRunRecord = {
    slot,
    schedule: last.schedule,
    window: last.window,
    occurrence: last.occurrence,
    scheduled: last.scheduled,
    actual: {
      ...(firstRecording ? { start: firstRecording.at } : {}),
      ...(end && firstRecording ? { end: end.at } : {}),
    },
    ...(lateBy !== undefined ? { lateBy } : {}),
    channels: [...channels.values()],
    gaps,
    interruptions: transitions.filter((t) => t.to === 'interrupted').length,
    ...(attempts !== undefined ? { attempts } : {}),
    ...(job ? { job } : {}),
    outcome,
    phase: terminal?.to ?? last.to,
    ...(reason ? { reason } : {}),
    ...(coordinated ? { coordinated } : {}),
  };
  const discrepancy = discrepancyOf(record, transitions);
  if (discrepancy) record.discrepancy = discrepancy;
  return record;
}

/** Every way the slot differs from what was scheduled, in words. */
function discrepancyOf(r: AsRunRecord, transitions: SlotTransition[]): string | undefined {
  const parts: string[] = [];
  if (r.outcome !== 'recorded' && r.outcome !== 'open') parts.push(r.reason ? `${r.outcome}: ${r.reason}` : r.outcome);
  if (r.lateBy !== undefined && r.lateBy >= LATE_AFTER_S) parts.push(`started ${Math.round(r.lateBy)} s late`);
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

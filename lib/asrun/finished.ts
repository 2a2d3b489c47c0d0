import type { SlotTransition } from '../schedule/slot-events';
import { type AsRunEntry, type AsRunRecord, foldRecords, isTerminalPhase } from './record';

/**
 * The record of a slot that has just reached its final phase, folded from the
 * log's entries of that slot and the final transition itself (a write not yet
 * read back still counts). `repeated` when the log already held another final
 * transition of the slot: one published again after a restart, whose record
 * was sent when the first was.
 */
export function finishedRecord(
  entries: Iterable<AsRunEntry>,
  final: SlotTransition,
): {
  record: AsRunRecord;
  repeated: boolean;
} {
  const own: AsRunEntry[] = [];
  let repeated = false;
  for (const entry of entries) {
    if (entry.event.slot !== final.slot) continue;
    own.push(entry);
    if (entry.kind === 'slot' && isTerminalPhase(entry.event.to) && !sameTransition(entry.event, final)) {
      repeated = true;
    }
  }
  own.push({ kind: 'slot', event: final });
  const [record] = foldRecords(own);
  return { record, repeated };
}

function sameTransition(a: SlotTransition, b: SlotTransition): boolean {
  return a.at === b.at && a.from === b.from && a.to === b.to;
}

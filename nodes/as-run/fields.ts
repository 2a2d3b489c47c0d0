import { fieldTable, flag, textOrEmpty } from '../shared/fields';

/**
 * The as-run node's fields: which finished slots it sends. Each outcome is a
 * check box of its own (a new outcome added later starts unticked in flows
 * saved before it, rather than changing what an old flow sends).
 */
export const FIELDS = fieldTable({
  /** A schedule node's id or name; blank: every schedule. */
  schedule: { value: '', rule: textOrEmpty({ trim: true }) },
  recorded: { value: true, rule: flag(true) },
  overran: { value: true, rule: flag(true) },
  partial: { value: true, rule: flag(true) },
  missed: { value: true, rule: flag(true) },
  skipped: { value: true, rule: flag(true) },
  cancelled: { value: true, rule: flag(true) },
});

/** The outcomes a finished slot can have (lib/schedule/slot-outcome), each a field above. */
export const FINISHED_OUTCOMES = ['recorded', 'overran', 'partial', 'missed', 'skipped', 'cancelled'] as const;

import { WORKFLOW_STATUS_RULE, WORKFLOW_STATUSES } from '../../lib/rules';
import { fieldTable, flag, oneOf, optional, serverField } from '../shared/fields';
import { POLL_FIELDS } from '../shared/poll-fields';

/**
 * The watch-workflows node's fields; no message overrides them (an input
 * only polls now). The status setting is `statusFilter`: the editor keeps a
 * node's runtime status in `status`.
 */
export const FIELDS = fieldTable({
  server: serverField,
  statusFilter: {
    value: '',
    label: 'status',
    rule: optional(oneOf(WORKFLOW_STATUSES, `${WORKFLOW_STATUS_RULE} (or "" for all)`)),
  },
  /** The first poll's workflows sent as added. */
  emitInitial: { value: false, rule: flag(false) },
  ...POLL_FIELDS,
});

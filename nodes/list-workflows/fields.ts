import {
  MAX_RESULTS_MAX,
  MAX_RESULTS_MIN,
  MAX_RESULTS_RULE,
  WORKFLOW_STATUS_RULE,
  WORKFLOW_STATUSES,
} from '../../lib/rules';
import { fieldTable, oneOf, optional, otherwise, serverField, text, whole } from '../shared/fields';
import { MODES } from './modes';

/**
 * The list-workflows node's fields. The status setting is `statusFilter`: the
 * editor keeps a node's runtime status in `status`.
 */
export const FIELDS = fieldTable({
  server: serverField,
  statusFilter: {
    value: '',
    label: 'status',
    message: 'status',
    rule: optional(oneOf(WORKFLOW_STATUSES, `${WORKFLOW_STATUS_RULE} (or "" for all)`)),
  },
  maxResults: {
    value: '',
    message: 'max_results',
    rule: optional(whole(MAX_RESULTS_MIN, MAX_RESULTS_MAX, MAX_RESULTS_RULE), { empty: 'refused' }),
  },
  // a select: a value it no longer offers reads as its first
  mode: { value: MODES[0], rule: otherwise(oneOf(MODES), MODES[0]) },
  pageToken: { message: 'page_token', rule: optional(text(), { null: 'unset' }) },
});

import { fieldTable, optional, serverField, text, textOrEmpty } from '../shared/fields';
import { POLL_FIELDS, timeoutField } from '../shared/poll-fields';

/** A workflow named by a message: its id or name as text (a number as its digits); null or '' names none. */
const workflowInput = optional(text({ trim: true, numbers: true }), { null: 'unset' });

/**
 * The wait-workflow node's fields. The workflow to wait for comes from
 * msg.workflow_id (id or name), else msg.workflow_name, else the Workflow
 * setting: two message inputs and a setting, picked in that order.
 */
export const FIELDS = fieldTable({
  server: serverField,
  workflow: { value: '', rule: textOrEmpty({ trim: true }) },
  workflowId: { message: 'workflow_id', rule: workflowInput },
  workflowName: { message: 'workflow_name', rule: workflowInput },
  ...POLL_FIELDS,
  timeout: timeoutField,
});

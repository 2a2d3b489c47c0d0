import { DEFAULT_CONCURRENCY } from '../../lib/rules';
import { anything, coordinationField, fieldTable, optional, rule, serverField, text, whole } from '../shared/fields';
import { POLL_FIELDS, timeoutField } from '../shared/poll-fields';

const jobIdText = text({ numbers: true });

/**
 * The follow-job node's fields. The job comes from the job on msg.payload
 * (its id and workflow_id), else from msg.job_id and msg.workflow_id: the one
 * resolver's order, msg.payload.<x> before msg.<x>, as every node reads it.
 */
export const FIELDS = fieldTable({
  server: serverField,
  ...POLL_FIELDS,
  /** Requests in flight at most, over every followed job. */
  concurrency: { value: DEFAULT_CONCURRENCY, rule: optional(whole(1)) },
  coordination: coordinationField,
  // only a missing msg.payload.id leaves the job to msg.job_id, whose '' or null is a job id given, and a wrong one
  jobId: {
    message: 'job_id',
    payload: 'id',
    rule: rule<string | undefined>(jobIdText.text, (value) =>
      value === undefined ? { ok: true, value } : jobIdText.read(value),
    ),
  },
  // the library checks it (a UUID), naming workflow_id
  workflowId: { message: 'workflow_id', payload: 'workflow_id', rule: anything() },
  timeout: timeoutField,
});

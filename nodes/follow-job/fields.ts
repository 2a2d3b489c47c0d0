import { DEFAULT_CONCURRENCY } from '../../lib/rules';
import { anything, coordinationField, fieldTable, optional, rule, serverField, text, whole } from '../shared/fields';
import { POLL_FIELDS, timeoutField } from '../shared/poll-fields';

const jobIdText = text({ numbers: true });

/**
 * The follow-job node's fields. The job comes from msg.job_id and
 * msg.workflow_id, else from the job on msg.payload (job-message.ts).
 */
export const FIELDS = fieldTable({
  server: serverField,
  ...POLL_FIELDS,
  /** Requests in flight at most, over every followed job. */
  concurrency: { value: DEFAULT_CONCURRENCY, rule: optional(whole(1)) },
  coordination: coordinationField,
  // only a missing msg.job_id leaves the job to msg.payload: '' or null is a job id given, and a wrong one
  jobId: {
    message: 'job_id',
    rule: rule<string | undefined>(jobIdText.text, (value) =>
      value === undefined ? { ok: true, value } : jobIdText.read(value),
    ),
  },
  // the library checks it (a UUID), naming workflow_id
  workflowId: { message: 'workflow_id', rule: anything() },
  timeout: timeoutField,
});

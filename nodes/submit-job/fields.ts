import { isPlainObject } from '../../lib/guards';
import { UUID_PATTERN, UUID_RULE } from '../../lib/rules';
import {
  andThen,
  fieldTable,
  idempotencyKeyField,
  matching,
  optional,
  required,
  rule,
  serverField,
  textOrEmpty,
} from '../shared/fields';

const isUuid = (value: unknown): value is string => typeof value === 'string' && UUID_PATTERN.test(value);

/**
 * The submit-job node's fields. `jobInputs`, not `inputs`: the editor keeps a
 * node's input port count there. `workflowName` is only the label of a
 * workflow picked from the list. `jobName` is a template rendered per message;
 * msg.job_name, a name as it is, is its own input.
 */
export const FIELDS = fieldTable({
  server: serverField,
  workflowId: {
    value: '',
    message: 'workflow_id',
    types: ['str', 'msg', 'flow', 'global', 'env'],
    rule: andThen(required('choose a workflow in the node or set msg.workflow_id'), matching(isUuid, UUID_RULE)),
  },
  workflowName: { value: '', rule: textOrEmpty() },
  jobName: { value: '', rule: textOrEmpty({ trim: true }) },
  /** The node's inputs (short or full form); msg.payload is merged over them by the library. */
  jobInputs: {
    value: '',
    label: 'inputs',
    types: ['json', 'msg', 'flow', 'global', 'env'],
    rule: optional(matching(isPlainObject, 'must be an object in the short or the full form'), { null: 'unset' }),
  },
  /** msg.job_name: the job's name as it is, '' for none, over the template and the payload's. */
  givenJobName: {
    message: 'job_name',
    rule: rule('must be text', (value) =>
      value === undefined || typeof value === 'string'
        ? { ok: true, value: value as string | undefined }
        : { ok: false, rule: 'must be text' },
    ),
  },
  idempotencyKey: idempotencyKeyField,
});

import { z } from 'zod';
import { isPlainObject } from '../../lib/guards';
import { UUID_PATTERN, UUID_RULE } from '../../lib/rules';
import { emptyToUndefined, type InputMap, idempotencyKeyInput, required } from '../shared/inputs';

/**
 * `jobInputs`, not `inputs`: the editor keeps a node's input port count there.
 * `workflowName` is only the label of a workflow picked from the list.
 */
export const SubmitJobSettings = z.object({
  server: z.string().default(''),
  workflowId: z.unknown().optional(),
  workflowIdType: z.string().optional(),
  workflowName: z.string().optional(),
  jobName: z
    .string()
    .optional()
    .transform((v) => v?.trim() ?? ''),
  jobInputs: z.unknown().optional(),
  jobInputsType: z.string().optional(),
});
export type SubmitJobSettings = z.infer<typeof SubmitJobSettings>;

/** The node's inputs (short or full form); msg.payload is merged over them by the library. */
const baseInputs = z.preprocess(
  emptyToUndefined,
  z
    .custom<Record<string, unknown>>(isPlainObject, { error: 'must be an object in the short or the full form' })
    .optional(),
);

export const SUBMIT_INPUTS = {
  workflowId: {
    message: 'workflow_id',
    setting: 'workflowId',
    typeField: 'workflowIdType',
    schema: required('choose a workflow in the node or set msg.workflow_id').pipe(
      z.string({ error: UUID_RULE }).regex(UUID_PATTERN, { error: UUID_RULE }),
    ),
  },
  base: { setting: 'jobInputs', typeField: 'jobInputsType', defaultType: 'json', name: 'inputs', schema: baseInputs },
  jobName: {
    message: 'job_name',
    schema: z.string({ error: 'must be text' }).optional(),
  },
  idempotencyKey: idempotencyKeyInput,
} satisfies InputMap;

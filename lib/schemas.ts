import { z } from 'zod';
import {
  FRAME_RATES,
  type InputKind,
  JOB_STATES,
  NAME_MAX,
  TERMINAL_JOB_STATES,
  TYPECODES,
  UUID_PATTERN,
  UUID_RULE,
  WORKFLOW_STATUSES,
} from './rules';

// the rules themselves live in ./rules (browser-safe); re-exported here, where they always were
export { FRAME_RATES, TYPECODES, UUID_PATTERN, WORKFLOW_STATUSES };

/**
 * Schemas for every resource of the service description.
 *
 * Responses are read tolerantly: unknown fields are kept, and a one-element
 * list is unwrapped where the description declares a scalar (its samples wrap
 * scalars that way). Requests are validated strictly before anything is sent.
 */

const unwrapSingle = (value: unknown): unknown => (Array.isArray(value) && value.length === 1 ? value[0] : value);

/** A declared scalar that may arrive wrapped in a one-element list. */
const scalar = <T extends z.ZodType>(schema: T) => z.preprocess(unwrapSingle, schema);

const str = () => scalar(z.string());
const optStr = () => scalar(z.string()).optional();
const nullableStr = () => scalar(z.string().nullable()).optional();
const optBool = () => scalar(z.boolean()).optional();
const optNum = () => scalar(z.number()).optional();
const optInt = () => scalar(z.number().int()).optional();

export const uuid = () => z.string().regex(UUID_PATTERN, UUID_RULE);

export const WorkflowStatus = z.enum(WORKFLOW_STATUSES);
export type WorkflowStatus = z.infer<typeof WorkflowStatus>;

export { JOB_STATES, TERMINAL_JOB_STATES };
export const JobState = z.enum(JOB_STATES);
export type JobState = z.infer<typeof JobState>;

export const CHANNEL_STATES = [
  'DRAFT',
  'INACTIVE',
  'PENDING',
  'ACTIVE',
  'RECORDING',
  'FINISHING_RECORDING',
  'ERROR',
] as const;
export const ChannelState = z.enum(CHANNEL_STATES);
export type ChannelState = z.infer<typeof ChannelState>;

export const Typecode = z.enum(TYPECODES);
export type Typecode = z.infer<typeof Typecode>;

// ---------------------------------------------------------------- workflow area

export const Workflow = z.looseObject({
  name: optStr(),
  description: optStr(),
  id: str(),
  created_at: optStr(),
  updated_at: optStr(),
  status: scalar(z.string()).optional(),
});
export type Workflow = z.infer<typeof Workflow>;

export const WorkflowList = z.looseObject({
  workflows: z.preprocess((v) => (v == null ? [] : v), z.array(Workflow)),
  next_page_token: nullableStr(),
});
export type WorkflowList = z.infer<typeof WorkflowList>;

export const WorkflowJob = z.looseObject({
  id: str(),
  name: optStr(),
  workflow_id: optStr(),
  workflow_name: optStr(),
  progress: optNum(),
  state: optStr(),
  workflow_version: optStr(),
  created_at: optStr(),
  updated_at: optStr(),
  elapsed_time: nullableStr(),
});
export type WorkflowJob = z.infer<typeof WorkflowJob>;

// Inputs of a submission. Response copies (the workflow definition as the
// service reports it) are read tolerantly; the request forms are strict.

export const WorkflowVariable = z.looseObject({
  identifier: optStr(),
  name: str(),
  typecode: str(),
  default: nullableStr(),
  value: nullableStr(),
});
export type WorkflowVariable = z.infer<typeof WorkflowVariable>;

export const WorkflowParameter = z.looseObject({
  identifier: optStr(),
  name: str(),
  typecode: str(),
  default_value: nullableStr(),
  value: nullableStr(),
  description: nullableStr(),
  minimum_value: nullableStr(),
  maximum_value: nullableStr(),
  increment_value: nullableStr(),
  options: z.record(z.string(), z.array(z.string())).nullable().optional(),
});
export type WorkflowParameter = z.infer<typeof WorkflowParameter>;

export const WorkflowNickName = z.looseObject({
  name: optStr(),
  description: nullableStr(),
  identifier: optStr(),
  files: z.array(z.string()).nullable().optional(),
  data: nullableStr(),
  datafilename: nullableStr(),
  binary_mode: optBool(),
});
export type WorkflowNickName = z.infer<typeof WorkflowNickName>;

export const WorkflowAttachment = z.looseObject({
  name: optStr(),
  description: nullableStr(),
  identifier: optStr(),
  file: nullableStr(),
});
export type WorkflowAttachment = z.infer<typeof WorkflowAttachment>;

export const WorkflowLabel = z.looseObject({
  name: optStr(),
  description: nullableStr(),
  identifier: optStr(),
  parameters: z.array(WorkflowParameter).nullable().optional(),
});
export type WorkflowLabel = z.infer<typeof WorkflowLabel>;

const requestString = z.string();

export const VariableInput = z.strictObject({
  identifier: uuid().optional(),
  name: requestString.min(1, 'name is required'),
  typecode: Typecode,
  default: z.string().optional(),
  value: z.string().optional(),
});
export type VariableInput = z.infer<typeof VariableInput>;

export const ParameterInput = z.strictObject({
  identifier: uuid().optional(),
  name: requestString.min(1, 'name is required'),
  typecode: Typecode,
  default_value: z.string().optional(),
  value: z.string().optional(),
  description: z.string().optional(),
  minimum_value: z.string().optional(),
  maximum_value: z.string().optional(),
  increment_value: z.string().optional(),
  options: z.record(z.string(), z.array(z.string())).optional(),
});
export type ParameterInput = z.infer<typeof ParameterInput>;

const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/][AQgw]==|[A-Za-z0-9+/]{2}[AEIMQUYcgkosw048]=)?$/;

/**
 * Base64 as RFC 4648 section 4 defines it: the standard alphabet, a length that is a
 * multiple of 4, padding only at the end and only as much as the last group needs, and
 * zero pad bits (so each text has exactly one decoding). No line breaks, no URL-safe
 * alphabet. The empty text (an empty file) is valid.
 */
export function checkBase64(value: string): string | null {
  if (BASE64.test(value)) return null;
  if (/[^A-Za-z0-9+/=]/.test(value)) return 'must be base64 text (RFC 4648: A-Z a-z 0-9 + / and = padding only)';
  if (value.length % 4 !== 0) return `must be base64 text: its length (${value.length}) is not a multiple of 4`;
  return 'must be base64 text: padding (=) only at the end, as the last group needs, with zero pad bits';
}

export const NickNameInput = z.strictObject({
  name: z.string().optional(),
  description: z.string().optional(),
  identifier: z.string().min(1, 'identifier is required'),
  files: z.array(z.string()).optional(),
  data: z
    .string()
    .superRefine((value, ctx) => {
      const problem = checkBase64(value);
      if (problem) ctx.addIssue({ code: 'custom', message: problem });
    })
    .optional(),
  datafilename: z.string().optional(),
  binary_mode: z.boolean().optional(),
});
export type NickNameInput = z.infer<typeof NickNameInput>;

export const AttachmentInput = z.strictObject({
  name: z.string().optional(),
  description: z.string().optional(),
  identifier: z.string().min(1, 'identifier is required'),
  file: z.string().optional(),
});
export type AttachmentInput = z.infer<typeof AttachmentInput>;

export const LabelInput = z.strictObject({
  name: z.string().optional(),
  description: z.string().optional(),
  identifier: z.string().min(1, 'identifier is required'),
  parameters: z.array(ParameterInput).optional(),
});
export type LabelInput = z.infer<typeof LabelInput>;

export const WorkflowJobInput = z.strictObject({
  input: z
    .strictObject({
      variables: z.array(VariableInput).optional(),
      media_nicknames: z.array(NickNameInput).optional(),
      attachments: z.array(AttachmentInput).optional(),
      labels: z.array(LabelInput).optional(),
    } satisfies Record<InputKind, z.ZodType>)
    .optional(),
});
export type WorkflowJobInput = z.infer<typeof WorkflowJobInput>;

export const SubmitJobRequest = z.strictObject({
  job_name: z
    .string()
    .min(1, 'job_name must not be empty')
    .max(NAME_MAX, `job_name is longer than ${NAME_MAX}`)
    .optional(),
  usage: WorkflowJobInput.optional(),
});
export type SubmitJobRequest = z.infer<typeof SubmitJobRequest>;

/**
 * The inputs a workflow declares, as the simulator's admin API (and the
 * editor's form builder) describe them. Not part of the public description.
 */
export const WorkflowInputs = z.looseObject({
  variables: z.array(WorkflowVariable).optional(),
  media_nicknames: z.array(WorkflowNickName).optional(),
  attachments: z.array(WorkflowAttachment).optional(),
  labels: z.array(WorkflowLabel).optional(),
});
export type WorkflowInputs = z.infer<typeof WorkflowInputs>;

// ---------------------------------------------------------------- live capture

export const ChannelCreateRequest = z.strictObject({
  name: z.string().min(1, 'name must not be empty').max(NAME_MAX, `name is longer than ${NAME_MAX}`).optional(),
  description: z.string().optional(),
  source_id: uuid().optional(),
  expected_properties: z
    .string()
    .refine((s) => {
      try {
        JSON.parse(s);
        return true;
      } catch {
        return false;
      }
    }, 'must be a JSON string')
    .optional(),
  continuous_recording: z.boolean().optional(),
  recording_duration: z.number().int('must be a whole number of hours').min(1).max(8760).optional(),
  region: z.string().optional(),
  tags: z.array(z.string()).optional(),
});
export type ChannelCreateRequest = z.infer<typeof ChannelCreateRequest>;

export const RecordingOutput = z.looseObject({
  file_name: optStr(),
  location_url: optStr(),
  format: optStr(),
});
export type RecordingOutput = z.infer<typeof RecordingOutput>;

export const Recording = z.looseObject({
  id: optStr(),
  channel_id: optStr(),
  started_at: nullableStr(),
  ended_at: nullableStr(),
  outputs: z.array(RecordingOutput).nullable().optional(),
});
export type Recording = z.infer<typeof Recording>;

export const Channel = z.looseObject({
  id: str(),
  name: optStr(),
  description: nullableStr(),
  source_id: nullableStr(),
  continuous_recording: optBool(),
  expected_properties: nullableStr(),
  pinned: optBool(),
  activated_at: nullableStr(),
  auto_shutdown: scalar(
    z.looseObject({
      enabled: optBool(),
      no_recording_timeout: optInt(),
      no_stream_timeout: optInt(),
    }),
  )
    .nullable()
    .optional(),
  recording_duration: optInt(),
  recording: scalar(Recording).nullable().optional(),
  recording_settings: scalar(z.looseObject({ engine_version: nullableStr(), settings: nullableStr() }))
    .nullable()
    .optional(),
  recording_trigger: scalar(z.looseObject({ recording_trigger: optBool() }))
    .nullable()
    .optional(),
  region: nullableStr(),
  errors: z.array(z.string()).nullable().optional(),
  tags: z.array(z.string()).nullable().optional(),
  created_at: optStr(),
  updated_at: optStr(),
});
export type Channel = z.infer<typeof Channel>;

// ---------------------------------------------------------------- error shapes

export const ErrorResponseShape = z.looseObject({ code: z.number().int(), message: z.string() });
export const ErrorMessageShape = z.looseObject({ error_message: z.string() });
export const ValidationShape = z.looseObject({ errors: z.record(z.string(), z.string()) });
export const ProblemShape = z.looseObject({
  title: z.string().optional(),
  status: z.number().int().optional(),
  trace_id: z.string().optional(),
  type: z.string().optional(),
  detail: z.string().optional(),
  instance: z.string().optional(),
  errors: z
    .array(
      z.looseObject({ pointer: z.string().optional(), type: z.string().optional(), detail: z.string().optional() }),
    )
    .optional(),
});

/** Formats zod issues as `path: message` lines that name the offending field. */
export function describeIssues(error: z.ZodError, root = ''): Record<string, string> {
  // prototype-free: a field called "constructor", "toString" or "__proto__" is a field like any other
  const out: Record<string, string> = Object.create(null);
  for (const issue of error.issues) {
    const segments = [root, ...issue.path.map(String)].filter((p) => p !== '');
    if (issue.code === 'unrecognized_keys') {
      // name each unknown field in the path itself, not only in the message
      for (const key of issue.keys) {
        const path = [...segments, key].join('.');
        if (!Object.hasOwn(out, path)) out[path] = 'is not a known field';
      }
      continue;
    }
    const path = segments.join('.') || '(value)';
    if (!Object.hasOwn(out, path)) out[path] = issue.message;
  }
  return { ...out };
}

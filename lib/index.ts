/**
 * The typed library of `@media-spaces/node-red`: a client for the workflow and
 * live-capture areas of the service, its schemas, errors and typecode rules.
 * Usable without Node-RED. Everything public is listed here by name; modules
 * not named here (heaps, clocks, transports, helpers) are internals.
 */

export {
  type CallOptions,
  type ClientConfig,
  createClient,
  type ListWorkflowsOptions,
  MediaSpacesClient,
  type PostOptions,
  type SubmitJobOptions,
  WORKFLOW_PREFIXES,
  type WorkflowPrefix,
} from './client';
export {
  codeForStatus,
  ERROR_CODES,
  type ErrorCode,
  errorFromResponse,
  isErrorCode,
  isLibraryError,
  isMediaSpacesError,
  listFieldErrors,
  MediaSpacesBaseError,
  MediaSpacesError,
  type MediaSpacesErrorInit,
  REDACTED,
  redactSecrets,
} from './errors';
export {
  AUTHORIZATION_PATH,
  type AuthorizationRequest,
  authorizationUrl,
  type ImplicitGrant,
  readTokenFragment,
} from './oauth';
/** Recording schedules: YAML windows, cron in IANA time zones, the durable scheduler. */
export * as schedule from './public/schedule';
/** Polling: following jobs, waiting for workflows, watching the workflow list. */
export * as watch from './public/watch';
export { type RequestEvent, requestEvents } from './request-events';
export { DEFAULT_RETRY_POLICY, RETRYABLE_STATUSES, type RetryPolicy } from './retry';
export {
  FRAME_RATES,
  isIdempotencyKey,
  isLoopback,
  isMaxResults,
  isWorkflowStatus,
  MAX_RESULTS_MAX,
  MAX_RESULTS_MIN,
  TYPECODES,
  UUID_PATTERN,
  WORKFLOW_STATUSES,
} from './rules';
export {
  AttachmentInput,
  CHANNEL_STATES,
  Channel,
  ChannelCreateRequest,
  ChannelState,
  checkBase64,
  describeIssues,
  JOB_STATES,
  JobState,
  LabelInput,
  NickNameInput,
  ParameterInput,
  Recording,
  RecordingOutput,
  SubmitJobRequest,
  TERMINAL_JOB_STATES,
  Typecode,
  uuid,
  VariableInput,
  Workflow,
  WorkflowAttachment,
  WorkflowInputs,
  WorkflowJob,
  WorkflowJobInput,
  WorkflowLabel,
  WorkflowList,
  WorkflowNickName,
  WorkflowParameter,
  WorkflowStatus,
  WorkflowVariable,
} from './schemas';
export { buildSubmitRequest, describeType, type ShortSubmitInput, type SubmitInput } from './submit-input';
export type { ApiResponse, RetryNotice } from './transport';
export {
  checkParameter,
  checkTypecode,
  checkUri,
  isTypecode,
  NUMERIC_TYPECODES,
  type ParameterConstraints,
  toWireValue,
} from './typecodes';

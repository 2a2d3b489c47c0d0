import { z } from 'zod';
import { Typecode, uuid, WORKFLOW_STATUSES } from '../schemas';

/**
 * The YAML fixture a simulator starts from. The input type (what a YAML file
 * or an inline test object may say) is `FixtureDocument`; defaults fill the
 * rest, so a test can describe a space in a few lines.
 */

export const API_KEY_SCOPES = ['workflow:access', 'workflow:workflow-management', 'workflow:admin'] as const;
export type ApiKeyScope = (typeof API_KEY_SCOPES)[number];

const JOB_OUTCOMES = ['succeeded', 'failed', 'stopped'] as const;

// YAML reads `default: 25` as a number and `default: true` as a boolean, while
// every value travels as text; accepting both keeps fixtures natural to write.
const text = z
  .union([z.string(), z.number(), z.boolean()], { error: 'must be text, a number or a boolean' })
  .transform((v) => String(v));

const dateTime = z
  .string()
  .refine((s) => Number.isFinite(Date.parse(s)), 'must be an ISO 8601 date-time')
  .transform((s) => new Date(s).toISOString());

// Fixtures are hand-written; unknown keys are almost always typos, so objects are strict.
const FixtureVariable = z.strictObject({
  identifier: uuid().optional(),
  name: z.string().min(1, 'name is required'),
  typecode: Typecode,
  default: text.optional(),
  description: z.string().optional(),
});

const FixtureParameter = z.strictObject({
  identifier: uuid().optional(),
  name: z.string().min(1, 'name is required'),
  typecode: Typecode,
  default_value: text.optional(),
  description: z.string().optional(),
  minimum_value: text.optional(),
  maximum_value: text.optional(),
  increment_value: text.optional(),
  options: z.record(z.string(), z.array(text)).optional(),
});

const FixtureNickName = z.strictObject({
  name: z.string().min(1, 'name is required'),
  description: z.string().default(''),
  identifier: z.string().min(1, 'identifier is required'),
  files: z.array(z.string()).default([]),
});

const FixtureAttachment = z.strictObject({
  name: z.string().min(1, 'name is required'),
  description: z.string().default(''),
  identifier: z.string().min(1, 'identifier is required'),
  file: z.string().optional(),
});

const FixtureLabel = z.strictObject({
  name: z.string().min(1, 'name is required'),
  description: z.string().default(''),
  identifier: z.string().min(1, 'identifier is required'),
  parameters: z.array(FixtureParameter).default([]),
});

const FixtureInputs = z.strictObject({
  variables: z.array(FixtureVariable).default([]),
  media_nicknames: z.array(FixtureNickName).default([]),
  attachments: z.array(FixtureAttachment).default([]),
  labels: z.array(FixtureLabel).default([]),
});

const DEFAULT_WORKFLOW_DATE = '2024-01-02T09:00:00.000Z';
const DEFAULT_JOB_DURATION_MS = 10_000;
const WEEK_MS = 7 * 24 * 3_600_000;

const FixtureWorkflow = z.strictObject({
  id: uuid(),
  name: z.string().min(1, 'name is required'),
  description: z.string().default(''),
  status: z.enum(WORKFLOW_STATUSES).default('active'),
  created_at: dateTime.default(DEFAULT_WORKFLOW_DATE),
  /** Defaults to created_at. */
  updated_at: dateTime.optional(),
  /** Reported as the job's workflow_version. */
  version: text.default('1'),
  inputs: FixtureInputs.default({ variables: [], media_nicknames: [], attachments: [], labels: [] }),
  // Simulator-only behaviour of jobs submitted to this workflow.
  job_duration_ms: z.number().int().min(0).max(WEEK_MS).default(DEFAULT_JOB_DURATION_MS),
  outcome: z.enum(JOB_OUTCOMES).default('succeeded'),
});

const FixtureGenerate = z.strictObject({
  count: z.number().int().min(0).max(200_000),
  seed: z.number().int().default(1),
  job_duration_ms: z.number().int().min(0).max(WEEK_MS).default(DEFAULT_JOB_DURATION_MS),
});

const FixtureApiKey = z.strictObject({
  // A bearer credential cannot contain spaces; printable ASCII keeps it header-safe.
  key: z
    .string()
    .min(1)
    .max(512)
    .regex(/^[\x21-\x7e]+$/, 'must be printable ASCII without spaces'),
  scope: z.enum(API_KEY_SCOPES),
});

const FixtureSpace = z.strictObject({
  space_id: uuid(),
  name: z.string().default(''),
  subscription: z.enum(['active', 'inactive']).default('active'),
  api_keys: z.array(FixtureApiKey).default([]),
  access_tokens: z
    .array(
      z
        .string()
        .min(1)
        .max(4096)
        .regex(/^[\x21-\x7e]+$/, 'must be printable ASCII without spaces'),
    )
    .default([]),
  workflows: z.array(FixtureWorkflow).default([]),
  generate: FixtureGenerate.optional(),
});

/**
 * A person who can sign in on the simulator's OAuth 2.0 authorization page
 * (`/auth/oauth2`, the implicit flow the description declares for the workflow
 * area) and the scopes they may grant, per space. A scope implies the lower
 * ones, as for API keys.
 */
const FixtureUser = z.strictObject({
  username: z
    .string()
    .min(1, 'username is required')
    .max(128)
    .regex(/^[\x21-\x7e]+$/, 'must be printable ASCII without spaces'),
  password: z.string().min(1, 'password is required').max(256),
  spaces: z
    .array(
      z.strictObject({
        space_id: uuid(),
        scopes: z.array(z.enum(API_KEY_SCOPES)).min(1, 'list at least one scope'),
      }),
    )
    .min(1, 'a user needs at least one space'),
});

const DEFAULT_TOKEN_LIFETIME_SECONDS = 3600;

const FixtureOAuth = z.strictObject({
  /** expires_in of the tokens issued; measured on the simulator clock. */
  token_lifetime_seconds: z.number().int().min(1).max(31_536_000).default(DEFAULT_TOKEN_LIFETIME_SECONDS),
  /** Hosts, besides loopback ones, that a redirect_uri may point to (e.g. the host of a Node-RED editor). */
  redirect_hosts: z.array(z.string().min(1).max(253)).default([]),
});

export const FixtureSchema = z.strictObject({
  spaces: z.array(FixtureSpace).min(1, 'a fixture needs at least one space'),
  users: z.array(FixtureUser).default([]),
  oauth: FixtureOAuth.default({ token_lifetime_seconds: DEFAULT_TOKEN_LIFETIME_SECONDS, redirect_hosts: [] }),
});

/** What a fixture file or inline object may contain. */
export type FixtureDocument = z.input<typeof FixtureSchema>;
export type FixtureSpaceInput = z.input<typeof FixtureSpace>;
export type FixtureWorkflowInput = z.input<typeof FixtureWorkflow>;

export type FixtureWorkflowDef = z.output<typeof FixtureWorkflow>;
export type FixtureInputsDef = z.output<typeof FixtureInputs>;
export type FixtureVariableDef = z.output<typeof FixtureVariable>;
export type FixtureParameterDef = z.output<typeof FixtureParameter>;
export type FixtureNickNameDef = z.output<typeof FixtureNickName>;
export type FixtureAttachmentDef = z.output<typeof FixtureAttachment>;
export type FixtureLabelDef = z.output<typeof FixtureLabel>;
export type FixtureUserDef = z.output<typeof FixtureUser>;
type FixtureOAuthDef = z.output<typeof FixtureOAuth>;

/** A space after validation, with generated workflows expanded. */
export interface FixtureSpaceDef extends Omit<z.output<typeof FixtureSpace>, 'generate'> {
  workflows: FixtureWorkflowDef[];
}
export interface Fixture {
  source: string;
  spaces: FixtureSpaceDef[];
  users: FixtureUserDef[];
  oauth: FixtureOAuthDef;
}

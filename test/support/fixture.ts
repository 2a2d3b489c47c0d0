import type { FixtureDocument, FixtureWorkflowInput } from '../../lib/simulator/fixture-schema';

/**
 * Inline simulator fixtures for the library's integration tests: one space
 * with a workflow of every status and workflows needing each kind of input,
 * a space with an inactive subscription, and a space of generated workflows
 * for pagination. Ids and credentials are constants so tests can name them.
 */

export const SPACE = '11111111-1111-4111-8111-111111111111';
export const INACTIVE_SPACE = '22222222-2222-4222-8222-222222222222';
export const BIG_SPACE = '33333333-3333-4333-8333-333333333333';
/** A well-formed space id the fixture does not know. */
export const UNKNOWN_SPACE = '44444444-4444-4444-8444-444444444444';

export const KEYS = {
  admin: 'key-admin-main',
  management: 'key-management-abc',
  access: 'key-access-only-xyz',
  inactive: 'key-inactive-space',
  big: 'key-big-space',
} as const;

export const TOKENS = {
  main: 'token-live-capture-main',
  inactive: 'token-live-capture-inactive',
  big: 'token-live-capture-big',
} as const;

/** People who can sign in on the simulator's OAuth page (/auth/oauth2). */
export const USERS = {
  editor: { username: 'editor', password: 'editor-password' },
  viewer: { username: 'viewer', password: 'viewer-password' },
} as const;

/** expires_in of the tokens the test simulator issues. */
export const TOKEN_LIFETIME_S = 600;

export const WF = {
  /** Active, no inputs; jobs take 10 s and succeed. */
  simple: 'a0000000-0000-4000-8000-000000000001',
  /** Active, needs a variable, a nickname, an attachment and a label with a parameter. */
  inputs: 'a0000000-0000-4000-8000-000000000002',
  /** Active, jobs fail after 2 s. */
  fails: 'a0000000-0000-4000-8000-000000000003',
  idle: 'a0000000-0000-4000-8000-000000000004',
  archived: 'a0000000-0000-4000-8000-000000000005',
  deleted: 'a0000000-0000-4000-8000-000000000006',
  /** A well-formed workflow id the fixture does not know. */
  unknown: 'a0000000-0000-4000-8000-0000000000ff',
} as const;

export const SIMPLE_JOB_MS = 10_000;

export const BIG_COUNT = 1_050;

const workflows: FixtureWorkflowInput[] = [
  {
    id: WF.simple,
    name: 'Simple transcode',
    description: 'needs no inputs',
    status: 'active',
    version: '3',
    job_duration_ms: SIMPLE_JOB_MS,
    outcome: 'succeeded',
  },
  {
    id: WF.inputs,
    name: 'Ingest with inputs',
    description: 'needs every kind of input',
    status: 'active',
    inputs: {
      variables: [
        { name: 'Start', typecode: 'TimeCode' },
        { name: 'Priority', typecode: 'Byte', default: '5' },
      ],
      media_nicknames: [{ name: 'Source', identifier: 'src' }],
      attachments: [{ name: 'Subtitles', identifier: 'subs' }],
      labels: [
        {
          name: 'QC',
          identifier: 'qc',
          parameters: [{ name: 'Level', typecode: 'Int32', minimum_value: '0', maximum_value: '10' }],
        },
      ],
    },
  },
  { id: WF.fails, name: 'Flaky QC', status: 'active', job_duration_ms: 2_000, outcome: 'failed' },
  { id: WF.idle, name: 'Idle workflow', status: 'idle' },
  { id: WF.archived, name: 'Archived workflow', status: 'archived' },
  { id: WF.deleted, name: 'Deleted workflow', status: 'deleted' },
];

/** The test fixture; the space of generated workflows only when `big` is set (it costs a little to build). */
export function libraryFixture(options: { big?: boolean } = {}): FixtureDocument {
  const spaces: FixtureDocument['spaces'] = [
    {
      space_id: SPACE,
      name: 'Main',
      api_keys: [
        { key: KEYS.admin, scope: 'workflow:admin' },
        { key: KEYS.management, scope: 'workflow:workflow-management' },
        { key: KEYS.access, scope: 'workflow:access' },
      ],
      access_tokens: [TOKENS.main],
      workflows,
    },
    {
      space_id: INACTIVE_SPACE,
      subscription: 'inactive',
      api_keys: [{ key: KEYS.inactive, scope: 'workflow:admin' }],
      access_tokens: [TOKENS.inactive],
      workflows: [{ id: 'b0000000-0000-4000-8000-000000000001', name: 'Unreachable' }],
    },
  ];
  if (options.big) {
    spaces.push({
      space_id: BIG_SPACE,
      api_keys: [{ key: KEYS.big, scope: 'workflow:admin' }],
      access_tokens: [TOKENS.big],
      generate: { count: BIG_COUNT, seed: 7 },
    });
  }
  return {
    spaces,
    users: [
      {
        ...USERS.editor,
        spaces: [{ space_id: SPACE, scopes: ['workflow:workflow-management'] }],
      },
      { ...USERS.viewer, spaces: [{ space_id: SPACE, scopes: ['workflow:access'] }] },
    ],
    oauth: { token_lifetime_seconds: TOKEN_LIFETIME_S },
  };
}

/** The submission WF.inputs accepts, in the short form. */
export const VALID_SHORT_INPUTS = {
  variables: { Start: '01:00:00:00@25' },
  media_nicknames: { src: 's3://bucket/source.mxf' },
  attachments: { subs: 's3://bucket/subs.srt' },
  labels: { qc: { Level: 4 } },
};

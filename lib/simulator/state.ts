import type { WorkflowStatus } from '../schemas';
import type {
  ApiKeyScope,
  Fixture,
  FixtureAttachmentDef,
  FixtureLabelDef,
  FixtureNickNameDef,
  FixtureParameterDef,
  FixtureSpaceDef,
  FixtureUserDef,
  FixtureVariableDef,
  FixtureWorkflowDef,
} from './fixture-schema';
import { CHANNEL_RECORDING_AFTER_MS } from './warm-up';

/** A workflow with everything a request needs precomputed once at start. */
/**
 * How an injected channel failure ends a recording (channel-failures.ts arms them; kept here with the channel
 * record so that the channel modules and the failures do not import each other).
 * `error`: the channel goes to ERROR, its recording cut off (ended_at set, `errors` says why).
 * `end`: the recording ends by itself, as a stop would end it (FINISHING_RECORDING, then INACTIVE).
 */
export const CHANNEL_FAILURE_OUTCOMES = ['error', 'end'] as const;
export type ChannelFailureOutcome = (typeof CHANNEL_FAILURE_OUTCOMES)[number];

/** What a failed (or about to fail) channel carries. */
export interface ChannelFailure {
  readonly id: string;
  /** Simulated time the recording is cut. */
  readonly at: number;
  readonly outcome: ChannelFailureOutcome;
  readonly message: string;
}

export interface WorkflowRecord {
  readonly def: FixtureWorkflowDef;
  /** The list entry, serialised once: listing is the benchmarks' hot path. */
  readonly listJson: string;
  /** The workflow plus its declared inputs (the GET-workflow extension). */
  readonly detailJson: string;
  readonly variables: ReadonlyMap<string, FixtureVariableDef>;
  readonly nicknames: ReadonlyMap<string, FixtureNickNameDef>;
  readonly attachments: ReadonlyMap<string, FixtureAttachmentDef>;
  readonly labels: ReadonlyMap<string, { def: FixtureLabelDef; parameters: ReadonlyMap<string, FixtureParameterDef> }>;
}

export interface JobRecord {
  readonly id: string;
  readonly name: string;
  readonly workflow: WorkflowRecord;
  readonly createdAt: number;
  /** The submitted usage.input, kept so tests and demos can see what a job was given. */
  readonly input?: unknown;
}

export interface ChannelRecord {
  readonly id: string;
  readonly spaceId: string;
  readonly name: string;
  readonly description: string;
  readonly sourceId: string | null;
  readonly expectedProperties: string | null;
  readonly continuousRecording: boolean;
  /** As requested; null when the request gave none (a continuous recording then keeps 1 hour). */
  readonly recordingDurationHours: number | null;
  readonly region: string;
  readonly tags: string[];
  readonly createdAt: number;
  /** how long after its creation the channel begins to record (the warm-up when it was created) */
  readonly recordingAfterMs: number;
  readonly recordingId: string;
  /** Set by the stop extension, the only thing that ends a recording short of an injected failure. */
  stoppedAt: number | null;
  /** An injected failure (admin API), which cuts the recording unless a stop came first. */
  failure: ChannelFailure | null;
}

interface EventRecord {
  readonly id: string;
  readonly spaceId: string;
  readonly channelId: string;
  readonly recordingId: string;
  readonly kind: 'recording_started' | 'marker';
  readonly name: string;
  /** Events are allocated with their channel but exist only once the recording has started. */
  readonly occursAt: number;
}

type WorkflowOrder = Record<'all' | WorkflowStatus, WorkflowRecord[]>;

export interface SpaceRuntime {
  readonly id: string;
  readonly name: string;
  readonly subscription: 'active' | 'inactive';
  readonly apiKeys: ReadonlyArray<{ key: string; scope: ApiKeyScope }>;
  readonly accessTokens: readonly string[];
  readonly workflows: ReadonlyMap<string, WorkflowRecord>;
  /** Fixture order, split by status once, so a page is a slice. */
  readonly ordered: WorkflowOrder;
  readonly jobs: Map<string, JobRecord>;
  readonly channels: Map<string, ChannelRecord>;
  readonly events: Map<string, EventRecord>;
}

interface Credential {
  readonly space: SpaceRuntime;
  readonly scope: ApiKeyScope;
}

/** A token issued by the OAuth 2.0 implicit flow at /auth/oauth2. */
interface IssuedToken extends Credential {
  /** Every scope granted, as the redirect's `scope` listed them; `scope` is the highest. */
  readonly scopes: readonly ApiKeyScope[];
  readonly username: string;
  /** Simulated time (ms) from which the token is refused as expired. */
  readonly expiresAt: number;
}

/** Everything the simulator knows; workflows are fixed, jobs/channels/events change. */
export class SimulatorState {
  readonly spaces = new Map<string, SpaceRuntime>();
  readonly spaceList: SpaceRuntime[] = [];
  readonly apiKeys = new Map<string, Credential>();
  readonly accessTokens = new Map<string, SpaceRuntime>();
  /** Issued by the implicit flow; they go with a reset, like everything created since the start. */
  readonly issuedTokens = new Map<string, IssuedToken>();
  readonly users: ReadonlyMap<string, FixtureUserDef>;
  /** how long a channel created from now on warms up before it records (admin API: `/__admin/warm-up`) */
  warmUpMs = CHANNEL_RECORDING_AFTER_MS;

  constructor(readonly fixture: Fixture) {
    this.users = new Map(fixture.users.map((u) => [u.username, u]));
    for (const def of fixture.spaces) {
      const space = buildSpace(def);
      this.spaces.set(space.id, space);
      this.spaceList.push(space);
      for (const k of def.api_keys) this.apiKeys.set(k.key, { space, scope: k.scope });
      for (const t of def.access_tokens) this.accessTokens.set(t, space);
    }
  }

  /** Back to the fixture: the fixed part stays, everything created since goes. */
  reset(): void {
    this.issuedTokens.clear();
    this.warmUpMs = CHANNEL_RECORDING_AFTER_MS;
    for (const space of this.spaceList) {
      space.jobs.clear();
      space.channels.clear();
      space.events.clear();
    }
  }

  counts(now: number): { jobs: number; channels: number; events: number } {
    let jobs = 0;
    let channels = 0;
    let events = 0;
    for (const space of this.spaceList) {
      jobs += space.jobs.size;
      channels += space.channels.size;
      for (const e of space.events.values()) if (e.occursAt <= now) events++;
    }
    return { jobs, channels, events };
  }
}

function buildSpace(def: FixtureSpaceDef): SpaceRuntime {
  const workflows = new Map<string, WorkflowRecord>();
  const ordered: WorkflowOrder = { all: [], active: [], archived: [], deleted: [], idle: [] };
  for (const w of def.workflows) {
    const record = buildWorkflow(w);
    workflows.set(w.id.toLowerCase(), record);
    ordered.all.push(record);
    ordered[w.status].push(record);
  }
  return {
    id: def.space_id,
    name: def.name,
    subscription: def.subscription,
    apiKeys: def.api_keys,
    accessTokens: def.access_tokens,
    workflows,
    ordered,
    jobs: new Map(),
    channels: new Map(),
    events: new Map(),
  };
}

function buildWorkflow(def: FixtureWorkflowDef): WorkflowRecord {
  const entry = {
    name: def.name,
    description: def.description,
    id: def.id,
    created_at: def.created_at,
    updated_at: def.updated_at ?? def.created_at,
    status: def.status,
  };
  const detail = { ...entry, version: def.version, inputs: def.inputs };
  return {
    def,
    listJson: JSON.stringify(entry),
    detailJson: JSON.stringify(detail),
    variables: new Map(def.inputs.variables.map((v) => [v.name, v])),
    nicknames: new Map(def.inputs.media_nicknames.map((n) => [n.identifier, n])),
    attachments: new Map(def.inputs.attachments.map((a) => [a.identifier, a])),
    labels: new Map(
      def.inputs.labels.map((l) => [
        l.identifier,
        { def: l, parameters: new Map(l.parameters.map((p) => [p.name, p])) },
      ]),
    ),
  };
}

/**
 * The reference simulator of the Media Spaces service: a stateful local HTTP
 * server implementing the four described operations (plus polling and stop
 * extensions), seeded from a YAML fixture, with an admin API for faults,
 * the clock and the request log.
 */

export type { ChannelFailureOutcome, ChannelFailureSpecInput } from './channel-failures';
export type { Fault, FaultKind, FaultSpecInput } from './faults';
export {
  DEMO_FIXTURE_PATH,
  FixtureError,
  type FixtureIssue,
  loadFixture,
  loadFixtureFile,
  parseFixture,
} from './fixture';
export {
  credentialsFor,
  fixtureDocument,
  fixtureSpace,
  fixtureWorkflow,
  spaceIdFor,
  workflowIdFor,
} from './fixture-builders';
export {
  API_KEY_SCOPES,
  type ApiKeyScope,
  type Fixture,
  type FixtureDocument,
  type FixtureSpaceInput,
  type FixtureWorkflowInput,
} from './fixture-schema';
export type { RequestLogEntry } from './request-log';
export type { RouteName } from './router';
export {
  type Simulator,
  type SimulatorInfo,
  type SimulatorOptions,
  type SpaceInfo,
  startSimulator,
} from './simulator';
export { formatTimeSpan } from './timespan';

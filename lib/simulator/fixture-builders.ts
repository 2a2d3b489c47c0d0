import type { FixtureDocument, FixtureSpaceInput, FixtureWorkflowInput } from './fixture-schema';
import { uuidForName } from './prng';

/**
 * Helpers for inline fixtures in tests: ids derive from names, so a test can
 * recompute them instead of copying UUIDs around, and credentials follow a
 * readable pattern: `${prefix}-admin-key`, `${prefix}-management-key`,
 * `${prefix}-access-key` and `${prefix}-live-token`.
 */

export const spaceIdFor = (prefix: string): string => uuidForName(`space:${prefix}`);
export const workflowIdFor = (name: string): string => uuidForName(`workflow:${name}`);

export function credentialsFor(prefix: string) {
  return {
    admin: `${prefix}-admin-key`,
    management: `${prefix}-management-key`,
    access: `${prefix}-access-key`,
    token: `${prefix}-live-token`,
  };
}

export function fixtureSpace(prefix: string, overrides: Partial<FixtureSpaceInput> = {}): FixtureSpaceInput {
  const c = credentialsFor(prefix);
  return {
    space_id: spaceIdFor(prefix),
    name: prefix,
    api_keys: [
      { key: c.admin, scope: 'workflow:admin' },
      { key: c.management, scope: 'workflow:workflow-management' },
      { key: c.access, scope: 'workflow:access' },
    ],
    access_tokens: [c.token],
    ...overrides,
  };
}

export function fixtureWorkflow(name: string, overrides: Partial<FixtureWorkflowInput> = {}): FixtureWorkflowInput {
  return { id: workflowIdFor(name), name, ...overrides };
}

export const fixtureDocument = (...spaces: FixtureSpaceInput[]): FixtureDocument => ({ spaces });

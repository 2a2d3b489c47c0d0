import { UUID_PATTERN } from '../schemas';
import type { ApiKeyScope } from './fixture-schema';
import { fail, quote, type Reply } from './reply';
import type { Area } from './router';
import type { SimulatorState, SpaceRuntime } from './state';

export const SCOPE_RANK: Record<ApiKeyScope, number> = {
  'workflow:access': 1,
  'workflow:workflow-management': 2,
  'workflow:admin': 3,
};

const BEARER = /^Bearer[ \t]+(\S+)[ \t]*$/i;

/**
 * Decides whether a request may reach its operation. The order is fixed so
 * that every client sees the same answer for the same mistake:
 *   1. missing or unknown credential              -> 401
 *   2. space_id is not a UUID                     -> 400
 *   3. unknown space                              -> 404
 *   4. credential belongs to another space        -> 401
 *   5. key scope below the operation's need       -> 401 (admin > management > access)
 *   6. the space's subscription is inactive       -> 403
 * The credential comes first so that nothing about spaces (not even whether
 * one exists) is revealed to a caller without a valid key or token.
 * The workflow area takes API keys, live capture takes access tokens; live
 * capture has no scopes in the description, so any token of the space will do.
 * Tokens issued by the implicit flow (/auth/oauth2) are taken by both areas,
 * with their highest granted scope ranked like an API key's; once past their
 * lifetime (on the simulator clock) they get a 401 that says they expired, with
 * RFC 6750's `WWW-Authenticate: Bearer error="invalid_token"`.
 */
export function authorize(
  state: SimulatorState,
  area: Area,
  required: ApiKeyScope | undefined,
  authorization: string | undefined,
  rawSpaceId: string,
  now: number,
): { space: SpaceRuntime } | Reply {
  const kind = area === 'workflow' ? 'API key' : 'access token';
  if (!authorization) return fail(401, `missing Authorization header; send "Authorization: Bearer <${kind}>"`);
  const token = BEARER.exec(authorization)?.[1];
  if (!token) return fail(401, `the Authorization header must be "Bearer <${kind}>"`);

  let owner: SpaceRuntime | undefined;
  let scope: ApiKeyScope | undefined;
  const issued = state.issuedTokens.get(token);
  if (issued) {
    if (now >= issued.expiresAt) {
      return {
        ...fail(401, 'the access token has expired; sign in again to get a new one'),
        headers: {
          'www-authenticate': 'Bearer error="invalid_token", error_description="The access token expired"',
        },
      };
    }
    owner = issued.space;
    scope = area === 'workflow' ? issued.scope : undefined;
  } else if (area === 'workflow') {
    const cred = state.apiKeys.get(token);
    owner = cred?.space;
    scope = cred?.scope;
  } else {
    owner = state.accessTokens.get(token);
  }
  if (!owner) return fail(401, `unknown ${kind}`);

  if (!UUID_PATTERN.test(rawSpaceId)) {
    return fail(400, `space_id must be a UUID (8-4-4-4-12 hex digits), got ${quote(rawSpaceId)}`, {
      space_id: 'must be a UUID (8-4-4-4-12 hex digits)',
    });
  }
  const space = state.spaces.get(rawSpaceId.toLowerCase());
  if (!space) return fail(404, `space ${rawSpaceId} not found`);
  if (owner !== space) return fail(401, `the ${kind} does not belong to space ${space.id}`);
  if (required && scope && SCOPE_RANK[scope] < SCOPE_RANK[required]) {
    const what = issued ? 'access token' : 'API key';
    return fail(401, `the ${what} has scope ${scope}; this operation needs ${required} or higher`);
  }
  if (space.subscription !== 'active') return fail(403, `the subscription of space ${space.id} is inactive`);
  return { space };
}

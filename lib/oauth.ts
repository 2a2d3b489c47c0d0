import { MediaSpacesError } from './errors';

/**
 * The client side of the workflow area's OAuth 2.0 implicit flow (RFC 6749 section 4.2),
 * whose authorization path the description gives as `/auth/oauth2`: the URL to open in a
 * browser, and the token read back from the redirect's fragment.
 */

export const AUTHORIZATION_PATH = '/auth/oauth2';

export interface AuthorizationRequest {
  /** `{base_url}` of the workflow area, as for the client. */
  baseUrl: string;
  clientId: string;
  redirectUri: string;
  /** Scopes asked for, e.g. `['workflow:workflow-management']`. */
  scope: readonly string[];
  /** Echoed back in the fragment; compare it to tell your redirect from a forged one. */
  state?: string;
  /** Preselects the space on the sign-in page (an extension: a token is issued for one space). */
  spaceId?: string;
}

export function authorizationUrl(req: AuthorizationRequest): string {
  const url = new URL(`${req.baseUrl.replace(/\/+$/, '')}${AUTHORIZATION_PATH}`);
  url.searchParams.set('response_type', 'token');
  url.searchParams.set('client_id', req.clientId);
  url.searchParams.set('redirect_uri', req.redirectUri);
  url.searchParams.set('scope', req.scope.join(' '));
  if (req.state !== undefined) url.searchParams.set('state', req.state);
  if (req.spaceId !== undefined) url.searchParams.set('space_id', req.spaceId);
  return url.toString();
}

export interface ImplicitGrant {
  accessToken: string;
  tokenType: string;
  /** Seconds, as the server said. */
  expiresIn: number | undefined;
  /** `now` plus expires_in, in ms since the epoch: give it to the client as workflowTokenExpiresAt. */
  expiresAt: number | undefined;
  scope: string[];
  state: string | undefined;
}

/**
 * Reads the redirect of the implicit flow: a whole URL (`https://app/cb#access_token=...`)
 * or its fragment. A fragment carrying `error` (RFC 6749 section 4.2.2.1) becomes a
 * MediaSpacesError naming the error and its description.
 */
export function readTokenFragment(redirect: string, now: number = Date.now()): ImplicitGrant {
  const hash = redirect.includes('#') ? redirect.slice(redirect.indexOf('#') + 1) : redirect;
  const params = new URLSearchParams(hash);
  const error = params.get('error');
  if (error !== null) {
    const description = params.get('error_description');
    throw new MediaSpacesError({
      code: error === 'access_denied' ? 'unauthorized' : 'invalid_request',
      message: `Sign-in failed: ${error}${description ? ` - ${description}` : ''}`,
    });
  }
  const accessToken = params.get('access_token');
  if (!accessToken) {
    throw new MediaSpacesError({
      code: 'invalid_response',
      message: 'Sign-in failed: the redirect carries neither access_token nor error',
    });
  }
  const tokenType = params.get('token_type') ?? '';
  if (tokenType.toLowerCase() !== 'bearer') {
    throw new MediaSpacesError({
      code: 'invalid_response',
      message: `Sign-in failed: token_type is ${JSON.stringify(tokenType)}, not Bearer`,
    });
  }
  const rawExpiry = params.get('expires_in');
  const expiresIn = rawExpiry !== null && /^\d+$/.test(rawExpiry) ? Number(rawExpiry) : undefined;
  return {
    accessToken,
    tokenType: 'Bearer',
    expiresIn,
    expiresAt: expiresIn === undefined ? undefined : now + expiresIn * 1000,
    scope: (params.get('scope') ?? '').split(' ').filter(Boolean),
    state: params.get('state') ?? undefined,
  };
}

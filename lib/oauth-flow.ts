/**
 * The implicit flow's two pure steps, free of the library's error and schema modules so
 * that an editor (a browser bundle) uses the same rules as the library: the authorization
 * URL to open, and the redirect fragment read back. lib/oauth turns a refusal into a
 * MediaSpacesError.
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

type FragmentReading =
  | { ok: true; grant: ImplicitGrant }
  | { ok: false; error: string; description: string | undefined; state: string | undefined; message: string };

/** Reads a redirect (whole URL or fragment) of the implicit flow: the grant, or why there is none. */
export function parseTokenFragment(redirect: string, now: number = Date.now()): FragmentReading {
  const hash = redirect.includes('#') ? redirect.slice(redirect.indexOf('#') + 1) : redirect;
  const params = new URLSearchParams(hash);
  const state = params.get('state') ?? undefined;
  const error = params.get('error');
  if (error !== null) {
    const description = params.get('error_description') ?? undefined;
    const message = `Sign-in failed: ${error}${description ? ` - ${description}` : ''}`;
    return { ok: false, error, description, state, message };
  }
  const refuse = (message: string): FragmentReading => ({
    ok: false,
    error: 'invalid_response',
    description: undefined,
    state,
    message,
  });
  const accessToken = params.get('access_token');
  if (!accessToken) return refuse('Sign-in failed: the redirect carries neither access_token nor error');
  const tokenType = params.get('token_type') ?? '';
  if (tokenType.toLowerCase() !== 'bearer') {
    return refuse(`Sign-in failed: token_type is ${JSON.stringify(tokenType)}, not Bearer`);
  }
  const rawExpiry = params.get('expires_in');
  const expiresIn = rawExpiry !== null && /^\d+$/.test(rawExpiry) ? Number(rawExpiry) : undefined;
  return {
    ok: true,
    grant: {
      accessToken,
      tokenType: 'Bearer',
      expiresIn,
      expiresAt: expiresIn === undefined ? undefined : now + expiresIn * 1000,
      scope: (params.get('scope') ?? '').split(' ').filter(Boolean),
      state,
    },
  };
}

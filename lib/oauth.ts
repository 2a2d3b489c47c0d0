import { MediaSpacesError } from './errors';
import { type ImplicitGrant, parseTokenFragment } from './oauth-flow';

/**
 * The client side of the workflow area's OAuth 2.0 implicit flow (RFC 6749 section 4.2),
 * whose authorization path the description gives as `/auth/oauth2`: the URL to open in a
 * browser, and the token read back from the redirect's fragment. The pure steps live in
 * lib/oauth-flow, which an editor bundles without the rest of the library.
 */

export { AUTHORIZATION_PATH, type AuthorizationRequest, authorizationUrl, type ImplicitGrant } from './oauth-flow';

/**
 * Reads the redirect of the implicit flow: a whole URL (`https://app/cb#access_token=...`)
 * or its fragment. A fragment carrying `error` (RFC 6749 section 4.2.2.1) becomes a
 * MediaSpacesError naming the error and its description.
 */
export function readTokenFragment(redirect: string, now: number = Date.now()): ImplicitGrant {
  const read = parseTokenFragment(redirect, now);
  if (read.ok) return read.grant;
  throw new MediaSpacesError({
    code:
      read.error === 'access_denied'
        ? 'unauthorized'
        : read.error === 'invalid_response'
          ? 'invalid_response'
          : 'invalid_request',
    message: read.message,
  });
}

import { randomBytes } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { isIP } from 'node:net';
import { SCOPE_RANK } from './auth';
import { API_KEY_SCOPES, type ApiKeyScope } from './fixture-schema';
import { type BodyBudget, BUSY_RETRY_AFTER_SECONDS, readBodyAsync } from './http-io';
import { type PageFields, renderErrorPage, renderSignInPage } from './oauth-page';
import type { SimulatorState } from './state';

/**
 * The OAuth 2.0 implicit flow (RFC 6749 section 4.2) the description declares for
 * the workflow area, at its authorization path /auth/oauth2:
 *   GET  /auth/oauth2?response_type=token&client_id=..&redirect_uri=..&scope=..[&state=..][&space_id=..]
 *        -> 200, an HTML sign-in page (a plain form, no scripts, no external assets)
 *   POST /auth/oauth2 (the form, application/x-www-form-urlencoded)
 *        -> 302 to redirect_uri#access_token=..&token_type=Bearer&expires_in=..&scope=..[&state=..]
 *        -> 302 to redirect_uri#error=..&error_description=..[&state=..] (section 4.2.2.1)
 * A bad client_id or redirect_uri is never redirected to (section 4.2.2.1): it gets a 400 page.
 */

export const OAUTH_PATH = '/auth/oauth2';
const TOKEN_PREFIX = 'sim-oauth-';

interface OAuthContext {
  readonly state: SimulatorState;
  readonly bodies: BodyBudget;
  now(): number;
}

type Params = Record<string, string>;
const FLOW_PARAMS = ['response_type', 'client_id', 'redirect_uri', 'scope', 'state', 'space_id'] as const;
const LOOPBACK_NAMES = new Set(['localhost', '[::1]']);
const FORM_LIMIT_BYTES = 64 * 1024;
// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what it finds
const CONTROL_CHARACTER = /[\x00-\x1f\x7f]/;

export async function serveOAuth(ctx: OAuthContext, req: IncomingMessage, res: ServerResponse, rawQuery: string) {
  const method = req.method ?? 'GET';
  if (method !== 'GET' && method !== 'POST') {
    return html(res, 405, renderErrorPage(`${method} is not allowed here; use GET or POST`), { allow: 'GET, POST' });
  }
  let form: URLSearchParams;
  if (method === 'GET') form = new URLSearchParams(rawQuery);
  else {
    const read = await readBodyAsync(req, res, ctx.bodies, FORM_LIMIT_BYTES);
    if (!read.ok) {
      if (read.reason === 'too_large') html(res, 413, renderErrorPage('the form is larger than 64 KB'));
      if (read.reason === 'busy') {
        html(res, 503, renderErrorPage('The sign-in service is busy; send the form again in a moment.'), {
          'retry-after': String(BUSY_RETRY_AFTER_SECONDS),
        });
      }
      return;
    }
    const type = (req.headers['content-type'] ?? '').split(';')[0].trim().toLowerCase();
    if (type !== 'application/x-www-form-urlencoded') {
      return html(res, 415, renderErrorPage('send the form as application/x-www-form-urlencoded'));
    }
    form = new URLSearchParams(read.body?.toString('utf8') ?? '');
  }

  // Before anything can be redirected, client_id and redirect_uri must be sound.
  const duplicate = FLOW_PARAMS.find((p) => form.getAll(p).length > 1);
  const params: Params = {};
  for (const p of FLOW_PARAMS) {
    const v = form.get(p);
    if (v !== null) params[p] = v;
  }
  const clientProblem = checkClientId(params.client_id);
  if (clientProblem) return html(res, 400, renderErrorPage(clientProblem));
  const redirect_uri = checkRedirectUri(params.redirect_uri, ctx.state.fixture.oauth.redirect_hosts);
  if ('problem' in redirect_uri) return html(res, 400, renderErrorPage(redirect_uri.problem));
  // From here on (the page's hidden field, the Location header) the URL is the parsed one, as the check saw it.
  params.redirect_uri = redirect_uri.href;
  if (duplicate === 'client_id' || duplicate === 'redirect_uri') {
    return html(res, 400, renderErrorPage(`${duplicate} is given more than once`));
  }

  const fail = (error: string, description: string) => redirect(res, params, { error, error_description: description });
  if (duplicate) return fail('invalid_request', `${duplicate} is given more than once`);
  if (params.response_type === undefined) return fail('invalid_request', 'response_type is required');
  if (params.response_type !== 'token') {
    return fail('unsupported_response_type', 'only the implicit flow (response_type=token) is served');
  }
  const scopes = (params.scope ?? '').split(' ').filter(Boolean);
  if (scopes.length === 0)
    return fail('invalid_scope', `scope is required: one or more of ${API_KEY_SCOPES.join(' ')}`);
  const unknown = scopes.find((s) => !(API_KEY_SCOPES as readonly string[]).includes(s));
  if (unknown !== undefined) {
    return fail('invalid_scope', `unknown scope ${unknown}; known: ${API_KEY_SCOPES.join(' ')}`);
  }
  const requested = [...new Set(scopes)] as ApiKeyScope[];
  const page: PageFields = {
    params,
    scopes: requested,
    spaces: ctx.state.spaceList.map((s) => ({ id: s.id, name: s.name })),
  };
  if (method === 'GET') return html(res, 200, renderSignInPage(page));

  if (form.get('decision') === 'deny') return fail('access_denied', 'the user denied the request');
  const username = form.get('username') ?? '';
  const user = ctx.state.users.get(username);
  if (!user || user.password !== (form.get('password') ?? '')) {
    return html(res, 401, renderSignInPage({ ...page, username, message: 'Wrong username or password.' }));
  }
  const spaceId = (params.space_id ?? '').toLowerCase();
  const space = ctx.state.spaces.get(spaceId);
  if (!space) {
    return html(res, 400, renderSignInPage({ ...page, username, message: 'Choose a space.' }));
  }
  const allowed = user.spaces.find((g) => g.space_id === space.id)?.scopes ?? [];
  const top = Math.max(0, ...allowed.map((s) => SCOPE_RANK[s]));
  // a scope implies the lower ones, so a user allowed admin may grant management or access
  const granted = requested.filter((s) => SCOPE_RANK[s] <= top);
  if (granted.length === 0) {
    return fail('access_denied', `user ${username} may grant none of the requested scopes in space ${space.id}`);
  }
  const token = `${TOKEN_PREFIX}${randomBytes(24).toString('base64url')}`;
  const lifetime = ctx.state.fixture.oauth.token_lifetime_seconds;
  const scope = granted.reduce((a, b) => (SCOPE_RANK[b] > SCOPE_RANK[a] ? b : a));
  ctx.state.issuedTokens.set(token, {
    space,
    scope,
    scopes: granted,
    username,
    expiresAt: ctx.now() + lifetime * 1000,
  });
  return redirect(res, params, {
    access_token: token,
    token_type: 'Bearer',
    expires_in: String(lifetime),
    scope: granted.join(' '),
  });
}

function checkClientId(value: string | undefined): string | null {
  if (value === undefined || value === '') return 'client_id is required';
  if (value.length > 256 || !/^[\x20-\x7e]+$/.test(value))
    return 'client_id must be 1 to 256 printable ASCII characters';
  return null;
}

/**
 * The redirect rule (the description registers no clients): an absolute http or https URL,
 * without control characters, a fragment (the token goes there) or user:password, whose host
 * is loopback (localhost, 127.0.0.0/8, [::1]) or one of the fixture's oauth.redirect_hosts.
 * Returns the URL as parsed (`href`), which is what is redirected to: the WHATWG parser drops
 * tabs and line breaks anywhere, so the raw text may differ from the URL that was checked.
 */
function checkRedirectUri(
  value: string | undefined,
  extraHosts: readonly string[],
): { href: string } | { problem: string } {
  if (value === undefined || value === '') return { problem: 'redirect_uri is required' };
  if (CONTROL_CHARACTER.test(value)) {
    return { problem: 'redirect_uri must not contain control characters (tab, line breaks and the like)' };
  }
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return { problem: 'redirect_uri must be an absolute URL' };
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    return { problem: 'redirect_uri must be an http or https URL' };
  }
  if (value.includes('#')) return { problem: 'redirect_uri must not have a fragment' };
  if (url.username || url.password) return { problem: 'redirect_uri must not carry a user name or password' };
  const host = url.hostname.toLowerCase();
  const loopback = LOOPBACK_NAMES.has(host) || (isIP(host) === 4 && host.startsWith('127.'));
  if (!loopback && !extraHosts.some((h) => h.toLowerCase() === host)) {
    return {
      problem: `redirect_uri host ${host} is not allowed: use a loopback host (localhost, 127.0.0.1, [::1]) or list it under oauth.redirect_hosts in the fixture`,
    };
  }
  return { href: url.href };
}

function redirect(res: ServerResponse, params: Params, fragment: Record<string, string>): void {
  const out = new URLSearchParams(fragment);
  if (params.state !== undefined) out.set('state', params.state);
  res.writeHead(302, { location: `${params.redirect_uri}#${out.toString()}`, 'cache-control': 'no-store' });
  res.end();
}

function html(res: ServerResponse, status: number, body: string, headers: Record<string, string> = {}): void {
  if (res.headersSent || res.destroyed) return;
  res.writeHead(status, {
    ...headers,
    'content-type': 'text/html; charset=utf-8',
    'content-length': Buffer.byteLength(body),
    'cache-control': 'no-store',
    // no scripts or external assets at all; the page may open in a popup but not in a frame
    'content-security-policy': "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'",
    'x-content-type-options': 'nosniff',
  });
  res.end(body);
}

/**
 * Drives the simulator's OAuth 2.0 implicit flow the way a browser popup does: GET the
 * authorization page, submit its form (hidden fields as the page wrote them, plus what
 * the user types), and read the redirect's Location without following it.
 */

export interface SignIn {
  username: string;
  password: string;
  scope: string;
  spaceId: string;
  state?: string;
  redirectUri?: string;
  clientId?: string;
  decision?: 'allow' | 'deny';
}

export const REDIRECT_URI = 'http://127.0.0.1:1880/media-spaces/oauth-callback';

export function authorizeUrl(baseUrl: string, s: Partial<SignIn>): string {
  const q = new URLSearchParams({
    response_type: 'token',
    client_id: s.clientId ?? 'node-red-media-spaces',
    redirect_uri: s.redirectUri ?? REDIRECT_URI,
  });
  if (s.scope !== undefined) q.set('scope', s.scope);
  if (s.state !== undefined) q.set('state', s.state);
  if (s.spaceId !== undefined) q.set('space_id', s.spaceId);
  return `${baseUrl}/auth/oauth2?${q}`;
}

const unescapeHtml = (s: string) =>
  s.replace(
    /&(amp|lt|gt|quot|#39);/g,
    (_, e: string) => ({ amp: '&', lt: '<', gt: '>', quot: '"', '#39': "'" })[e] ?? '',
  );

/** The page's form as a browser would post it. */
export function formOf(html: string, typed: Record<string, string>): URLSearchParams {
  const form = new URLSearchParams();
  for (const m of html.matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)">/g)) {
    form.set(unescapeHtml(m[1]), unescapeHtml(m[2]));
  }
  for (const [k, v] of Object.entries(typed)) form.set(k, v);
  return form;
}

/** The whole flow; returns the status of the form post and its Location (the redirect with the fragment). */
export async function signIn(
  baseUrl: string,
  s: SignIn,
): Promise<{ status: number; location: string | null; page: string }> {
  const page = await fetch(authorizeUrl(baseUrl, s));
  if (page.status !== 200) throw new Error(`authorization page: HTTP ${page.status}`);
  const html = await page.text();
  const form = formOf(html, {
    username: s.username,
    password: s.password,
    space_id: s.spaceId,
    decision: s.decision ?? 'allow',
  });
  const res = await fetch(`${baseUrl}/auth/oauth2`, { method: 'POST', body: form, redirect: 'manual' });
  return { status: res.status, location: res.headers.get('location'), page: await res.text() };
}

/** The parameters of a redirect's fragment. */
export function fragmentOf(location: string | null): Record<string, string> {
  if (!location?.includes('#')) throw new Error(`no fragment in ${location}`);
  return Object.fromEntries(new URLSearchParams(location.slice(location.indexOf('#') + 1)));
}

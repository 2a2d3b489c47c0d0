import { authorizationUrl, parseTokenFragment } from '../../../lib/oauth-flow';
import { checkBaseUrl, UUID_PATTERN } from '../../../lib/rules';

/**
 * The dialog's "Sign in": the service's authorization page in a popup (OAuth 2.0
 * implicit flow), its redirect to our callback page (nodes/config/oauth-callback.ts),
 * which posts the fragment back here. The token is kept in hidden credential fields
 * of the config node (workflowToken, workflowTokenExpiresAt), saved with the node;
 * the runtime never sees the popup.
 */

const CLIENT_ID = 'node-red-media-spaces';
const SCOPE = ['workflow:workflow-management'];
const MESSAGE_TYPE = 'media-spaces-oauth';

const tokenField = () => $('#node-config-input-workflowToken');
const expiryField = () => $('#node-config-input-workflowTokenExpiresAt');

let listening: ((event: MessageEvent) => void) | undefined;

function randomState(): string {
  const bytes = new Uint8Array(16);
  crypto.getRandomValues(bytes);
  return Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('');
}

/** The callback route, beside the editor (admin routes are served under the editor's root). */
function redirectUri(): string {
  return new URL('media-spaces/oauth/callback', window.location.href.split('#')[0]).toString();
}

/** Shows whether a token is held, and until when. */
export function showSignIn(node: EditorNodeInstance): void {
  const $out = $('#node-config-media-spaces-signin-state').empty();
  const token = String(tokenField().val() ?? '');
  const expiresAt = Number(expiryField().val());
  $('#node-config-media-spaces-signout').toggle(token !== '');
  if (token === '') {
    $out.text(node._('media-spaces-config.signIn.none'));
    return;
  }
  const until = Number.isFinite(expiresAt) && expiresAt > 0 ? new Date(expiresAt) : undefined;
  if (until && until.getTime() <= Date.now()) {
    $out.css('color', '#b2372b').text(node._('media-spaces-config.signIn.expired', { time: until.toLocaleString() }));
    return;
  }
  $out
    .css('color', '')
    .text(
      until
        ? node._('media-spaces-config.signIn.until', { time: until.toLocaleString() })
        : node._('media-spaces-config.signIn.noExpiry'),
    );
}

export function signIn(node: EditorNodeInstance): void {
  const $out = $('#node-config-media-spaces-signin-state');
  const base = checkBaseUrl(String($('#node-config-input-workflowUrl').val() ?? ''));
  const spaceId = String($('#node-config-input-spaceId').val() ?? '').trim();
  if (!base.ok || !UUID_PATTERN.test(spaceId)) {
    $out.css('color', '#b2372b').text(node._('media-spaces-config.signIn.needsUrl'));
    return;
  }
  const state = randomState();
  const url = authorizationUrl({
    baseUrl: base.url.toString(),
    clientId: CLIENT_ID,
    redirectUri: redirectUri(),
    scope: SCOPE,
    state,
    spaceId,
  });
  const popup = window.open(url, 'media-spaces-sign-in', 'width=520,height=640');
  if (!popup) {
    $out.css('color', '#b2372b').text(node._('media-spaces-config.signIn.blocked'));
    return;
  }
  $out.css('color', '').text(node._('media-spaces-config.signIn.waiting'));
  if (listening) window.removeEventListener('message', listening);
  listening = (event: MessageEvent) => {
    const data = event.data as { type?: unknown; fragment?: unknown } | null;
    // only our own callback page, in the popup we opened, on the editor's origin
    if (event.origin !== window.location.origin || event.source !== popup) return;
    if (data === null || typeof data !== 'object' || data.type !== MESSAGE_TYPE) return;
    if (listening) window.removeEventListener('message', listening);
    listening = undefined;
    receive(node, String(data.fragment ?? ''), state);
  };
  window.addEventListener('message', listening);
}

function receive(node: EditorNodeInstance, fragment: string, state: string): void {
  const $out = $('#node-config-media-spaces-signin-state');
  const read = parseTokenFragment(fragment);
  // a redirect without our state, or with another, is not the answer to this sign-in
  const problem =
    (read.ok ? read.grant.state : read.state) !== state
      ? node._('media-spaces-config.signIn.forged')
      : read.ok
        ? undefined
        : read.message;
  if (problem !== undefined || !read.ok) {
    $out.css('color', '#b2372b').text(problem ?? '');
    return;
  }
  tokenField().val(read.grant.accessToken);
  expiryField().val(read.grant.expiresAt === undefined ? '' : String(read.grant.expiresAt));
  showSignIn(node);
}

export function signOut(node: EditorNodeInstance): void {
  tokenField().val('');
  expiryField().val('');
  showSignIn(node);
}

import type { HttpResponse, NodeAPI } from '../shared/node-red-types';

/**
 * The redirect target of the config dialog's "Sign in" (OAuth 2.0 implicit flow): a page
 * that hands the URL fragment (the token) to the editor window that opened it, and closes.
 *
 * Not behind a permission check, unlike the other editor endpoints: the sign-in popup
 * arrives here by a plain navigation, which carries none of the editor's bearer tokens.
 * Nothing here needs guarding: the page is static, holds no data, and the fragment never
 * reaches the server (browsers do not send it). It posts the fragment only to a window of
 * its own origin (the editor), which checks the `state` it generated; the CSP allows no
 * script but its own, the page may not be framed, cached, or leak a Referer.
 */
const CALLBACK_PATH = '/media-spaces/oauth/callback';
const CALLBACK_SCRIPT_PATH = '/media-spaces/oauth/callback.js';
const MESSAGE_TYPE = 'media-spaces-oauth';

const PAGE = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Media Spaces sign-in</title></head>
<body style="font-family: sans-serif; margin: 2em">
<p id="text">Finishing the sign-in…</p>
<script src="callback.js"></script>
</body></html>`;

const SCRIPT = `(function () {
  var fragment = location.hash.slice(1);
  history.replaceState(null, '', location.pathname);
  var text = document.getElementById('text');
  if (!window.opener) {
    text.textContent = 'Open this page with the Sign in button of the Media Spaces config node.';
    return;
  }
  window.opener.postMessage({ type: '${MESSAGE_TYPE}', fragment: fragment }, location.origin);
  text.textContent = 'Signed in: you can close this window.';
  window.close();
})();`;

function secure(res: HttpResponse, type: string): HttpResponse {
  return res
    .set('Content-Type', type)
    .set('Cache-Control', 'no-store')
    .set('Referrer-Policy', 'no-referrer')
    .set('X-Content-Type-Options', 'nosniff')
    .set('Content-Security-Policy', "default-src 'none'; script-src 'self'; frame-ancestors 'none'")
    .set('X-Frame-Options', 'DENY');
}

export function registerOAuthCallback(RED: NodeAPI): void {
  RED.httpAdmin.get(CALLBACK_PATH, (_req, res) => secure(res, 'text/html; charset=utf-8').send(PAGE));
  RED.httpAdmin.get(CALLBACK_SCRIPT_PATH, (_req, res) =>
    secure(res, 'application/javascript; charset=utf-8').send(SCRIPT),
  );
}

/**
 * The HTML of the simulator's OAuth sign-in page: one plain form that works in a
 * browser popup, with no scripts and no external assets. Everything echoed is escaped.
 */

export interface PageFields {
  /** The flow parameters of the request, carried through the form as hidden fields. */
  params: Record<string, string>;
  scopes: readonly string[];
  spaces: ReadonlyArray<{ id: string; name: string }>;
  username?: string;
  message?: string;
}

const STYLE = `body{font:15px/1.4 system-ui,sans-serif;max-width:26rem;margin:2rem auto;padding:0 1rem;color:#222}
label{display:block;margin:.8rem 0 .2rem}input,select{width:100%;box-sizing:border-box;padding:.4rem}
.buttons{margin-top:1.2rem;display:flex;gap:.6rem}.message{color:#a00}code{word-break:break-all}`;

function escapeHtml(text: string): string {
  return text.replace(
    /[&<>"']/g,
    (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c] as string,
  );
}

function page(title: string, body: string): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width">
<title>${escapeHtml(title)}</title><style>${STYLE}</style></head>
<body>${body}</body></html>
`;
}

export function renderSignInPage(f: PageFields): string {
  const e = escapeHtml;
  const hidden = Object.entries(f.params)
    .filter(([name]) => name !== 'space_id')
    .map(([name, value]) => `<input type="hidden" name="${e(name)}" value="${e(value)}">`)
    .join('\n');
  const chosen = (f.params.space_id ?? '').toLowerCase();
  const options = f.spaces
    .map((s) => `<option value="${e(s.id)}"${s.id === chosen ? ' selected' : ''}>${e(s.name || s.id)}</option>`)
    .join('');
  let origin = f.params.redirect_uri ?? '';
  try {
    origin = new URL(origin).origin;
  } catch {
    // checked before the page is drawn; shown as given otherwise
  }
  return page(
    'Sign in - Media Spaces simulator',
    `<h1>Sign in</h1>
<p><code>${e(f.params.client_id ?? '')}</code> at <code>${e(origin)}</code> asks for:
<code>${f.scopes.map(e).join(' ')}</code></p>
${f.message ? `<p class="message" role="alert">${e(f.message)}</p>` : ''}
<form method="post" action="/auth/oauth2">
${hidden}
<label for="username">Username</label>
<input id="username" name="username" autocomplete="username" required value="${e(f.username ?? '')}">
<label for="password">Password</label>
<input id="password" name="password" type="password" autocomplete="current-password">
<label for="space_id">Space</label>
<select id="space_id" name="space_id">${options}</select>
<div class="buttons">
<button type="submit" name="decision" value="allow">Allow</button>
<button type="submit" name="decision" value="deny" formnovalidate>Deny</button>
</div>
</form>
<p><small>Media Spaces simulator: users and passwords come from its fixture.</small></p>`,
  );
}

export function renderErrorPage(message: string): string {
  return page(
    'Sign-in error - Media Spaces simulator',
    `<h1>Sign-in error</h1><p class="message" role="alert">${escapeHtml(message)}</p>`,
  );
}

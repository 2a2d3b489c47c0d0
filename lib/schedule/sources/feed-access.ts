import { quoteShort } from '../../quote';
import type { FeedCredentials } from './feed';

/**
 * What a schedule keeps of a feed outside its document: a private address (a
 * calendar's secret URL) and the user and password or token the feed server
 * asks for. The schedule node holds them as one Node-RED credential, a JSON
 * text mapping window id to its secret; the document writes `ical: private`
 * (or `xmltv: private`) where the address is one of them.
 */
export interface FeedSecret {
  location?: string;
  user?: string;
  password?: string;
  token?: string;
}

/** What a window's feed address says when the address is the window's secret. */
export const PRIVATE_LOCATION = 'private';

const FIELDS = ['location', 'user', 'password', 'token'] as const;

/**
 * The secrets of every feed window from the credential's text. Lenient: a
 * text that is not a JSON mapping reads as none, a field that is not text is
 * left out; it never throws (the text is a secret: no error may quote it).
 */
export function parseFeedSecrets(text: string | undefined): Record<string, FeedSecret> {
  const secrets: Record<string, FeedSecret> = Object.create(null);
  if (typeof text !== 'string' || text.trim() === '') return secrets;
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return secrets;
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) return secrets;
  for (const [id, value] of Object.entries(parsed)) {
    if (typeof value !== 'object' || value === null || Array.isArray(value)) continue;
    const secret: FeedSecret = {};
    for (const field of FIELDS) {
      const v = (value as Record<string, unknown>)[field];
      if (typeof v === 'string' && v !== '') secret[field] = v;
    }
    secrets[id] = secret;
  }
  return secrets;
}

/** The credential's text for `secrets`: windows without any secret left out. */
export function formatFeedSecrets(secrets: Record<string, FeedSecret>): string {
  const kept: Record<string, FeedSecret> = {};
  for (const [id, secret] of Object.entries(secrets)) {
    const clean: FeedSecret = {};
    for (const field of FIELDS) if (secret[field]) clean[field] = secret[field];
    if (Object.keys(clean).length > 0) kept[id] = clean;
  }
  return Object.keys(kept).length === 0 ? '' : JSON.stringify(kept);
}

/**
 * The address to fetch and the credentials for one feed window: the
 * document's address, or the window's secret one where the document says
 * `private`; a bearer token, else a user and password, when the window has
 * them. A string (one sentence naming the window, never the address) when
 * something is missing.
 */
export function feedAccess(
  window: { id: string; location: string },
  secrets: Record<string, FeedSecret>,
): { location: string; credentials?: FeedCredentials } | string {
  const secret: FeedSecret = Object.hasOwn(secrets, window.id) ? secrets[window.id] : {};
  const id = quoteShort(window.id);
  const isPrivate = window.location.trim() === PRIVATE_LOCATION;
  const location = isPrivate ? secret.location?.trim() : window.location;
  if (!location) {
    return `Window ${id} reads a private feed address, but the schedule node has none stored for it: type it in the window's form and deploy.`;
  }
  if (isPrivate && location === PRIVATE_LOCATION) {
    return `Window ${id} has "private" as its stored feed address: type the address in the window's form and deploy.`;
  }
  if (secret.token) return { location, credentials: { token: secret.token } };
  if (secret.user !== undefined || secret.password !== undefined) {
    if (!secret.user) return `Window ${id} has a feed password stored but no user: type the user in the window's form.`;
    return { location, credentials: { user: secret.user, password: secret.password ?? '' } };
  }
  return { location };
}

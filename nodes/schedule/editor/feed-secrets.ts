import { type FeedSecret, formatFeedSecrets } from '../../../lib/schedule/sources/feed-access';

/** Node-RED's placeholder for a password credential it holds but never sends to the editor. */
const STORED = '__PWRD__';
const FIELD = '#node-input-feeds';

/**
 * The feed secrets typed in one dialog (a private address, a user and
 * password or a token, per window id). Node-RED never sends a stored password
 * credential to the editor, so the dialog cannot show or merge what is
 * stored: the `feeds` credential is left as it is unless a secret is typed,
 * and then written whole from what was typed (the form says so).
 */
export interface FeedSecrets {
  /** whether the node has feed secrets stored (they are not shown) */
  readonly stored: boolean;
  /** what was typed for a window, kept while the list is rebuilt (YAML and list switched) */
  get(windowId: string): FeedSecret;
  set(windowId: string, secret: FeedSecret): void;
  /** oneditsave: the credential's input gets the typed secrets, when any were typed; the private addresses typed */
  save(current: Map<string, FeedSecret>): string[];
}

const hasAny = (s: FeedSecret) => Boolean(s.location || s.user || s.password || s.token);

export function feedSecrets(): FeedSecrets {
  const typed = new Map<string, FeedSecret>();
  const stored = String($(FIELD).val() ?? '') === STORED;
  return {
    stored,
    get: (id) => typed.get(id) ?? {},
    set(id, secret) {
      if (hasAny(secret)) typed.set(id, secret);
      else typed.delete(id);
    },
    save(current) {
      for (const [id, secret] of current) this.set(id, secret);
      if (![...typed.values()].some(hasAny)) return [];
      $(FIELD).val(formatFeedSecrets(Object.fromEntries(typed)));
      return [...typed.values()].flatMap((s) => (s.location ? [s.location] : []));
    },
  };
}

import { CoordinationError } from './errors';

/** Where Redis is, parsed from the config node's url. Never holds credentials. */
export interface RedisEndpoint {
  tls: boolean;
  host: string;
  port: number;
  database: number;
  /** `redis://host:port` or `rediss://host:port` (with `/db` when not 0): safe for logs and status. */
  display: string;
}

/** A url read: the endpoint, or the rule it breaks, completing "url …" (never showing credentials). */
export type RedisUrlCheck = { ok: true; endpoint: RedisEndpoint } | { ok: false; rule: string };

export const REDIS_URL_RULE = 'must be redis://host:port or rediss://host:port';

const DEFAULT_PORT = 6379;

function invalid(got: string, why?: string): RedisUrlCheck {
  const shown = got.length > 80 ? `${got.slice(0, 80)}…` : got;
  return { ok: false, rule: `${REDIS_URL_RULE}, got ${JSON.stringify(shown)}${why ? ` (${why})` : ''}` };
}

/**
 * Accepts `redis://host[:port][/db]` and `rediss://…` (TLS). Credentials in
 * the url are refused: they belong in the node's credentials, which Node-RED
 * keeps out of exported flows. Browser-safe: the dialog checks the url with it.
 */
export function checkRedisUrl(input: unknown): RedisUrlCheck {
  const raw = typeof input === 'string' ? input.trim() : '';
  if (raw === '') return { ok: false, rule: `${REDIS_URL_RULE}, got nothing` };
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return invalid(raw);
  }
  if (url.protocol !== 'redis:' && url.protocol !== 'rediss:') return invalid(raw, `scheme ${url.protocol}`);
  if (url.hostname === '') return invalid(raw, 'no host');
  if (url.username !== '' || url.password !== '') {
    return {
      ok: false,
      rule: 'must not contain a username or password: enter them in the credentials, which are not exported with the flow',
    };
  }
  if (url.search !== '' || url.hash !== '') return invalid(raw, 'no query or fragment allowed');
  const port = url.port === '' ? DEFAULT_PORT : Number(url.port);
  const path = url.pathname.replace(/^\//, '');
  if (path !== '' && !/^\d{1,2}$/.test(path)) return invalid(raw, 'the path may only be a database number');
  const database = path === '' ? 0 : Number(path);
  const tls = url.protocol === 'rediss:';
  const display = `${url.protocol}//${url.hostname}:${port}${database === 0 ? '' : `/${database}`}`;
  return { ok: true, endpoint: { tls, host: url.hostname.replace(/^\[|\]$/g, ''), port, database, display } };
}

/** The endpoint of a url, or CoordinationError `invalid_config` naming the rule it breaks. */
export function parseRedisUrl(input: unknown): RedisEndpoint {
  const checked = checkRedisUrl(input);
  if (!checked.ok) throw new CoordinationError('invalid_config', `url ${checked.rule}`);
  return checked.endpoint;
}

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

const DEFAULT_PORT = 6379;

function invalid(got: string, why?: string): CoordinationError {
  const shown = got.length > 80 ? `${got.slice(0, 80)}…` : got;
  return new CoordinationError(
    'invalid_config',
    `url must be redis://host:port or rediss://host:port, got ${JSON.stringify(shown)}${why ? ` (${why})` : ''}`,
  );
}

/**
 * Accepts `redis://host[:port][/db]` and `rediss://…` (TLS). Credentials in
 * the url are refused: they belong in the node's credentials, which Node-RED
 * keeps out of exported flows.
 */
export function parseRedisUrl(input: unknown): RedisEndpoint {
  const raw = typeof input === 'string' ? input.trim() : '';
  if (raw === '') {
    throw new CoordinationError('invalid_config', 'url must be redis://host:port or rediss://host:port, got nothing');
  }
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw invalid(raw);
  }
  if (url.protocol !== 'redis:' && url.protocol !== 'rediss:') throw invalid(raw, `scheme ${url.protocol}`);
  if (url.hostname === '') throw invalid(raw, 'no host');
  if (url.username !== '' || url.password !== '') {
    throw new CoordinationError(
      'invalid_config',
      'url must not contain a username or password: enter them in the credentials, which are not exported with the flow',
    );
  }
  if (url.search !== '' || url.hash !== '') throw invalid(raw, 'no query or fragment allowed');
  const port = url.port === '' ? DEFAULT_PORT : Number(url.port);
  const path = url.pathname.replace(/^\//, '');
  if (path !== '' && !/^\d{1,2}$/.test(path)) throw invalid(raw, 'the path may only be a database number');
  const database = path === '' ? 0 : Number(path);
  const tls = url.protocol === 'rediss:';
  const display = `${url.protocol}//${url.hostname}:${port}${database === 0 ? '' : `/${database}`}`;
  return { tls, host: url.hostname.replace(/^\[|\]$/g, ''), port, database, display };
}

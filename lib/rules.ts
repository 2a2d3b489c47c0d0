/**
 * The service's value rules, written once as plain constants and functions:
 * no zod and no Node built-ins, so the runtime, the schemas, the simulator and
 * the browser editors (bundled from nodes/<node>/editor.ts) all import the
 * same rule and cannot disagree.
 */

export const UUID_PATTERN = /^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/;
export const UUID_RULE = 'must be a UUID (8-4-4-4-12 hex digits)';

export const WORKFLOW_STATUSES = ['active', 'archived', 'deleted', 'idle'] as const;
export const WORKFLOW_STATUS_RULE = `must be one of ${WORKFLOW_STATUSES.join(', ')}`;

export function isWorkflowStatus(value: unknown): value is (typeof WORKFLOW_STATUSES)[number] {
  return typeof value === 'string' && (WORKFLOW_STATUSES as readonly string[]).includes(value);
}

export const TYPECODES = [
  'Boolean',
  'Byte',
  'Int16',
  'Int32',
  'UInt32',
  'String',
  'Uri',
  'TimeCode',
  'Double',
] as const;

// job states here rather than in lib/schemas: the sidebar needs them at start, before zod is loaded
export const JOB_STATES = [
  'created',
  'in-process',
  'succeeded',
  'failed',
  'stopped',
  'retry',
  'malfunctioned',
] as const;
/**
 * The kinds of input a job takes: a submit request's `usage.input`, the short
 * form's keys, a schedule's follow-up. One list; the schemas are checked
 * against it.
 */
export const INPUT_KINDS = ['variables', 'media_nicknames', 'attachments', 'labels'] as const;
export type InputKind = (typeof INPUT_KINDS)[number];

export const TERMINAL_JOB_STATES = ['succeeded', 'failed', 'stopped'] as const;

export const FRAME_RATES = ['23.976', '24', '25', '29.97', '30', '50', '60'] as const;

/** The longest job (and channel) name the client sends, in UTF-16 code units as JavaScript counts them. */
export const NAME_MAX = 256;

/** Page size bounds of the workflow list (max_results). */
export const MAX_RESULTS_MIN = 1;
export const MAX_RESULTS_MAX = 100;
export const MAX_RESULTS_RULE = `must be a whole number from ${MAX_RESULTS_MIN} to ${MAX_RESULTS_MAX}`;

export function isMaxResults(value: unknown): value is number {
  return typeof value === 'number' && Number.isInteger(value) && value >= MAX_RESULTS_MIN && value <= MAX_RESULTS_MAX;
}

/** An Idempotency-Key header value: 1 to 255 visible ASCII characters. */
export const IDEMPOTENCY_KEY_RULE = 'must be 1 to 255 visible ASCII characters';

export function isIdempotencyKey(value: unknown): value is string {
  return typeof value === 'string' && value.length > 0 && value.length <= 255 && !/[^\x21-\x7e]/.test(value);
}

/** Whether a host name is this machine, where plain http does not expose credentials on a network. */
export function isLoopback(hostname: string): boolean {
  const host = hostname.replace(/^\[|\]$/g, '').toLowerCase();
  return host === 'localhost' || host.endsWith('.localhost') || host === '::1' || /^127(\.\d{1,3}){3}$/.test(host);
}

/** A base URL of the service, read: either the parsed URL, or the rule it breaks. */
type BaseUrlCheck =
  /** insecure: plain http to a host that is not this machine */
  | { ok: true; url: URL; insecure: boolean }
  | { ok: false; problem: 'is required' | 'is not a valid URL' | 'must start with http:// or https://' };

export function checkBaseUrl(value: string): BaseUrlCheck {
  const text = value.trim();
  if (text === '') return { ok: false, problem: 'is required' };
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return { ok: false, problem: 'is not a valid URL' };
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    return { ok: false, problem: 'must start with http:// or https://' };
  }
  return { ok: true, url, insecure: url.protocol === 'http:' && !isLoopback(url.hostname) };
}

/** The paths under which a service serves its workflow API; the node adds the chosen one to the Workflow URL. */
export const WORKFLOW_PREFIXES = ['/workflow/v1', '/workflow/api/v1'] as const;

/** Polling defaults of lib/watch and of the polling nodes' dialogs. */
export const DEFAULT_INTERVAL_MS = 5000;
export const DEFAULT_BACKOFF_MAX_MS = 60_000;
export const DEFAULT_CONCURRENCY = 8;
export const DEFAULT_ACTIVE_TIMEOUT_MS = 600_000;

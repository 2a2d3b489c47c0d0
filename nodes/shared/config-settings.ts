import { type ClientConfig, WORKFLOW_PREFIXES, type WorkflowPrefix } from '../../lib/client';
import { MediaSpacesError } from '../../lib/errors';
import { checkBaseUrl, UUID_PATTERN, UUID_RULE } from '../../lib/rules';

/**
 * The config node's properties as the editor stores them (strings from text
 * boxes, booleans from check boxes), turned into a ClientConfig. Shared by the
 * deployed config node and the admin endpoints, which receive the same fields
 * from the unsaved dialog.
 */
export interface ConfigFields {
  name?: unknown;
  workflowUrl?: unknown;
  liveCaptureUrl?: unknown;
  spaceId?: unknown;
  workflowPrefix?: unknown;
  timeout?: unknown;
  retries?: unknown;
  rejectUnauthorized?: unknown;
}

export interface Credentials {
  apiKey?: string;
  accessToken?: string;
}

export const DEFAULT_TIMEOUT_MS = 30_000;
export const DEFAULT_RETRIES = 3;
const MAX_RETRIES = 10;

export interface ParsedConfig {
  config: ClientConfig;
  /** Settings that make a client unusable, by field; empty when all is well. */
  problems: Record<string, string>;
  /** Advice that does not stop the node, e.g. plain http to a remote host. */
  warnings: string[];
}

export function parseConfig(fields: ConfigFields, credentials: Credentials): ParsedConfig {
  const problems: Record<string, string> = {};
  const warnings: string[] = [];
  const workflowUrl = text(fields.workflowUrl);
  const liveCaptureUrl = text(fields.liveCaptureUrl);
  const spaceId = text(fields.spaceId);

  checkUrl('workflowUrl', workflowUrl, true, problems, warnings);
  checkUrl('liveCaptureUrl', liveCaptureUrl, false, problems, warnings);
  if (!UUID_PATTERN.test(spaceId)) {
    problems.spaceId = spaceId === '' ? 'is required' : UUID_RULE;
  }
  const prefix = text(fields.workflowPrefix) || WORKFLOW_PREFIXES[0];
  if (!(WORKFLOW_PREFIXES as readonly string[]).includes(prefix)) {
    problems.workflowPrefix = `must be ${WORKFLOW_PREFIXES.join(' or ')}`;
  }
  const timeout = numberSetting(fields.timeout, DEFAULT_TIMEOUT_MS);
  if (!(timeout > 0)) problems.timeout = 'must be a positive number of milliseconds';
  const retries = numberSetting(fields.retries, DEFAULT_RETRIES);
  if (!Number.isInteger(retries) || retries < 0 || retries > MAX_RETRIES) {
    problems.retries = `must be a whole number from 0 to ${MAX_RETRIES}`;
  }

  // anything but an explicit "off" keeps certificate checks on
  const rejectUnauthorized = fields.rejectUnauthorized !== false && fields.rejectUnauthorized !== 'false';
  if (!rejectUnauthorized) {
    warnings.push('TLS certificate verification is off: anyone on the path can read the credentials');
  }

  return {
    config: {
      workflowUrl,
      liveCaptureUrl: liveCaptureUrl || undefined,
      spaceId,
      workflowPrefix: prefix as WorkflowPrefix,
      timeout,
      retries,
      rejectUnauthorized,
      apiKey: credentials.apiKey || undefined,
      accessToken: credentials.accessToken || undefined,
    },
    problems,
    warnings,
  };
}

/** One error naming every bad setting, for getClient() and the admin endpoints. */
export function configError(label: string, problems: Record<string, string>): MediaSpacesError {
  const list = Object.entries(problems)
    .map(([field, problem]) => `${field} ${problem}`)
    .join('; ');
  return MediaSpacesError.invalidInput(`Media Spaces config ${label}: ${list}`, { ...problems });
}

function checkUrl(
  field: string,
  value: string,
  required: boolean,
  problems: Record<string, string>,
  warnings: string[],
): void {
  if (value === '' && !required) return;
  const checked = checkBaseUrl(value);
  if (!checked.ok) {
    problems[field] = checked.problem;
    return;
  }
  if (checked.insecure) {
    warnings.push(
      `${field} uses plain http to ${checked.url.hostname}: the credentials travel unencrypted; use https outside a local test setup`,
    );
  }
}

function text(value: unknown): string {
  return typeof value === 'string' ? value.trim() : '';
}

function numberSetting(value: unknown, fallback: number): number {
  if (value === undefined || value === null || value === '') return fallback;
  return typeof value === 'number' ? value : Number(value);
}

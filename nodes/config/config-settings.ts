import type { ClientConfig } from '../../lib/client';
import { MediaSpacesError } from '../../lib/errors';
import { checkBaseUrl } from '../../lib/rules';
import { dialogLabels } from '../shared/dialog-labels';
import { settingProblem } from '../shared/setting-name';
import { FIELDS } from './fields';
import { spaceIdProblem, urlProblem } from './setting-checks';

/**
 * The config node's properties as the editor stores them (strings from text
 * boxes, booleans from check boxes), turned into a ClientConfig. Shared by the
 * deployed config node and the admin endpoints, which receive the same fields
 * from the unsaved dialog.
 */
interface ConfigFields {
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
  /** The workflow area's OAuth token from the dialog's "Sign in", and when it expires (ms or ISO text). */
  workflowToken?: string;
  workflowTokenExpiresAt?: string;
}

interface ParsedConfig {
  config: ClientConfig;
  /** Settings that make a client unusable, by field; empty when all is well. */
  problems: Record<string, string>;
  /** Advice that does not stop the node, e.g. plain http to a remote host. */
  warnings: string[];
}

export function parseConfig(fields: ConfigFields, credentials: Credentials): ParsedConfig {
  // the zod schema loads with the first config node or dialog test, not at Node-RED start
  const { readConfigSettings } = require('./settings') as typeof import('./settings');
  const { settings, problems } = readConfigSettings({ ...fields });
  const warnings: string[] = [];
  checkUrl('workflowUrl', settings.workflowUrl, true, problems, warnings);
  checkUrl('liveCaptureUrl', settings.liveCaptureUrl, false, problems, warnings);
  const spaceProblem = spaceIdProblem(settings.spaceId);
  if (spaceProblem) problems.spaceId = spaceProblem;
  if (!settings.rejectUnauthorized) {
    warnings.push('TLS certificate verification is off: anyone on the path can read the credentials');
  }
  return {
    config: {
      workflowUrl: settings.workflowUrl,
      liveCaptureUrl: settings.liveCaptureUrl || undefined,
      spaceId: settings.spaceId,
      workflowPrefix: settings.workflowPrefix,
      timeout: settings.timeout,
      retries: settings.retries,
      rejectUnauthorized: settings.rejectUnauthorized,
      apiKey: credentials.apiKey || undefined,
      accessToken: credentials.accessToken || undefined,
      workflowToken: credentials.workflowToken || undefined,
      workflowTokenExpiresAt: credentials.workflowToken ? tokenExpiry(credentials.workflowTokenExpiresAt) : undefined,
    },
    problems,
    warnings,
  };
}

/** The stored expiry (ms since the epoch as text, or an ISO date); nothing usable means "unknown". */
export function tokenExpiry(value: string | undefined): number | undefined {
  if (value === undefined || value.trim() === '') return undefined;
  const n = /^\d+$/.test(value.trim()) ? Number(value) : Date.parse(value);
  return Number.isFinite(n) ? n : undefined;
}

/** One error naming every bad setting, for getClient() and the admin endpoints. */
export function configError(label: string, problems: Record<string, string>): MediaSpacesError {
  const list = Object.entries(problems)
    .map(([field, problem]) => settingProblem(configLabel(field), problem))
    .join('; ');
  return MediaSpacesError.invalidInput(`Media Spaces config ${label}: ${list}`, { ...problems });
}

/** The config dialog's label of a setting (the catalogue file: the runtime's RED is not at hand in the admin routes). */
function configLabel(field: string): string {
  return dialogLabels(undefined, 'media-spaces-config', FIELDS)[field] ?? field;
}

function checkUrl(
  field: string,
  value: string,
  required: boolean,
  problems: Record<string, string>,
  warnings: string[],
): void {
  const problem = urlProblem(value, required);
  if (problem) {
    problems[field] = problem;
    return;
  }
  const checked = checkBaseUrl(value);
  if (checked.ok && checked.insecure) {
    warnings.push(
      `${configLabel(field)} uses plain http to ${checked.url.hostname}: the credentials travel unencrypted; use https outside a local test setup`,
    );
  }
}

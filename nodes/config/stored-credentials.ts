import { checkBaseUrl, UUID_PATTERN } from '../../lib/rules';
import type { Credentials } from './config-settings';

/**
 * Where a config node's stored credentials may be sent: only to the settings
 * they were deployed with, as Node-RED's own http request node keeps its
 * stored password for its configured target. An editor user who may call the
 * service (media-spaces.write) but not deploy or read credentials must not be
 * able to name another address and have the runtime send the key there.
 *
 * Each credential belongs to its own area:
 * - the API key and the sign-in token to the workflow area: the Workflow URL,
 *   the Path prefix, the Space ID and the TLS verification setting;
 * - the access token to the live-capture area: the live-capture address (the
 *   Live capture URL, or the Workflow URL when it is empty), the Space ID and
 *   the TLS verification setting.
 * URLs are compared as the client joins them (origin and path without
 * trailing slashes), so "HTTP://Host:80/" and "http://host" are one address.
 */

export type StoredName = 'apiKey' | 'workflowToken' | 'accessToken';

/** One key per area; undefined when a setting the area needs is missing or malformed. */
interface CredentialTargets {
  workflow?: string;
  liveCapture?: string;
}

/** The settings that decide where requests go, as readConfigSettings gives them. */
interface TargetSettings {
  workflowUrl: string;
  liveCaptureUrl: string;
  spaceId: string;
  workflowPrefix: string;
  rejectUnauthorized: boolean;
}

/** The stored credentials the requested settings may use, and the stored ones they may not. */
interface StoredForTarget {
  usable: Credentials;
  /** Stored credentials left out because their area's settings differ from the deployed ones. */
  refused: StoredName[];
}

/** A config node that can hand out its stored credentials for the settings they belong to. */
export interface StoredCredentialSource {
  /** `fields`: the config node's properties as the editor sends them (URLs, space, prefix, TLS). */
  storedCredentialsFor(fields: Record<string, unknown>): StoredForTarget;
}

export function isStoredCredentialSource(node: unknown): node is StoredCredentialSource {
  return typeof (node as Partial<StoredCredentialSource> | null)?.storedCredentialsFor === 'function';
}

/** The areas' targets of a config node's properties (deployed, or as a dialog sends them). */
export function credentialTargets(fields: Record<string, unknown>): CredentialTargets {
  // zod loads with the first config node or dialog request, not at Node-RED start
  const { readConfigSettings } = require('./settings') as typeof import('./settings');
  const { settings, problems } = readConfigSettings(fields);
  const targets = targetsOf(settings);
  // a bad prefix reads as the default one: not the prefix the credential was deployed with
  return 'workflowPrefix' in problems ? { liveCapture: targets.liveCapture } : targets;
}

function targetsOf(settings: TargetSettings): CredentialTargets {
  const space = settings.spaceId.trim();
  if (!UUID_PATTERN.test(space)) return {};
  const tls = settings.rejectUnauthorized ? 'verify' : 'no-verify';
  const workflowRoot = rootOf(settings.workflowUrl);
  const liveRoot = rootOf(settings.liveCaptureUrl.trim() || settings.workflowUrl);
  return {
    workflow: workflowRoot && JSON.stringify([workflowRoot, settings.workflowPrefix, space.toLowerCase(), tls]),
    liveCapture: liveRoot && JSON.stringify([liveRoot, space.toLowerCase(), tls]),
  };
}

/** The deployed credentials whose area the requested settings reach exactly as deployed. */
export function storedForTarget(
  deployed: CredentialTargets,
  stored: Credentials,
  requested: Record<string, unknown>,
): StoredForTarget {
  const wanted = credentialTargets(requested);
  const same = (area: keyof CredentialTargets) => deployed[area] !== undefined && deployed[area] === wanted[area];
  const usable: Credentials = {};
  const refused: StoredName[] = [];
  if (same('workflow')) {
    usable.apiKey = stored.apiKey || undefined;
    usable.workflowToken = stored.workflowToken || undefined;
    if (usable.workflowToken) usable.workflowTokenExpiresAt = stored.workflowTokenExpiresAt;
  } else {
    if (stored.apiKey) refused.push('apiKey');
    if (stored.workflowToken) refused.push('workflowToken');
  }
  if (same('liveCapture')) usable.accessToken = stored.accessToken || undefined;
  else if (stored.accessToken) refused.push('accessToken');
  return { usable, refused };
}

/** Where the client sends requests for a base URL: origin and path, no trailing slash, no user info. */
function rootOf(value: string): string | undefined {
  const checked = checkBaseUrl(value);
  if (!checked.ok) return undefined;
  return `${checked.url.origin}${checked.url.pathname.replace(/\/+$/, '')}`;
}

/**
 * Why an area was not tried with a stored credential, for an editor user who
 * changed a setting (or an attacker naming their own server).
 */
export function refusalSentence(area: 'workflow' | 'liveCapture', refused: StoredName[], goal: string): string {
  if (area === 'liveCapture') {
    return `the stored access token is only sent to the deployed Live capture URL (with its Space ID and TLS setting); type the token to ${goal}.`;
  }
  const key = refused.includes('apiKey');
  const token = refused.includes('workflowToken');
  const what = key && token ? 'API key and sign-in token are' : key ? 'API key is' : 'sign-in token is';
  const advice = key ? 'type the key' : 'Sign in again or type an API key';
  return `the stored ${what} only sent to the deployed Workflow URL (with its Path prefix, Space ID and TLS setting); ${advice} to ${goal}.`;
}

import { z } from 'zod';
import { WORKFLOW_PREFIXES } from '../../lib/client';

const DEFAULT_TIMEOUT_MS = 30_000;
const DEFAULT_RETRIES = 3;
const MAX_RETRIES = 10;

const blank = (v: unknown) => v === undefined || v === null || v === '';
const orDefault = (fallback: unknown) => (v: unknown) => (blank(v) ? fallback : v);
const text = () => z.preprocess((v) => (typeof v === 'string' ? v.trim() : ''), z.string());

/**
 * The config node's settings as the editor stores them (strings from text
 * boxes, booleans from check boxes). URLs and the space id are checked by
 * parseConfig with lib/rules, which also gives the warnings.
 */
export const ConfigSettings = z.object({
  workflowUrl: text(),
  liveCaptureUrl: text(),
  spaceId: text(),
  workflowPrefix: z.preprocess(
    orDefault(WORKFLOW_PREFIXES[0]),
    z.enum(WORKFLOW_PREFIXES, { error: `must be ${WORKFLOW_PREFIXES.join(' or ')}` }),
  ),
  timeout: z.preprocess(
    orDefault(DEFAULT_TIMEOUT_MS),
    z.coerce
      .number({ error: 'must be a positive number of milliseconds' })
      .positive({ error: 'must be a positive number of milliseconds' }),
  ),
  retries: z.preprocess(
    orDefault(DEFAULT_RETRIES),
    z.coerce
      .number({ error: `must be a whole number from 0 to ${MAX_RETRIES}` })
      .int({ error: `must be a whole number from 0 to ${MAX_RETRIES}` })
      .min(0, { error: `must be a whole number from 0 to ${MAX_RETRIES}` })
      .max(MAX_RETRIES, { error: `must be a whole number from 0 to ${MAX_RETRIES}` }),
  ),
  // anything but an explicit "off" keeps certificate checks on
  rejectUnauthorized: z.preprocess((v) => v !== false && v !== 'false', z.boolean()),
});
export type ConfigSettings = z.infer<typeof ConfigSettings>;

/** Each setting read by its schema; a bad one is named in `problems` and left at its default. */
export function readConfigSettings(fields: Record<string, unknown>): {
  settings: ConfigSettings;
  problems: Record<string, string>;
} {
  const problems: Record<string, string> = {};
  const settings: Record<string, unknown> = {};
  for (const [key, schema] of Object.entries(ConfigSettings.shape)) {
    const result = schema.safeParse(fields[key]);
    if (result.success) settings[key] = result.data;
    else problems[key] = result.error.issues[0]?.message ?? 'is not valid';
  }
  const fallback = ConfigSettings.parse({});
  return { settings: { ...fallback, ...settings }, problems };
}

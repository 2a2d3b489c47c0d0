import { CoordinationError } from '../../lib/coordination';
import type { UnreachablePolicy } from '../shared/coordination-provider';
import type { NodeAPI } from '../shared/node-red-types';
import { dialogLabels, readSettings, settingsSchema } from '../shared/settings';
import { FIELDS } from './fields';

/** The config node's properties as the editor stores them, checked once per deploy. */
export interface CoordinationSettings {
  url: string;
  keyPrefix: string;
  leaseMs: number;
  doneTtlMs: number;
  /** What a schedule does with a slot while Redis cannot be used. */
  whenUnreachable: UnreachablePolicy;
}

const CoordinationFields = settingsSchema(FIELDS);
const DAY_MS = 24 * 3600_000;

/**
 * The settings, or CoordinationError `invalid_config` naming each bad one by
 * its label in the dialog (by its key where RED's catalogue is not at hand).
 */
export function parseCoordinationSettings(
  def: Record<string, unknown>,
  RED?: Pick<NodeAPI, '_'>,
): CoordinationSettings {
  const { settings, problems } = readSettings(CoordinationFields, def);
  const labels = dialogLabels(RED, 'media-spaces-coordination', FIELDS);
  const list = Object.entries(problems).map(([key, rule]) => {
    // the url's rule shows the url itself, and never its credentials
    const got = key === 'url' ? '' : `, got ${JSON.stringify(def[key])}`;
    return `${labels[key] ?? key} ${rule}${got}`;
  });
  if (list.length > 0) throw new CoordinationError('invalid_config', list.join('; '));
  return {
    url: settings.url,
    keyPrefix: settings.keyPrefix,
    leaseMs: settings.leaseMs,
    doneTtlMs: Math.round(settings.doneTtlDays * DAY_MS),
    whenUnreachable: settings.whenUnreachable,
  };
}

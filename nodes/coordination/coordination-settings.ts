import { CoordinationError } from '../../lib/coordination';
import type { UnreachablePolicy } from '../shared/coordination-provider';
import type { NodeAPI } from '../shared/node-red-types';
import { dialogLabels, readSettings, settingProblems, settingsSchema } from '../shared/settings';
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

/** The settings, or CoordinationError `invalid_config` naming each bad one as every node does (setting-name.ts). */
export function parseCoordinationSettings(
  def: Record<string, unknown>,
  RED?: Pick<NodeAPI, '_'>,
): CoordinationSettings {
  const { settings, problems } = readSettings(
    CoordinationFields,
    def,
    dialogLabels(RED, 'media-spaces-coordination', FIELDS),
  );
  if (Object.keys(problems).length > 0) throw new CoordinationError('invalid_config', settingProblems(problems));
  return {
    url: settings.url,
    keyPrefix: settings.keyPrefix,
    leaseMs: settings.leaseMs,
    doneTtlMs: Math.round(settings.doneTtlDays * DAY_MS),
    whenUnreachable: settings.whenUnreachable,
  };
}

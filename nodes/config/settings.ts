import type { z } from 'zod';
import { readSettings, settingsSchema } from '../shared/settings';
import { FIELDS } from './fields';

/** The config node's settings as the editor stores them (strings from text boxes, booleans from check boxes). */
const ConfigSettings = settingsSchema(FIELDS);
type ConfigSettings = z.infer<typeof ConfigSettings>;

/** Each setting read by its field's rule; a bad one is named in `problems` by its key and left at its default. */
export function readConfigSettings(fields: Record<string, unknown>): {
  settings: ConfigSettings;
  problems: Record<string, string>;
} {
  return readSettings(ConfigSettings, fields);
}

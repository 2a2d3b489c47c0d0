import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { isPlainObject } from '../../lib/guards';
import type { FieldTable } from './fields';
import type { NodeAPI } from './node-red-types';
import { type LabelLookup, settingName, translatorLookup } from './setting-name';

/**
 * The runtime's lookup of a node's dialog labels (setting-name.ts): Node-RED's
 * catalogue in the editor's language where the runtime has it loaded, else the
 * node's en-US catalogue file (nodes/<node>/locales/en-US/<type>.json), read once.
 */
function runtimeLabelLookup(RED: Pick<NodeAPI, '_'> | undefined, type: string): LabelLookup {
  const translate = RED?._;
  const loaded = translatorLookup(translate ? (id) => translate.call(RED, id) : undefined, type);
  return (labelKey) => loaded(labelKey) ?? catalogueLabels(type)[labelKey];
}

/** How errors and warnings name each setting of the node: as its dialog labels it (setting-name.ts). */
export function dialogLabels(
  RED: Pick<NodeAPI, '_'> | undefined,
  type: string,
  fields: FieldTable,
): Record<string, string> {
  const lookup = runtimeLabelLookup(RED, type);
  const labels: Record<string, string> = {};
  for (const [key, field] of Object.entries(fields)) labels[key] = settingName(lookup, key, field);
  return labels;
}

const catalogues = new Map<string, Record<string, string>>();

function catalogueLabels(type: string): Record<string, string> {
  let labels = catalogues.get(type);
  if (labels) return labels;
  labels = {};
  try {
    const folder = type.replace(/^media-spaces-/, '');
    const file = join(__dirname, '..', folder, 'locales', 'en-US', `${type}.json`);
    const found = (JSON.parse(readFileSync(file, 'utf8')) as Record<string, { label?: unknown }>)[type]?.label;
    if (isPlainObject(found)) {
      for (const [key, value] of Object.entries(found)) if (typeof value === 'string') labels[key] = value;
    }
  } catch {
    // without the catalogue the field's key still identifies the setting
  }
  catalogues.set(type, labels);
  return labels;
}

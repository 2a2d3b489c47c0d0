import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { isPlainObject } from '../../lib/guards';
import type { NodeAPI } from './node-red-types';

/**
 * A label of a node's dialog: Node-RED's catalogue in the editor's language
 * where the runtime has it loaded, else the node's en-US catalogue file
 * (nodes/<node>/locales/en-US/<type>.json), read once.
 */
export function dialogLabel(RED: Pick<NodeAPI, '_'> | undefined, type: string, label: string): string | undefined {
  const id = `${type}.label.${label}`;
  const text = RED?._?.(id);
  if (typeof text === 'string' && text !== '' && !text.endsWith(id)) return text;
  return catalogueLabels(type)[label];
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

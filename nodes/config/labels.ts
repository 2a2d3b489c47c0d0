import { readFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * The config dialog's field labels, read from its locale file: the runtime's
 * messages about a setting name it as the dialog does ("Workflow URL is
 * required"), from the one place the dialog's labels are written.
 */
let labels: Record<string, string> | undefined;

export function configLabel(field: string): string {
  labels ??= loadLabels();
  return labels[field] ?? field;
}

function loadLabels(): Record<string, string> {
  try {
    const file = join(__dirname, 'locales', 'en-US', 'media-spaces-config.json');
    const parsed = JSON.parse(readFileSync(file, 'utf8')) as { 'media-spaces-config'?: { label?: unknown } };
    const found = parsed['media-spaces-config']?.label;
    if (found === null || typeof found !== 'object') return {};
    return Object.fromEntries(Object.entries(found).filter((e): e is [string, string] => typeof e[1] === 'string'));
  } catch {
    // without the locale file the field names still identify the setting
    return {};
  }
}

import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import type { FieldTable } from '../../nodes/shared/fields';
import { dialogLabels, readSettings, settingsSchema, settingsWithWarnings } from '../../nodes/shared/settings';
import { type EditorDefinition, editorDefinitions } from '../support/editor-definitions';
import { ROOT } from '../support/node-modules';

/**
 * Each node's field table is the one place its fields are written; the
 * dialog's `defaults` and the runtime's schema both come from it. This checks
 * the outcome on what users get, the built dialog and the runtime's schema:
 * the same fields, the dialog's defaults read by the runtime without a
 * problem, and no value the dialog accepts that the runtime refuses.
 */

const NODE_FOLDERS = readdirSync(join(ROOT, 'nodes'), { withFileTypes: true })
  .filter((d) => d.isDirectory() && !['shared', 'sidebar'].includes(d.name))
  .map((d) => d.name);

/** Values a dialog's text boxes, check boxes and selects can hold. */
const SAMPLES: unknown[] = [
  '',
  ' ',
  '0',
  '1',
  '-1',
  '2.5',
  '19',
  '20',
  '100',
  '101',
  '999',
  '1000',
  '3600000',
  '3600001',
  '365',
  '366',
  'abc',
  'true',
  'false',
  true,
  false,
  0,
  5,
  'active',
  'idle',
  'sleeping',
  'skip',
  'alone',
  'yaml',
  'file',
  'editor',
  'all',
  'page',
  'split',
  'redis://127.0.0.1:6379',
  'media-spaces:',
  'Europe/London',
];

/** Where a dialog and the runtime's schema disagree about a node's fields. */
function disagreements(fields: FieldTable, definition: EditorDefinition): string[] {
  const found: string[] = [];
  const schema = settingsSchema(fields);
  const expected = new Set(['name']);
  for (const [key, field] of Object.entries(fields)) {
    if (field.value === undefined) continue;
    expected.add(key);
    if (field.types) expected.add(`${key}Type`);
  }
  const keys = new Set(Object.keys(definition.defaults));
  for (const key of expected) if (!keys.has(key)) found.push(`${key}: in the runtime's schema, not in the dialog`);
  for (const key of keys) if (!expected.has(key)) found.push(`${key}: in the dialog, not in the runtime's schema`);

  const stored: Record<string, unknown> = {};
  for (const [key, property] of Object.entries(definition.defaults)) stored[key] = property.value;
  for (const [key, field] of Object.entries(fields)) {
    const property = definition.defaults[key];
    if (field.value === undefined || !property) continue;
    if (JSON.stringify(property.value) !== JSON.stringify(field.value))
      found.push(`${key}: the dialog's default ${JSON.stringify(property.value)} is not the table's`);
    const valid = property.validate?.call({ ...stored }, property.value);
    // a required field left blank is refused until the user fills it in, as meant
    const toFillIn = field.required && property.value === '';
    if (valid !== undefined && valid !== true && !toFillIn)
      found.push(`${key}: the dialog refuses its own default (${valid})`);
  }
  const { problems } = readSettings(schema, { id: 'n', type: 't', ...stored });
  for (const [label, rule] of Object.entries(problems))
    found.push(`${label}: the runtime refuses the dialog's default (${rule})`);

  for (const [key, field] of Object.entries(fields)) {
    const property = definition.defaults[key];
    if (field.value === undefined || field.types || !property?.validate) continue;
    for (const sample of SAMPLES) {
      const node = { ...stored, [key]: sample };
      if (property.validate.call(node, sample) !== true) continue;
      const read = readSettings(schema, { id: 'n', type: 't', ...node });
      if (Object.keys(read.problems).length > 0)
        found.push(`${key}: the dialog accepts ${JSON.stringify(sample)}, the runtime refuses it`);
    }
  }
  return found;
}

/** The node's `this._` in the editor, over its en-US catalogue: what the dialog's validators name a setting with. */
function translator(folder: string, type: string): (id: string) => string {
  const file = join(ROOT, 'nodes', folder, 'locales', 'en-US', `${type}.json`);
  const labels = (JSON.parse(readFileSync(file, 'utf8'))[type]?.label ?? {}) as Record<string, string>;
  return (id) => labels[id.slice(`${type}.label.`.length)] ?? id;
}

/** How many bad settings both the dialog and the runtime refused and were compared. */
let compared = 0;

/** Where the dialog and the runtime word the same bad setting differently. */
function wordings(folder: string, fields: FieldTable, definition: EditorDefinition): string[] {
  const type = `media-spaces-${folder}`;
  const schema = settingsSchema(fields);
  const labels = dialogLabels(undefined, type, fields);
  const stored: Record<string, unknown> = {};
  for (const [key, property] of Object.entries(definition.defaults)) stored[key] = property.value;
  const found: string[] = [];
  for (const [key, field] of Object.entries(fields)) {
    const property = definition.defaults[key];
    if (field.value === undefined || field.types || !property?.validate) continue;
    // what the dialog can store there: text in a text box (a number field's too), a flag in a check box
    const storable = (sample: unknown) => typeof sample === typeof field.value || typeof sample === 'string';
    for (const sample of SAMPLES.filter(storable)) {
      const node = { ...stored, [key]: sample, type, _: translator(folder, type) };
      const dialog = property.validate.call(node, sample);
      if (dialog === true || dialog === false) continue;
      const warned: string[] = [];
      settingsWithWarnings(schema, { id: 'n', type, z: '', ...stored, [key]: sample }, labels, (w) => warned.push(w));
      if (warned.length > 0) compared++;
      if (warned.length > 0 && warned[0] !== `${dialog}; using the default`)
        found.push(`${key} = ${JSON.stringify(sample)}: the dialog says "${dialog}", the runtime "${warned[0]}"`);
    }
  }
  return found;
}

describe('field tables: the dialog and the runtime read the same fields', () => {
  const tables: Record<string, FieldTable> = {};
  const definitions: Record<string, EditorDefinition> = {};

  beforeAll(async () => {
    for (const folder of NODE_FOLDERS) {
      const path = join(ROOT, 'nodes', folder, 'fields.ts');
      if (!existsSync(path)) continue;
      tables[folder] = (await import(path)).FIELDS;
      Object.assign(definitions, editorDefinitions(join(ROOT, 'dist', 'nodes', folder)));
    }
  });

  it('every node has a field table and a dialog built from it', () => {
    expect(Object.keys(tables).sort()).toEqual([...NODE_FOLDERS].sort());
    for (const folder of NODE_FOLDERS) expect(definitions[`media-spaces-${folder}`], folder).toBeDefined();
  });

  for (const folder of NODE_FOLDERS) {
    it(`media-spaces-${folder}: same fields, defaults the runtime reads, no value only the dialog accepts`, () => {
      expect(disagreements(tables[folder], definitions[`media-spaces-${folder}`])).toEqual([]);
    });
  }

  for (const folder of NODE_FOLDERS) {
    it(`media-spaces-${folder}: a bad setting is named and worded by the runtime as its dialog does`, () => {
      expect(wordings(folder, tables[folder], definitions[`media-spaces-${folder}`])).toEqual([]);
    });
  }

  it('compared the wording of bad settings of several nodes', () => {
    expect(compared).toBeGreaterThan(20);
  });

  it('finds a disagreement: a default changed in the dialog, a field missing, a validator looser than the rule', () => {
    const folder = 'list-workflows';
    const original = definitions[`media-spaces-${folder}`];
    const { mode: _dropped, ...rest } = original.defaults;
    const doctored: EditorDefinition = {
      ...original,
      defaults: {
        ...rest,
        statusFilter: { value: 'running' },
        maxResults: { value: '', validate: () => true },
        extra: { value: '' },
      },
    };
    const found = disagreements(tables[folder], doctored);
    expect(found).toEqual(
      expect.arrayContaining([
        "mode: in the runtime's schema, not in the dialog",
        "extra: in the dialog, not in the runtime's schema",
        'statusFilter: the dialog\'s default "running" is not the table\'s',
        expect.stringMatching(/^statusFilter: the runtime refuses the dialog's default/),
        'maxResults: the dialog accepts "0", the runtime refuses it',
        'maxResults: the dialog accepts "abc", the runtime refuses it',
      ]),
    );
    // the untouched fields agree
    expect(found.filter((f) => f.startsWith('server') || f.startsWith('pageToken'))).toEqual([]);
  });
});

import { z } from 'zod';
import { MediaSpacesError } from '../../lib/errors';
import { dialogLabels } from './dialog-labels';
import { defaultType, type Field, type FieldTable, type FieldValue, type SettingKey, type TypeKey } from './fields';
import type { InputMap, InputSpec } from './inputs';
import type { NodeDef } from './node-red-types';
import { settingProblem, UNTIL_FIXED } from './setting-name';

// the runtime's naming of settings, with the reading of them
export { dialogLabels };

/**
 * What the runtime derives from a node's field table (nodes/shared/fields.ts):
 * the zod schema of its settings, the map of msg overrides, the dialog's
 * labels, and the one way a bad setting is read.
 */

/** The schema of one stored setting (or, with `given`, of a value a message gives): its field's rule. */
function fieldSchema<T>(field: Field<T>, given = false): z.ZodType<T> {
  const readValue = (given && field.rule.readGiven) || field.rule.read;
  return z.unknown().transform((stored, ctx): T => {
    const read = readValue(stored);
    if (read.ok) return read.value;
    ctx.addIssue({ code: 'custom', message: read.rule });
    return z.NEVER;
  });
}

/**
 * A setting missing from the stored node (a flow saved before the field
 * existed) reads as the field's default, or as its `missing` where it has one.
 */
function withDefaults(fields: FieldTable, stored: unknown): unknown {
  if (typeof stored !== 'object' || stored === null) return stored;
  const filled: Record<string, unknown> = { ...stored };
  for (const [key, field] of Object.entries(fields)) {
    if (field.value !== undefined && filled[key] === undefined) filled[key] = field.missing ?? field.value;
  }
  return filled;
}

export type SettingsOf<F extends FieldTable> = {
  [K in SettingKey<F>]: F[K] extends { types: readonly string[] } ? unknown : FieldValue<F[K]>;
} & { [K in TypeKey<F>]?: string };

/** The runtime's schema of the node's settings, from its field table. */
export function settingsSchema<F extends FieldTable>(fields: F): z.ZodType<SettingsOf<F>> {
  const shape: Record<string, z.ZodType> = {};
  for (const [key, field] of Object.entries(fields)) {
    if (field.value === undefined) continue;
    shape[key] = field.types ? z.unknown() : fieldSchema(field);
    if (field.types) shape[`${key}Type`] = z.string().optional();
  }
  // the shape is built key by key; the table's types are what it gives
  return z.preprocess((stored) => withDefaults(fields, stored), z.object(shape)).pipe(z.custom<SettingsOf<F>>());
}

/**
 * Which msg property overrides which setting, and which inputs only a message
 * gives; an error about a setting names it as the dialog of node `type` does.
 */
export function inputMap<F extends FieldTable>(
  fields: F,
  type: string,
): { [K in keyof F]: InputSpec<z.ZodType<FieldValue<F[K]>>> } {
  const labels = dialogLabels(undefined, type, fields);
  const map: InputMap = {};
  for (const [key, field] of Object.entries(fields)) {
    if (field.message === undefined && !field.types) continue;
    map[key] = {
      message: field.message,
      payload: field.payload,
      setting: field.value === undefined ? undefined : key,
      label: field.value === undefined ? undefined : labels[key],
      typeField: field.types ? `${key}Type` : undefined,
      defaultType: defaultType(field),
      schema: fieldSchema(field, true),
    };
  }
  return map as { [K in keyof F]: InputSpec<z.ZodType<FieldValue<F[K]>>> };
}

/**
 * The one way a node reads its settings: each through its field's schema; one
 * that breaks its rule is named in `problems` by its dialog label and read as
 * its default. What the node does about problems follows from what it is: a
 * node that acts on messages refuses each with them (settingsOrError), a node
 * that runs on its own warns once and runs on the defaults (settingsWithWarnings).
 */
export function readSettings<S extends z.ZodType>(
  schema: S,
  def: Record<string, unknown>,
  labels: Partial<Record<string, string>> = {},
): { settings: z.infer<S>; problems: Record<string, string> } {
  const first = schema.safeParse(def);
  if (first.success) return { settings: first.data, problems: {} };
  const problems: Record<string, string> = {};
  const cleaned: Record<string, unknown> = { ...def };
  for (const issue of first.error.issues) {
    const key = String(issue.path[0] ?? 'settings');
    problems[labels[key] ?? key] ??= issue.message;
    delete cleaned[key];
  }
  const second = schema.safeParse(cleaned);
  if (!second.success) throw invalidSettings(problems);
  return { settings: second.data, problems };
}

/** The node's bad settings in one sentence each (the sentence every node and dialog uses), joined. */
export function settingProblems(problems: Record<string, string>): string {
  return Object.entries(problems)
    .map(([label, rule]) => settingProblem(label, rule))
    .join('; ');
}

function invalidSettings(problems: Record<string, string>): MediaSpacesError {
  return MediaSpacesError.invalidInput(`The node's settings are not valid: ${settingProblems(problems)}`, problems);
}

/** For a node acting on messages: the settings, or the error naming each bad one, which fails every message. */
export function settingsOrError<S extends z.ZodType>(
  schema: S,
  def: NodeDef,
  labels: Partial<Record<string, string>> = {},
): z.infer<S> | MediaSpacesError {
  try {
    const { settings, problems } = readSettings(schema, def, labels);
    return Object.keys(problems).length > 0 ? invalidSettings(problems) : settings;
  } catch (error) {
    // a node-level check after the fields' own (create channel's request) names its field itself
    if (error instanceof MediaSpacesError) return error;
    throw error;
  }
}

/** For a node running on its own: each bad setting warned about by its label, and its default used. */
export function settingsWithWarnings<S extends z.ZodType>(
  schema: S,
  def: NodeDef,
  labels: Partial<Record<string, string>>,
  warn: (text: string) => void,
): z.infer<S> {
  const { settings, problems } = readSettings(schema, def, labels);
  for (const [label, rule] of Object.entries(problems))
    warn(`${settingProblem(label, rule)}; ${UNTIL_FIXED.defaulted}`);
  return settings;
}

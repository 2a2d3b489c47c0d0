import type { z } from 'zod';
import { MediaSpacesError } from '../../lib/errors';
import type { NodeDef } from './node-red-types';

/**
 * A node's settings read through its zod schema, the one source of their
 * types, defaults, bounds and enums. The editor stores numbers and booleans as
 * text, so schemas use `z.coerce` (or preprocess) where a text box feeds a
 * number. A bad setting is refused with one error naming each field the way
 * the edit dialog labels it (`labels`), never with zod's own wording of paths.
 */
export function parseSettings<S extends z.ZodType>(
  schema: S,
  def: NodeDef,
  labels: Partial<Record<string, string>> = {},
): z.infer<S> {
  const result = schema.safeParse(def);
  if (result.success) return result.data;
  const fieldErrors: Record<string, string> = {};
  for (const issue of result.error.issues) {
    const key = issue.path.map(String).join('.') || 'settings';
    fieldErrors[labels[key] ?? key] ??= issue.message;
  }
  const list = Object.entries(fieldErrors).map(([field, message]) => `${field}: ${message}`);
  throw MediaSpacesError.invalidInput(`The node's settings are not valid: ${list.join('; ')}`, fieldErrors);
}

/**
 * parseSettings for an operation node: a bad setting is kept as the error, so
 * that each message fails with the reason instead of the deploy failing.
 */
export function settingsOrError<S extends z.ZodType>(
  schema: S,
  def: NodeDef,
  labels: Partial<Record<string, string>> = {},
): z.infer<S> | MediaSpacesError {
  try {
    return parseSettings(schema, def, labels);
  } catch (error) {
    if (error instanceof MediaSpacesError) return error;
    throw error;
  }
}

/**
 * `{{path}}` templates in window settings, resolved against the slot, the
 * window and (for follow-up jobs) the channel the create-channel node returned:
 * `{{channel.id}}`, `{{channel.recording.outputs[0].location_url}}`,
 * `{{window.name}}`, `{{slot.start}}`.
 *
 * - A string that is exactly one template takes the value's own type (a
 *   number stays a number); inside longer text, values are written as text
 *   (objects as JSON).
 * - A path that leads nowhere resolves to an empty string and is reported
 *   in `unresolved`.
 * - Keys of objects are never templated.
 */

import { quoteShort } from '../errors';

// The text between the braces is trimmed in code: `\{\{\s*([^{}]*?)\s*\}\}` made the engine try every
// split of the blanks between \s* and the group, and "{{" followed by 5,000 blanks took 50 s.
const TEMPLATE = /\{\{([^{}]*)\}\}/g;
const WHOLE = /^\{\{([^{}]*)\}\}$/;
const PATH = /^[A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$-]*|\[\d+\]|\["[^"\]]*"\]|\['[^'\]]*'\])*$/;

export type TemplateContext = Record<string, unknown>;

/**
 * The paths read so far, split: a schedule's templates are few and each start renders them again (50
 * windows opening at one second render the same ones 50 times).
 */
const pathsRead = new Map<string, readonly (string | number)[] | null>();
const PATHS_KEPT = 1024;

/** The segments of a path such as `channel.recording.outputs[0].location_url`. */
export function pathSegments(path: string): readonly (string | number)[] | undefined {
  const known = pathsRead.get(path);
  if (known !== undefined) return known ?? undefined;
  const segments = PATH.test(path) ? Object.freeze(splitPath(path)) : null;
  if (pathsRead.size >= PATHS_KEPT) pathsRead.clear();
  pathsRead.set(path, segments);
  return segments ?? undefined;
}

function splitPath(path: string): (string | number)[] {
  const out: (string | number)[] = [];
  for (const m of path.matchAll(/([A-Za-z_$][\w$-]*)|\[(\d+)\]|\["([^"\]]*)"\]|\['([^'\]]*)'\]/g)) {
    if (m[1] !== undefined) out.push(m[1]);
    else if (m[2] !== undefined) out.push(Number(m[2]));
    else out.push(m[3] ?? m[4]);
  }
  return out;
}

/** The value at a path, or undefined. Never reads inherited properties. */
export function lookup(context: TemplateContext, path: string): unknown {
  const segments = pathSegments(path);
  if (!segments) return undefined;
  let value: unknown = context;
  for (const seg of segments) {
    if (value === null || value === undefined) return undefined;
    if (Array.isArray(value)) {
      if (typeof seg !== 'number') return undefined;
      value = value[seg];
    } else if (typeof value === 'object') {
      if (!Object.hasOwn(value, seg)) return undefined;
      value = (value as Record<string, unknown>)[String(seg)];
    } else return undefined;
  }
  return value;
}

function asText(value: unknown): string {
  if (value === undefined || value === null) return '';
  if (typeof value === 'object') return JSON.stringify(value);
  return String(value);
}

/** Resolves every template inside a value (deeply); unknown paths are added to `unresolved`. */
export function renderTemplates<T>(value: T, context: TemplateContext, unresolved: Set<string> = new Set()): T {
  return render(value, context, unresolved) as T;
}

function render(value: unknown, context: TemplateContext, unresolved: Set<string>): unknown {
  if (typeof value === 'string') {
    const whole = WHOLE.exec(value);
    if (whole) {
      const path = whole[1].trim();
      const v = lookup(context, path);
      if (v === undefined || v === null) {
        unresolved.add(path);
        return '';
      }
      return typeof v === 'object' ? structuredClone(v) : v;
    }
    if (!value.includes('{{')) return value;
    return value.replace(TEMPLATE, (_, inner: string) => {
      const path = inner.trim();
      const v = lookup(context, path);
      if (v === undefined || v === null) unresolved.add(path);
      return asText(v);
    });
  }
  if (Array.isArray(value)) return value.map((item) => render(item, context, unresolved));
  if (value !== null && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) out[k] = render(v, context, unresolved);
    return out;
  }
  return value;
}

export interface TemplateRef {
  /** the text between the braces */
  path: string;
  /** the first segment (`window`, `slot`, `channel`, ...) */
  root: string | undefined;
  /** where in the value (a path of keys and indexes) */
  at: (string | number)[];
}

export interface TemplateProblem {
  at: (string | number)[];
  message: string;
}

/** Every template inside a value, with where it is. */
export function templateRefs(value: unknown, at: (string | number)[] = []): TemplateRef[] {
  if (typeof value === 'string') {
    const refs: TemplateRef[] = [];
    for (const m of value.matchAll(TEMPLATE)) {
      const path = m[1].trim();
      const segments = pathSegments(path);
      refs.push({ path, root: segments ? String(segments[0]) : undefined, at });
    }
    return refs;
  }
  if (Array.isArray(value)) return value.flatMap((v, i) => templateRefs(v, [...at, i]));
  if (value !== null && typeof value === 'object') {
    return Object.entries(value).flatMap(([k, v]) => templateRefs(v, [...at, k]));
  }
  return [];
}

/**
 * Checks the templates of a value: well-formed, rooted at an allowed name,
 * and, for roots whose fields are known, naming a known field.
 */
export function checkTemplates(
  value: unknown,
  allowed: Record<string, readonly string[] | 'any'>,
  at: (string | number)[] = [],
): TemplateProblem[] {
  const problems: TemplateProblem[] = [];
  const check = (text: string, where: (string | number)[]): void => {
    const opens = text.split('{{').length - 1;
    const matches = [...text.matchAll(TEMPLATE)];
    if (opens !== matches.length) {
      problems.push({ at: where, message: `${quoteShort(text)} has a "{{" without a matching "}}"` });
      return;
    }
    for (const [, inner] of matches) {
      const path = inner.trim();
      const segments = pathSegments(path);
      if (!segments) {
        problems.push({
          at: where,
          message: `template ${quoteShort(`{{${path}}}`)} is not a path such as window.name or channel.id`,
        });
        continue;
      }
      const root = String(segments[0]);
      // own keys only: a template such as {{constructor.name}} must not reach Object.prototype
      const fields = Object.hasOwn(allowed, root) ? allowed[root] : undefined;
      if (fields === undefined) {
        const names = Object.keys(allowed)
          .map((r) => `${r}.`)
          .join(', ');
        problems.push({ at: where, message: `template ${quoteShort(`{{${path}}}`)} must start with one of ${names}` });
        continue;
      }
      if (fields !== 'any' && segments.length > 1 && !fields.includes(String(segments[1]))) {
        problems.push({
          at: where,
          message: `template ${quoteShort(`{{${path}}}`)}: ${root} has no field "${segments[1]}" (known: ${fields.join(', ')})`,
        });
      } else if (fields !== 'any' && segments.length === 1) {
        problems.push({
          at: where,
          message: `template ${quoteShort(`{{${path}}}`)} needs a field, e.g. {{${root}.${fields[0]}}}`,
        });
      }
    }
  };
  const walk = (v: unknown, where: (string | number)[]): void => {
    if (typeof v === 'string') check(v, where);
    else if (Array.isArray(v)) {
      for (const [i, item] of v.entries()) walk(item, [...where, i]);
    } else if (v !== null && typeof v === 'object')
      for (const [k, item] of Object.entries(v)) walk(item, [...where, k]);
  };
  walk(value, at);
  return problems;
}

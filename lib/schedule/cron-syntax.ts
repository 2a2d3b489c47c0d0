import { MediaSpacesBaseError } from '../base-error';
import { quoteShort } from '../quote';

/**
 * The syntax half of the cron rules (fields, names, items, with a message
 * naming the field and value at fault), free of node-cron so that the
 * schedule editor can check a cron field as it is typed in the browser.
 */

export interface CronFields {
  second: number[];
  minute: number[];
  hour: number[];
  dayOfMonth: (number | string)[];
  month: number[];
  dayOfWeek: (number | string)[];
}

const NICKNAMES: Record<string, string> = {
  '@yearly': '0 0 1 1 *',
  '@annually': '0 0 1 1 *',
  '@monthly': '0 0 1 * *',
  '@weekly': '0 0 * * 0',
  '@daily': '0 0 * * *',
  '@midnight': '0 0 * * *',
  '@hourly': '0 * * * *',
};

const MONTH_NAMES = [
  'january',
  'february',
  'march',
  'april',
  'may',
  'june',
  'july',
  'august',
  'september',
  'october',
  'november',
  'december',
];
const DAY_NAMES = ['sunday', 'monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday'];

export interface FieldDef {
  key: keyof CronFields;
  label: string;
  min: number;
  max: number;
  names?: string[];
  nameBase?: number;
}

export const FIELDS: FieldDef[] = [
  { key: 'second', label: 'second', min: 0, max: 59 },
  { key: 'minute', label: 'minute', min: 0, max: 59 },
  { key: 'hour', label: 'hour', min: 0, max: 23 },
  { key: 'dayOfMonth', label: 'day of month', min: 1, max: 31 },
  { key: 'month', label: 'month', min: 1, max: 12, names: MONTH_NAMES, nameBase: 1 },
  { key: 'dayOfWeek', label: 'day of week', min: 0, max: 7, names: DAY_NAMES, nameBase: 0 },
];

/** One comma-separated item of a field. */
export type CronPart =
  | { kind: 'any' }
  | { kind: 'value'; value: number }
  | { kind: 'range'; from: number; to: number; step: number }
  | { kind: 'every'; step: number }
  | { kind: 'last' } // L (day of month)
  | { kind: 'lastOffset'; offset: number } // L-n
  | { kind: 'nearestWeekday'; day: number | 'L' } // nW, LW
  | { kind: 'lastWeekday'; weekday: number } // nL (day of week)
  | { kind: 'nth'; weekday: number; nth: number }; // n#k

interface TokenizedCron {
  hasSeconds: boolean;
  /** second, minute, hour, day of month, month, day of week */
  fields: CronPart[][];
}

/** A cron expression that cannot be read; the message names the field and what is wrong with it. */
export class CronSyntaxError extends MediaSpacesBaseError<'invalid_cron'> {
  constructor(message: string) {
    super('CronSyntaxError', 'invalid_cron', message);
  }
}

function nameOrNumber(text: string, def: FieldDef): number {
  if (/^\d+$/.test(text)) {
    const n = Number.parseInt(text, 10);
    if (n < def.min || n > def.max) throw new CronSyntaxError(`${def.label} ${n} out of range ${def.min}-${def.max}`);
    return n;
  }
  if (def.names && /^[a-z]+$/i.test(text)) {
    const lower = text.toLowerCase();
    const index = def.names.findIndex((n) => n === lower || (lower.length === 3 && n.startsWith(lower)));
    if (index >= 0) return index + (def.nameBase ?? 0);
    throw new CronSyntaxError(`unknown ${def.label} name ${quoteShort(text)}`);
  }
  throw new CronSyntaxError(`${def.label} ${quoteShort(text)} is not a number${def.names ? ' or a name' : ''}`);
}

function parseStep(text: string, def: FieldDef): number {
  if (!/^\d+$/.test(text))
    throw new CronSyntaxError(`step ${quoteShort(text)} in the ${def.label} field is not a number`);
  const step = Number.parseInt(text, 10);
  if (step < 1) throw new CronSyntaxError(`step ${step} in the ${def.label} field must be at least 1`);
  return step;
}

function tokenizePart(raw: string, def: FieldDef): CronPart {
  const text = raw.trim();
  if (text === '') throw new CronSyntaxError(`empty item in the ${def.label} field`);
  if (text === '*') return { kind: 'any' };
  if (text === '?') {
    if (def.key === 'dayOfMonth' || def.key === 'dayOfWeek') return { kind: 'any' };
    throw new CronSyntaxError(`"?" is allowed only in the day-of-month and day-of-week fields`);
  }
  if (def.key === 'dayOfMonth') {
    if (/^l$/i.test(text)) return { kind: 'last' };
    let m = /^l-(\d{1,2})$/i.exec(text);
    if (m) {
      const offset = Number.parseInt(m[1], 10);
      if (offset < 1 || offset > 30) throw new CronSyntaxError(`day of month L-${offset}: offset must be 1-30`);
      return { kind: 'lastOffset', offset };
    }
    if (/^lw$/i.test(text)) return { kind: 'nearestWeekday', day: 'L' };
    m = /^(\d{1,2})w$/i.exec(text);
    if (m) return { kind: 'nearestWeekday', day: nameOrNumber(m[1], def) };
  }
  if (def.key === 'dayOfWeek') {
    // last <weekday> of the month, by number or name (5L, friL), as node-cron accepts both
    let m = /^([0-7]|[a-z]{3,})l$/i.exec(text);
    if (m) return { kind: 'lastWeekday', weekday: nameOrNumber(m[1], def) % 7 };
    m = /^([^#]+)#(\d+)$/.exec(text);
    if (m) {
      const weekday = nameOrNumber(m[1], def) % 7;
      const nth = Number.parseInt(m[2], 10);
      if (nth < 1 || nth > 5) throw new CronSyntaxError(`day of week ${text}: occurrence ${nth} must be 1-5`);
      return { kind: 'nth', weekday, nth };
    }
  }
  const slash = text.indexOf('/');
  if (slash >= 0) {
    const base = text.slice(0, slash);
    const step = parseStep(text.slice(slash + 1), def);
    if (base === '*') return { kind: 'every', step };
    const range = /^([a-z0-9]+)-([a-z0-9]+)$/i.exec(base);
    if (range) return { kind: 'range', from: nameOrNumber(range[1], def), to: nameOrNumber(range[2], def), step };
    throw new CronSyntaxError(
      `${def.label} ${quoteShort(text)}: a step needs "*" or a range before "/" (e.g. */15 or 0-30/5)`,
    );
  }
  const range = /^([a-z0-9]+)-([a-z0-9]+)$/i.exec(text);
  if (range) return { kind: 'range', from: nameOrNumber(range[1], def), to: nameOrNumber(range[2], def), step: 1 };
  return { kind: 'value', value: nameOrNumber(text, def) };
}

/** Splits an expression into fields and items, with precise errors. */
export function tokenizeCron(expression: string): TokenizedCron {
  if (typeof expression !== 'string' || expression.trim() === '') throw new CronSyntaxError('the expression is empty');
  const trimmed = expression.trim();
  let text = trimmed;
  if (text.startsWith('@')) {
    const resolved = NICKNAMES[text.toLowerCase()];
    if (!resolved) {
      throw new CronSyntaxError(
        `unknown nickname ${quoteShort(text)} (use @yearly, @monthly, @weekly, @daily or @hourly)`,
      );
    }
    text = resolved;
  }
  const parts = text.split(/\s+/);
  if (parts.length !== 5 && parts.length !== 6) {
    throw new CronSyntaxError(
      `expected 5 fields (minute hour day-of-month month day-of-week) or 6 with seconds first, got ${parts.length}`,
    );
  }
  const hasSeconds = parts.length === 6;
  const all = hasSeconds ? parts : ['0', ...parts];
  const fields = all.map((field, i) => field.split(',').map((item) => tokenizePart(item, FIELDS[i])));
  return { hasSeconds, fields };
}

/** Why an expression breaks the syntax rules, or undefined (node-cron's own check follows in cronError). */
export function cronSyntaxError(expression: unknown): string | undefined {
  if (typeof expression !== 'string') return 'the expression must be text';
  try {
    tokenizeCron(expression);
    return undefined;
  } catch (err) {
    return err instanceof CronSyntaxError ? err.message : String(err);
  }
}

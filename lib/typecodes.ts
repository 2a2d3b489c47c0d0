import { FRAME_RATES, TYPECODES } from './rules';

type Typecode = (typeof TYPECODES)[number];

/**
 * Value rules for the typecodes of variables and label parameters.
 * Each check returns `null` when the value is valid, otherwise the rule broken,
 * phrased to follow the variable's name ("Count: must be an Int16 ...").
 */

const INTEGER = /^[+-]?\d+$/;
const DECIMAL = /^[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?$/;
const TIMECODE = /^(\d{2}):(\d{2}):(\d{2})([:;])(\d{2})@(\d+(?:\.\d+)?)$/;
/**
 * Drop-frame rates: an extension of the description's HH:MM:SS:FF@rate, the broadcast
 * notation HH:MM:SS;FF@29.97 (";" before the frames), accepted for 29.97 only, the one
 * drop-frame rate among the description's rates.
 */
const DROP_FRAME_RATES: readonly string[] = ['29.97'];

const INTEGER_RANGES: Record<'Byte' | 'Int16' | 'Int32' | 'UInt32', [bigint, bigint]> = {
  Byte: [0n, 255n],
  Int16: [-32768n, 32767n],
  Int32: [-2147483648n, 2147483647n],
  UInt32: [0n, 4294967295n],
};

export const NUMERIC_TYPECODES: readonly Typecode[] = ['Byte', 'Int16', 'Int32', 'UInt32', 'Double'];

export function isTypecode(value: unknown): value is Typecode {
  return typeof value === 'string' && (TYPECODES as readonly string[]).includes(value);
}

/** Turns a value from a flow (boolean, number, string) into the wire string. */
export function toWireValue(value: unknown): string | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value === 'string') return value;
  if (typeof value === 'boolean') return value ? 'true' : 'false';
  if (typeof value === 'number' && Number.isFinite(value)) return String(value);
  if (typeof value === 'bigint') return value.toString();
  return undefined;
}

export function checkTypecode(typecode: string, value: string): string | null {
  switch (typecode) {
    case 'Boolean':
      return /^(true|false)$/i.test(value) ? null : 'must be a Boolean: true or false';
    case 'Byte':
    case 'Int16':
    case 'Int32':
    case 'UInt32': {
      const [min, max] = INTEGER_RANGES[typecode];
      // the rule's text is built only for a value that breaks it: every submission checks its values
      const rule = () => `must be ${article(typecode)} ${typecode}: a whole number from ${min} to ${max}`;
      if (!INTEGER.test(value)) return rule();
      const n = BigInt(value);
      return n < min || n > max ? rule() : null;
    }
    case 'Double':
      return DECIMAL.test(value) && Number.isFinite(Number(value)) ? null : 'must be a Double: a decimal number';
    case 'String':
      return null;
    case 'Uri':
      return checkUri(value);
    case 'TimeCode':
      return checkTimeCode(value);
    default:
      return `has an unknown typecode "${typecode}" (expected one of ${TYPECODES.join(', ')})`;
  }
}

const URI_RULE =
  'must be a Uri: a path to a file (/media/clip.mxf, C:\\media\\clip.mxf, \\\\server\\share\\clip.mxf) ' +
  'or a fully qualified URI (s3://bucket/clip.mxf, file:///media/clip.mov)';
const SCHEME = /^([A-Za-z][A-Za-z0-9+.-]*):(.*)$/s;
const WINDOWS_DRIVE_PATH = /^[A-Za-z]:[\\/][^\\/]/;
const UNC_PATH = /^\\\\[^\\/\s]+[\\/][^\\/]/;
const POSIX_PATH = /^\/[^/]/;

/**
 * The description's Uri: "path to a file, a fully qualified URI". Accepted: an absolute
 * POSIX path, a Windows drive path (`C:\media\a.mxf`, also with forward slashes) or UNC path
 * (a service may run on Windows; a one-letter "scheme" followed by a slash is read as a drive),
 * or an absolute URI with something after its scheme. Refused: empty, scheme-only (`s3:`,
 * `s3://`) and relative values, whose meaning would depend on a working directory the
 * submitter cannot know. Paths may contain spaces; URIs may not (they are percent-encoded).
 */
export function checkUri(value: string): string | null {
  if (value === '' || value.trim() !== value) return URI_RULE;
  if (WINDOWS_DRIVE_PATH.test(value) || UNC_PATH.test(value) || POSIX_PATH.test(value)) {
    return [...value].some((ch) => ch.charCodeAt(0) < 0x20) ? URI_RULE : null;
  }
  const m = SCHEME.exec(value);
  if (!m || m[1].length === 1 || /\s/.test(value)) return URI_RULE;
  // "s3:", "s3://" and "s3:///" name no file
  if (m[2].replace(/\//g, '') === '') return URI_RULE;
  try {
    new URL(value);
    return null;
  } catch {
    return URI_RULE;
  }
}

function checkTimeCode(value: string): string | null {
  const rule = `must be a TimeCode: HH:MM:SS:FF@rate with rate one of ${FRAME_RATES.join(', ')} (drop-frame: HH:MM:SS;FF@29.97)`;
  const m = TIMECODE.exec(value);
  if (!m) return rule;
  const [, hh, mm, ss, separator, ff, rate] = m;
  if (!(FRAME_RATES as readonly string[]).includes(rate)) {
    return `must be a TimeCode: frame rate ${rate} is not one of ${FRAME_RATES.join(', ')}`;
  }
  if (separator === ';' && !DROP_FRAME_RATES.includes(rate)) {
    return `must be a TimeCode: ";" before the frames marks drop-frame, which only ${DROP_FRAME_RATES.join(', ')} has; write ${hh}:${mm}:${ss}:${ff}@${rate}`;
  }
  if (Number(hh) > 23) return 'must be a TimeCode: hours must be 00 to 23';
  if (Number(mm) > 59) return 'must be a TimeCode: minutes must be 00 to 59';
  if (Number(ss) > 59) return 'must be a TimeCode: seconds must be 00 to 59';
  const frames = Math.ceil(Number(rate));
  if (Number(ff) >= frames) return `must be a TimeCode: frame ${ff} is not below the rate ${rate}`;
  // drop-frame numbering skips frames 00 and 01 at the start of every minute not divisible by ten
  if (separator === ';' && ss === '00' && Number(ff) < 2 && Number(mm) % 10 !== 0) {
    return `must be a TimeCode: ${hh}:${mm}:00;${ff} does not exist in drop-frame (frames 00 and 01 are skipped at the start of each minute except every tenth)`;
  }
  return null;
}

/**
 * "a" or "an" before a typecode, by how it is said: Int16 and Int32 start with a vowel
 * sound; Uri and UInt32 start with "you" and take "a", like Boolean, Byte and Double.
 */
function article(word: string): 'a' | 'an' {
  return /^[aeio]/i.test(word) ? 'an' : 'a';
}

export interface ParameterConstraints {
  typecode: string;
  minimum_value?: string | null;
  maximum_value?: string | null;
  increment_value?: string | null;
  options?: Record<string, string[]> | null;
}

/** Checks a label parameter's value: typecode, then minimum, maximum, increment and options. */
export function checkParameter(param: ParameterConstraints, value: string): string | null {
  const typeError = checkTypecode(param.typecode, value);
  if (typeError) return typeError;

  if (param.options && Object.keys(param.options).length > 0) {
    const allowed = new Set<string>();
    for (const [key, values] of Object.entries(param.options)) {
      allowed.add(key);
      for (const v of values ?? []) allowed.add(v);
    }
    if (!allowed.has(value)) return `must be one of the options: ${[...allowed].join(', ')}`;
  }

  if (!NUMERIC_TYPECODES.includes(param.typecode as Typecode)) return null;
  const n = Number(value);
  const min = numberOrUndefined(param.minimum_value);
  const max = numberOrUndefined(param.maximum_value);
  const step = numberOrUndefined(param.increment_value);
  if (min !== undefined && n < min) return `must be at least ${param.minimum_value}`;
  if (max !== undefined && n > max) return `must be at most ${param.maximum_value}`;
  if (step !== undefined && step > 0) {
    const steps = (n - (min ?? 0)) / step;
    if (Math.abs(steps - Math.round(steps)) > 1e-9) {
      return `must be ${min ?? 0} plus a multiple of the increment ${param.increment_value}`;
    }
  }
  return null;
}

function numberOrUndefined(value: string | null | undefined): number | undefined {
  if (value === undefined || value === null || value.trim() === '') return undefined;
  const n = Number(value);
  return Number.isFinite(n) ? n : undefined;
}

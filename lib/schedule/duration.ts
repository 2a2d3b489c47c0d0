/**
 * Window durations: `90m`, `1h30m`, `1h 30m`, `2h`, `45s`, `1d`, ISO 8601
 * (`PT1H`, `PT1H30M`, `P1DT2H`), or a number of seconds (`5400` or "5400").
 */

import { MediaSpacesBaseError } from '../base-error';
import { quoteShort } from '../quote';

export const MAX_DURATION_SECONDS = 31 * 24 * 3600;

const UNITS: Record<string, number> = { d: 86400, h: 3600, m: 60, s: 1 };

/** A duration that cannot be read, or is out of range; the message says which. */
export class DurationError extends MediaSpacesBaseError<'invalid_duration'> {
  constructor(message: string) {
    super('DurationError', 'invalid_duration', message);
  }
}

/** Seconds of a duration; throws DurationError naming what is wrong. */
export function parseDuration(value: unknown): number {
  let seconds: number | undefined;
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) throw new DurationError(`${value} is not a number of seconds`);
    seconds = value;
  } else if (typeof value === 'string') {
    const text = value.trim();
    if (/^\d+(\.\d+)?$/.test(text)) seconds = Number(text);
    else if (/^P/i.test(text)) seconds = parseIso(text);
    else seconds = parseUnits(text);
    if (seconds === undefined) {
      throw new DurationError(
        `${quoteShort(value)} is not a duration (use e.g. 90m, 1h30m, 2h, 45s, 1d, PT1H30M or a number of seconds)`,
      );
    }
  } else {
    throw new DurationError('must be a duration such as 90m, 1h30m or PT1H, or a number of seconds');
  }
  if (!(seconds > 0)) throw new DurationError(`${shown(value)} must be longer than zero`);
  if (seconds > MAX_DURATION_SECONDS) throw new DurationError(`${shown(value)} is longer than 31 days`);
  return Math.round(seconds);
}

function parseUnits(text: string): number | undefined {
  const compact = text.replace(/\s+/g, '').toLowerCase();
  if (compact === '' || !/^(\d+(\.\d+)?[dhms])+$/.test(compact)) return undefined;
  let total = 0;
  const seen = new Set<string>();
  for (const m of compact.matchAll(/(\d+(?:\.\d+)?)([dhms])/g)) {
    if (seen.has(m[2])) return undefined;
    seen.add(m[2]);
    total += Number(m[1]) * UNITS[m[2]];
  }
  return total;
}

function parseIso(text: string): number | undefined {
  const m = /^P(?:(\d+(?:\.\d+)?)D)?(?:T(?:(\d+(?:\.\d+)?)H)?(?:(\d+(?:\.\d+)?)M)?(?:(\d+(?:\.\d+)?)S)?)?$/i.exec(text);
  if (!m || text.toUpperCase() === 'P' || /T$/i.test(text)) return undefined;
  const [, d, h, mi, s] = m;
  return Number(d ?? 0) * 86400 + Number(h ?? 0) * 3600 + Number(mi ?? 0) * 60 + Number(s ?? 0);
}

/** `1h30m`, `90s`, `2d` — the compact form of a number of seconds. */
export function formatDuration(seconds: number): string {
  let rest = Math.round(seconds);
  let out = '';
  for (const [unit, size] of Object.entries(UNITS)) {
    const n = Math.floor(rest / size);
    if (n > 0) {
      out += `${n}${unit}`;
      rest -= n * size;
    }
  }
  return out || '0s';
}

function shown(value: string | number): string {
  return typeof value === 'string' ? quoteShort(value) : String(value);
}

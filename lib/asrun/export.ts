import type { Options as CsvOptions } from 'csv-stringify';
import { formatLocalIso, isValidTimeZone } from '../schedule/tz';
import type { AsRunRecord } from './record';

/** The CSV columns, one row per slot; times in the window's zone with its offset. */
export const CSV_COLUMNS = [
  'schedule',
  'schedule_id',
  'window',
  'zone',
  'title',
  'episode',
  'scheduled_start',
  'scheduled_end',
  'programme_start',
  'programme_end',
  'actual_start',
  'actual_end',
  'late_by_s',
  'outcome',
  'reason',
  'discrepancy',
  'channels',
  'outputs',
  'gaps',
  'interruptions',
  'attempts',
  'job_id',
  'job_state',
  'job_elapsed_s',
  'coordinated',
  'rerecord_of',
  'slot',
] as const;

type Cell = string | number | undefined;

const CSV_OPTIONS: CsvOptions = {
  header: true,
  columns: [...CSV_COLUMNS],
  // every cell quoted, empty ones too: a spreadsheet that splits on `;` or a tab (many locales) still
  // reads each cell whole, and never as the start of a formula
  quoted: true,
  quoted_empty: true,
  record_delimiter: '\r\n',
};

/**
 * RFC 4180 through csv-stringify (CRLF, every cell quoted, a quote doubled), with a header row. The
 * writer is loaded on the first export: only an export pays for it.
 */
export function recordsToCsv(records: readonly AsRunRecord[]): string {
  const { stringify } = require('csv-stringify/sync') as typeof import('csv-stringify/sync');
  return stringify(
    records.map((r) => csvRow(r).map(csvCell)),
    CSV_OPTIONS,
  );
}

/**
 * The file name of an export, distinct per export: what it holds (the schedule or every schedule, the
 * day and the zone that make its range, the outcome when filtered) and when it was taken, e.g.
 * `as-run_Evening-news_2026-11-26_Europe-Paris_all_exported-20261126T231502Z.csv`. Only letters,
 * digits, `-`, `_` and the extension's dot: safe in a Content-Disposition header and on any file system.
 */
export function exportFileName(
  q: { day: string; zone: string; schedule?: string; outcome?: string; format: string },
  at: Date = new Date(),
): string {
  const part = (text: string) =>
    text
      .normalize('NFKD')
      .replace(/[\u0300-\u036f]/g, '')
      .replace(/[^A-Za-z0-9]+/g, '-')
      .replace(/^-+|-+$/g, '')
      .slice(0, 60) || 'x';
  const stamp = at
    .toISOString()
    .replace(/[-:]/g, '')
    .replace(/\.\d+Z$/, 'Z');
  const parts = [part(q.schedule ?? 'all-schedules'), part(q.day), part(q.zone), part(q.outcome ?? 'all')];
  return `as-run_${parts.join('_')}_exported-${stamp}.${part(q.format)}`;
}

/** One record a line, as JSON. */
export function recordsToJsonl(records: readonly AsRunRecord[]): string {
  return records.map((r) => `${JSON.stringify(r)}\n`).join('');
}

function csvRow(r: AsRunRecord): Cell[] {
  const zone = r.window.zone;
  const local = (iso: string | undefined) => (iso === undefined ? undefined : inZone(iso, zone));
  const row: Record<(typeof CSV_COLUMNS)[number], Cell> = {
    schedule: r.schedule.name,
    schedule_id: r.schedule.id,
    window: r.window.id,
    zone,
    title: r.occurrence.title,
    episode: r.occurrence.episode,
    scheduled_start: local(r.scheduled.start),
    scheduled_end: local(r.scheduled.end),
    programme_start: local(r.occurrence.start),
    programme_end: local(r.occurrence.end),
    actual_start: local(r.actual.start),
    actual_end: local(r.actual.end),
    late_by_s: r.lateBy,
    outcome: r.outcome,
    reason: r.reason,
    discrepancy: r.discrepancy,
    channels: r.channels.map((c) => c.id).join(' '),
    outputs: r.channels.some((c) => c.outputs) ? JSON.stringify(r.channels.flatMap((c) => c.outputs ?? [])) : undefined,
    gaps: r.gaps.length > 0 ? r.gaps.map((g) => `${local(g.from)}/${local(g.to)} ${g.why}`).join('; ') : undefined,
    interruptions: r.interruptions,
    attempts: r.attempts,
    job_id: r.job?.id,
    job_state: r.job?.state,
    job_elapsed_s: r.job?.elapsed,
    coordinated: r.coordinated ? 'yes' : undefined,
    rerecord_of: r.rerecordOf,
    slot: r.slot,
  };
  return CSV_COLUMNS.map((c) => row[c]);
}

/** An instant as ISO 8601 in the zone with its offset (`2026-11-26T18:00:00+01:00`); text that is no instant as it is. */
function inZone(iso: string, zone: string): string {
  const t = Date.parse(iso);
  return Number.isFinite(t) && isValidTimeZone(zone) ? formatLocalIso(t, zone) : iso;
}

/**
 * What a spreadsheet may read as the start of a formula: `=`, `+`, `-`, `@`, a tab or a carriage return
 * (OWASP's list), also after leading white space (spaces, NBSP, ideographic space, line breaks: some
 * spreadsheets trim it), and the fullwidth forms `＝ ＋ － ＠` that some read as their ASCII twins.
 */
const FORMULA_START = /^[\s\u00a0\u2000-\u200b\u3000\ufeff]*[=+\-@\t\r\uff1d\uff0b\uff0d\uff20]/;

/**
 * The same start after a `;`, a tab or a line break inside the cell: a spreadsheet that reads the file
 * with another separator (`;` in many European locales, a tab) or without its quotes cuts the cell
 * there, and the part after the cut is a cell of its own (`x;=cmd|'/C calc'!A0`).
 */
const FORMULA_AFTER_CUT = /([;\t\r\n][\s\u00a0\u2000-\u200b\u3000\ufeff"]*)(?=[=+\-@\uff1d\uff0b\uff0d\uff20])/g;

/**
 * A text cell that could start a formula gets a leading apostrophe (OWASP's advice on CSV injection),
 * which spreadsheets show as text, and so does each part of it a `;`, tab or line break would make a
 * cell; numbers are written as they are.
 */
export function csvCell(value: Cell): string {
  if (value === undefined) return '';
  if (typeof value === 'number') return String(value);
  const inner = value.replace(FORMULA_AFTER_CUT, "$1'");
  return FORMULA_START.test(inner) ? `'${inner}` : inner;
}

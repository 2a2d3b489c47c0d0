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
  'slot',
] as const;

type Cell = string | number | undefined;

/** RFC 4180 (CRLF, fields quoted when they hold a quote, comma or line break), with a header row. */
export function recordsToCsv(records: readonly AsRunRecord[]): string {
  const rows = [CSV_COLUMNS.join(',')];
  for (const r of records) rows.push(csvRow(r).map(csvCell).join(','));
  return `${rows.join('\r\n')}\r\n`;
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
 * A text cell a spreadsheet would run as a formula (= + - @, or a leading
 * tab or carriage return) gets a leading apostrophe (OWASP's advice on CSV
 * injection); numbers are written as they are.
 */
function csvCell(value: Cell): string {
  if (value === undefined) return '';
  let text = typeof value === 'number' ? String(value) : value;
  if (typeof value === 'string' && /^[=+\-@\t\r]/.test(text)) text = `'${text}`;
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

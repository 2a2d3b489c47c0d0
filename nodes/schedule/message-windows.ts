import { MediaSpacesError, quoteShort } from '../../lib/errors';
import { isPlainObject } from '../../lib/guards';
import type { PlannedOccurrence, ScheduleConfig, ScheduleWindow } from '../../lib/schedule';
import { isoSeconds } from '../../lib/schedule';
import { withPadding } from '../../lib/schedule/sources/occurrence';
import { describeType } from '../../lib/submit-input';

/** Occurrences one `windows` message may list (a day of a busy channel is a few hundred). */
export const MAX_MESSAGE_OCCURRENCES = 10_000;

const TEXT_FIELDS = ['title', 'description', 'subtitle', 'channel', 'episode', 'location'] as const;

/**
 * The window a `windows` message lists: the one it names (msg.window_id), else
 * the schedule's only messages window. Throws naming what is wrong.
 */
export function messagesWindow(config: ScheduleConfig, named: string | undefined): ScheduleWindow {
  const listed = config.windows.filter((w) => w.source?.kind === 'messages');
  if (named !== undefined) {
    const w = config.windows.find((x) => x.id === named);
    if (!w)
      throw MediaSpacesError.invalidInput(`no window with id ${quoteShort(named)}`, { window_id: 'unknown window' });
    if (w.source?.kind !== 'messages') {
      throw MediaSpacesError.invalidInput(
        `window ${quoteShort(named)} does not take its times from messages (give it "messages: true")`,
        { window_id: 'not a messages window' },
      );
    }
    return w;
  }
  if (listed.length === 1) return listed[0];
  throw MediaSpacesError.invalidInput(
    listed.length === 0
      ? 'the schedule has no window that takes its times from messages (a window with "messages: true")'
      : `name the window in msg.window_id: ${listed.map((w) => quoteShort(w.id)).join(', ')} take their times from messages`,
    { window_id: listed.length === 0 ? 'no messages window' : 'is required' },
  );
}

/**
 * A `windows` message's payload, a list of `{ start, end | duration, id?, title?, … }`, as the window's
 * occurrences padded by it. Times are ISO 8601 text with a zone, or epoch ms; `id` defaults to the start.
 * Throws naming the first entry and field that is wrong: nothing is taken from a list with a bad entry.
 */
export function occurrencesFromMessage(window: ScheduleWindow, payload: unknown): PlannedOccurrence[] {
  if (!Array.isArray(payload)) {
    throw MediaSpacesError.invalidInput(
      `a windows message takes msg.payload as a list of { start, end, title } entries, got ${describeType(payload)}`,
      { payload: 'must be a list' },
    );
  }
  if (payload.length > MAX_MESSAGE_OCCURRENCES) {
    throw MediaSpacesError.invalidInput(
      `msg.payload lists ${payload.length} windows; at most ${MAX_MESSAGE_OCCURRENCES}`,
      {
        payload: 'too many entries',
      },
    );
  }
  const padding = window.source?.kind === 'messages' ? window.source.padding : { before: 0, after: 0 };
  const seen = new Set<string>();
  return payload.map((entry, i) => {
    const o = oneOccurrence(entry, i);
    if (seen.has(o.id)) bad(i, 'id', `${quoteShort(o.id)} is listed twice`);
    seen.add(o.id);
    return { ...o, ...withPadding(o.start, o.end, padding) };
  });
}

function oneOccurrence(entry: unknown, i: number): PlannedOccurrence {
  if (!isPlainObject(entry)) bad(i, '', `must be a mapping such as { start, end, title }, got ${describeType(entry)}`);
  const start = instant(entry.start, i, 'start');
  let end: number;
  if (entry.end !== undefined) end = instant(entry.end, i, 'end');
  else if (typeof entry.duration === 'number' && entry.duration > 0) end = start + entry.duration * 1000;
  else bad(i, 'end', 'is required (or duration, in seconds)');
  if (end <= start) bad(i, 'end', `${isoSeconds(end)} is not after start ${isoSeconds(start)}`);
  const id = entry.id === undefined ? isoSeconds(start) : entry.id;
  if (typeof id !== 'string' || id === '' || id.length > 200) bad(i, 'id', 'must be text of 1 to 200 characters');
  const programme: NonNullable<PlannedOccurrence['programme']> = { start, end };
  for (const field of TEXT_FIELDS) {
    const value = entry[field];
    if (value === undefined) continue;
    if (typeof value !== 'string') bad(i, field, `must be text, got ${describeType(value)}`);
    programme[field] = value;
  }
  return { id, start, end, programme };
}

function instant(value: unknown, i: number, field: string): number {
  const ms =
    typeof value === 'number'
      ? value
      : typeof value === 'string' && /[zZ]|[+-]\d\d:?\d\d$/.test(value)
        ? Date.parse(value)
        : Number.NaN;
  if (!Number.isFinite(ms)) {
    bad(
      i,
      field,
      `must be an ISO 8601 time with its zone (2026-11-26T18:00:00Z) or epoch ms, got ${describeType(value)}`,
    );
  }
  return ms;
}

function bad(i: number, field: string, message: string): never {
  const at = `payload[${i}]${field ? `.${field}` : ''}`;
  throw MediaSpacesError.invalidInput(`${at} ${message}`, { [at]: message });
}

/**
 * A list's occurrences as the entries that made them, in one canonical form (epoch ms, the id always
 * given, text fields as sent): what Redis keeps for the other instances. Read back through
 * occurrencesFromMessage, it gives the same ids, times and padding, so every instance derives the same
 * slot keys from a shared list.
 */
export function entriesOf(occurrences: readonly PlannedOccurrence[]): Record<string, unknown>[] {
  return occurrences.map((o) => {
    const p = o.programme;
    const entry: Record<string, unknown> = { id: o.id, start: p?.start ?? o.start, end: p?.end ?? o.end };
    for (const field of TEXT_FIELDS) if (p?.[field] !== undefined) entry[field] = p[field];
    return entry;
  });
}

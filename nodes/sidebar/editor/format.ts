/** Labels in a window's own time zone, with nothing but Intl (the browser's zone never matters). */

const formats = new Map<string, Intl.DateTimeFormat>();

function format(timeZone: string, kind: 'time' | 'seconds' | 'zone' | 'day' | 'date'): Intl.DateTimeFormat {
  const key = `${kind}|${timeZone}`;
  let f = formats.get(key);
  if (!f) {
    const options: Intl.DateTimeFormatOptions =
      kind === 'time' || kind === 'seconds'
        ? { timeZone, hour: '2-digit', minute: '2-digit', hourCycle: 'h23' }
        : kind === 'zone'
          ? { timeZone, hour: '2-digit', timeZoneName: 'short', hourCycle: 'h23' }
          : kind === 'date'
            ? { timeZone, weekday: 'short', day: 'numeric' }
            : { timeZone, weekday: 'short', day: 'numeric', month: 'short' };
    if (kind === 'seconds') options.second = '2-digit';
    f = new Intl.DateTimeFormat('en-GB', options);
    formats.set(key, f);
  }
  return f;
}

/** "18:00" in the zone ("18:00:05" with seconds). */
export function timeIn(instant: number, timeZone: string, seconds = false): string {
  return format(timeZone, seconds ? 'seconds' : 'time').format(instant);
}

/** The zone's short name at the instant: "GMT", "BST", "UTC+2". */
function zoneName(instant: number, timeZone: string): string {
  const part = format(timeZone, 'zone')
    .formatToParts(instant)
    .find((p) => p.type === 'timeZoneName');
  return part?.value ?? timeZone;
}

/** "Sun 29 Mar" in the zone. */
export function dayIn(instant: number, timeZone: string): string {
  return format(timeZone, 'day').format(instant).replace(',', '');
}

/** "Sun 29" in the zone: a day on the week view's axis, narrow enough for a day of a 300 px pane. */
export function dateIn(instant: number, timeZone: string): string {
  return format(timeZone, 'date').format(instant).replace(',', '');
}

/** "2 h 05 min", "48 min", "35 s". */
export function span(ms: number): string {
  const s = Math.max(0, Math.round(ms / 1000));
  if (s < 60) return `${s} s`;
  const m = Math.floor(s / 60);
  if (m < 60) return `${m} min`;
  const h = Math.floor(m / 60);
  if (h < 48) return `${h} h ${String(m % 60).padStart(2, '0')} min`;
  return `${Math.floor(h / 24)} d ${h % 24} h`;
}

/**
 * "18:00–19:00 GMT (Europe/London)"; "20:23:00–20:23:40 UTC": seconds when
 * minutes alone would hide them, the zone's id only when its short name is not it.
 */
export function slotTimes(start: number, end: number, timeZone: string): string {
  const seconds = start % 60_000 !== 0 || end % 60_000 !== 0;
  const short = zoneName(start, timeZone);
  const zone = short === timeZone ? short : `${short} (${timeZone})`;
  return `${timeIn(start, timeZone, seconds)}–${timeIn(end, timeZone, seconds)} ${zone}`;
}

/** "Evening news 18:00–19:00 GMT (Europe/London)". */
export function slotLabel(name: string, start: number, end: number, timeZone: string): string {
  return `${name} ${slotTimes(start, end, timeZone)}`;
}

/** slotTimes, after the day ("Sun 29 Mar 18:00–19:00 …") when the slot starts on another day than `now` in its zone. */
export function slotWhen(start: number, end: number, timeZone: string, now: number): string {
  const day = dayIn(start, timeZone);
  return `${day === dayIn(now, timeZone) ? '' : `${day} `}${slotTimes(start, end, timeZone)}`;
}

/** iCalendar text for tests: a calendar around the given lines, and one event's lines. */

/** iCalendar text around the given lines. */
export const vcalendar = (...lines: string[]) =>
  ['BEGIN:VCALENDAR', 'VERSION:2.0', 'PRODID:-//media-spaces//test//EN', ...lines, 'END:VCALENDAR', ''].join('\r\n');

/** An instant as iCalendar writes it in UTC: 20261126T180000Z. */
export const icsUtc = (ms: number) => new Date(ms).toISOString().replace(/[-:]/g, '').replace(/\.\d+/, '');

/** One VEVENT: its end as DTEND (`end`, epoch ms) or as DURATION (`seconds`), and any further lines. */
export function vevent(e: {
  uid: string;
  title: string;
  start: number;
  end?: number;
  seconds?: number;
  stamp?: number;
  extra?: string[];
}): string[] {
  return [
    'BEGIN:VEVENT',
    `UID:${e.uid}`,
    `DTSTAMP:${e.stamp === undefined ? '20260101T000000Z' : icsUtc(e.stamp)}`,
    `SUMMARY:${e.title}`,
    `DTSTART:${icsUtc(e.start)}`,
    ...(e.end !== undefined ? [`DTEND:${icsUtc(e.end)}`] : [`DURATION:PT${e.seconds ?? 3600}S`]),
    ...(e.extra ?? []),
    'END:VEVENT',
  ];
}

const pad2 = (n: number): string => (n < 10 ? `0${n}` : String(n));

/**
 * Formats a duration as the service's TimeSpan text: `h:mm:ss[.f]` below a
 * day and `d.hh:mm:ss[.f]` from a day on. The fraction keeps only the digits
 * that carry information (10.5 s -> "0:00:10.5", 8 s -> "0:00:08").
 */
export function formatTimeSpan(ms: number): string {
  const total = Math.max(0, Math.round(ms));
  const days = Math.floor(total / 86_400_000);
  let rest = total % 86_400_000;
  const hours = Math.floor(rest / 3_600_000);
  rest %= 3_600_000;
  const minutes = Math.floor(rest / 60_000);
  rest %= 60_000;
  const seconds = Math.floor(rest / 1000);
  const millis = rest % 1000;
  const fraction = millis === 0 ? '' : `.${String(millis).padStart(3, '0').replace(/0+$/, '')}`;
  const tail = `${pad2(minutes)}:${pad2(seconds)}${fraction}`;
  return days > 0 ? `${days}.${pad2(hours)}:${tail}` : `${hours}:${tail}`;
}

let lastMs = Number.NaN;
let lastIso = '';

/** Remembers the last answer: under load most requests fall in the same millisecond, and a job view asks twice. */
export function isoTime(ms: number): string {
  if (ms !== lastMs) {
    lastIso = new Date(ms).toISOString();
    lastMs = ms;
  }
  return lastIso;
}

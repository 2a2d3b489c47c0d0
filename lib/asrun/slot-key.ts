/**
 * The schedule id at the head of a slot key (`<schedule id>:<window id>:<start>`,
 * lib/schedule/template-context.ts); node ids hold no colon.
 */
export function scheduleOfSlot(slot: string): string | undefined {
  const colon = slot.indexOf(':');
  return colon > 0 ? slot.slice(0, colon) : undefined;
}

/** The window id in the middle of a slot key: between the schedule id and the ISO start at its end. */
export function windowOfSlot(slot: string): string | undefined {
  const m = /^[^:]+:(.+):\d{4}-\d{2}-\d{2}T[\d:.]+Z$/.exec(slot);
  return m ? m[1] : undefined;
}

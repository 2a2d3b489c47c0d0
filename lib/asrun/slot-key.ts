/**
 * The schedule id at the head of a slot key (`<schedule id>:<window id>:<start>`,
 * lib/schedule/template-context.ts); node ids hold no colon.
 */
export function scheduleOfSlot(slot: string): string | undefined {
  const colon = slot.indexOf(':');
  return colon > 0 ? slot.slice(0, colon) : undefined;
}

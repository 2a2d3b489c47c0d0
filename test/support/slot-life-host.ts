import type { Slot } from '../../lib/schedule';
import type { SlotLives, SlotOut, SlotReads } from '../../lib/schedule/slot-lives';
import type { SlotLife } from '../../lib/schedule/slot-stage';

/** The effects a test watches, by name; every other effect is dropped. */
interface Watched {
  show(slot: Slot, life: SlotLife, channel?: unknown): void;
  keep(slot: Slot): void;
  warn(text: string): void;
}

/**
 * A schedule node's part in its slots' lives, doing nothing but naming the slot: what the lives read, and a
 * sink for their effects. Tests give what they read (`readsChannels`, the one record's `record`) and the effects
 * they watch (`show`, `keep`, `warn`) as `parts`: `new SlotLives(...quietHost(parts))`.
 */
export function quietHost(parts: Partial<SlotReads & Watched> = {}): ConstructorParameters<typeof SlotLives> {
  const reads: SlotReads = {
    identity: (s) => ({
      schedule: { id: 'n1', name: '' },
      window: { id: s.windowId, zone: 'UTC' },
      occurrence: { id: 'o', start: '', end: '' },
      scheduled: { start: '', end: '' },
    }),
    alarmAfterMs: () => 30_000,
    ...(parts.identity ? { identity: parts.identity } : {}),
    ...(parts.alarmAfterMs ? { alarmAfterMs: parts.alarmAfterMs } : {}),
    ...(parts.readsChannels ? { readsChannels: parts.readsChannels } : {}),
    ...(parts.record ? { record: parts.record } : {}),
    ...(parts.serviceClock ? { serviceClock: parts.serviceClock } : {}),
  };
  const out = (effect: SlotOut) => {
    if (effect.kind === 'show') parts.show?.(effect.slot, effect.life, effect.channel);
    else if (effect.kind === 'keep') parts.keep?.(effect.slot);
    else if (effect.kind === 'warn') parts.warn?.(effect.text);
  };
  return [reads, out];
}

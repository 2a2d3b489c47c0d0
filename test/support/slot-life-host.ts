import type { SlotLives } from '../../nodes/schedule/slot-life';

type SlotLifeHost = ConstructorParameters<typeof SlotLives>[0];

/**
 * A schedule node's part in its slots' lives, doing nothing but naming the slot: tests give the parts they
 * watch (`show`, `readsChannels`, the one record's `record` and `keep`) as `parts`.
 */
export function quietHost(parts: Partial<SlotLifeHost> = {}): SlotLifeHost {
  return {
    show: () => undefined,
    changed: () => undefined,
    channelCreated: () => undefined,
    channelRequested: () => undefined,
    startAttempted: () => undefined,
    startFailed: () => undefined,
    startFailing: () => undefined,
    interrupted: () => undefined,
    identity: (s) => ({
      schedule: { id: 'n1', name: '' },
      window: { id: s.windowId, zone: 'UTC' },
      occurrence: { id: 'o', start: '', end: '' },
      scheduled: { start: '', end: '' },
    }),
    alarmAfterMs: () => 30_000,
    ...parts,
  };
}

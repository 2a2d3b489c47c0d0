import type { SlotPhase } from './slot-events';

/**
 * What happens to a slot, as the node tells it: timers (the start, the end), create channel's reports, the
 * service's reads of the channel, an operator's command, the journal read after a restart.
 *
 * - `emitted`: the start went out (or another instance's start is followed from here).
 * - `began`: the service says the segment records (its `recording.started_at`, else a read in RECORDING).
 * - `lost`: the channel left RECORDING before the window's end (or was lost while it warmed up).
 * - `end`: the window's end: the recording is being stopped.
 * - `stop-accepted`: the service accepted the stop; it finishes the recording.
 * - `recorded`, `recorded-with-gaps`, `never-recorded`: the follow-up went (or the end went without one), and
 *   what the slot's segments say of it.
 * - `start-failed`: nothing recorded and nobody chose it (create channel gave up, the instance was down, Redis
 *   could not be used).
 * - `skip`, `cancel`: an operator chose to skip it; its occurrence left the plan.
 * - `restored-*`, `adopted`: a slot in progress taken up after a restart, or whose end this instance takes
 *   over: it enters the phase it was in, and nothing is told again (it was told the first time).
 * - `replayed`: an end sent again after a restart, the very message of the first time.
 */
export type SlotEvent =
  | 'emitted'
  | 'began'
  | 'lost'
  | 'end'
  | 'stop-accepted'
  | 'recorded'
  | 'recorded-with-gaps'
  | 'never-recorded'
  | 'start-failed'
  | 'skip'
  | 'cancel'
  | 'restored-starting'
  | 'restored-recording'
  | 'restored-interrupted'
  | 'adopted'
  | 'adopted-starting'
  | 'replayed';

/**
 * What a transition asks of the node:
 * - `tell`: publish the transition (`media-spaces:slot`: the as-run log, the metrics, the sidebar's history);
 * - `show`: the sidebar and the badge show the slot's new stage;
 * - `listen`: hear create channel's reports on the slot's start (or its replacement's), from now on;
 * - `alarm`: arm the start_failing alarm; `disarm`: clear it;
 * - `settle`: stop listening and disarm: the slot leaves the running ones (its phase is final);
 * - `replace`: ask for a replacement channel (output 1 again);
 * - `keep`: journal the slot's record (its recording began, a channel lost, a gap closed, the stop accepted), so
 *   that a restart takes it up.
 */
export type SlotEffect = 'tell' | 'show' | 'listen' | 'alarm' | 'disarm' | 'settle' | 'replace' | 'keep';

export interface SlotTransitionRule {
  from: SlotPhase;
  event: SlotEvent;
  to: SlotPhase;
  effects: readonly SlotEffect[];
}

const RUNNING: readonly SlotPhase[] = ['starting', 'recording', 'interrupted'];
const ENDING: readonly SlotPhase[] = ['stopping', 'finishing'];
/** A slot the end reaches: running, or still planned (its start never went out here). */
const BEFORE_END: readonly SlotPhase[] = ['planned', ...RUNNING];

const rules = (
  from: readonly SlotPhase[],
  event: SlotEvent,
  to: SlotPhase,
  effects: readonly SlotEffect[],
): SlotTransitionRule[] => from.map((f) => ({ from: f, event, to, effects }));

const ENDED: readonly SlotEffect[] = ['settle', 'show', 'tell'];

/**
 * The slot's state machine, as data: `phase × event → phase + effects`. Every change of a slot's phase is one
 * of these rows, and nothing else moves it (`nextPhase`). A phase no row leaves is final.
 */
export const SLOT_TRANSITIONS: readonly SlotTransitionRule[] = [
  ...rules(['planned'], 'emitted', 'starting', ['listen', 'alarm', 'show', 'tell']),
  ...rules(['planned'], 'restored-starting', 'starting', ['listen', 'show']),
  ...rules(['planned'], 'restored-recording', 'recording', ['show']),
  ...rules(['planned'], 'restored-interrupted', 'interrupted', ['show']),
  // a slot this instance did not see start: followed from here, told from its next transition on
  ...rules(['planned'], 'adopted', 'recording', []),
  ...rules(['planned'], 'adopted-starting', 'starting', []),
  // the first segment records: its start and lateness are journaled
  ...rules(['starting'], 'began', 'recording', ['keep', 'disarm', 'show', 'tell']),
  // the replacement records: the gap it closes is journaled
  ...rules(['interrupted'], 'began', 'recording', ['keep', 'disarm', 'show', 'tell']),
  // a channel lost while it warmed up is an interruption too; so is a replacement lost before it recorded
  ...rules(RUNNING, 'lost', 'interrupted', ['keep', 'listen', 'show', 'tell', 'replace']),
  ...rules(BEFORE_END, 'end', 'stopping', ['disarm', 'show', 'tell']),
  ...rules(['stopping', ...BEFORE_END], 'stop-accepted', 'finishing', ['keep', 'show', 'tell']),
  ...rules([...RUNNING, ...ENDING], 'recorded', 'finished', ENDED),
  ...rules([...RUNNING, ...ENDING], 'recorded-with-gaps', 'partial', ENDED),
  ...rules([...RUNNING, ...ENDING], 'never-recorded', 'missed', ENDED),
  ...rules([...BEFORE_END, ...ENDING], 'start-failed', 'missed', ENDED),
  ...rules([...BEFORE_END, ...ENDING], 'skip', 'skipped', ENDED),
  ...rules([...BEFORE_END, ...ENDING], 'cancel', 'cancelled', ENDED),
  // the sidebar shows the slot finished; the as-run log and the metrics had its end the first time
  ...rules([...BEFORE_END, ...ENDING], 'replayed', 'finished', ['settle', 'show']),
];

const byFromAndEvent = new Map(SLOT_TRANSITIONS.map((r) => [`${r.from} ${r.event}`, r]));

/** The row for `event` in `phase`, or undefined when the event has no meaning there (an illegal transition). */
export function nextPhase(phase: SlotPhase, event: SlotEvent): SlotTransitionRule | undefined {
  return byFromAndEvent.get(`${phase} ${event}`);
}

export const SLOT_PHASES: readonly SlotPhase[] = [
  'planned',
  'starting',
  'recording',
  'interrupted',
  'stopping',
  'finishing',
  'finished',
  'partial',
  'missed',
  'skipped',
  'cancelled',
];

/** The phases after which nothing more happens to a slot: those no transition leaves. */
export const FINAL_PHASES: readonly SlotPhase[] = SLOT_PHASES.filter(
  (p) => !SLOT_TRANSITIONS.some((r) => r.from === p),
);

export function isFinalPhase(phase: SlotPhase): boolean {
  return FINAL_PHASES.includes(phase);
}

/**
 * An event the table has no row for. Under test (MEDIA_SPACES_STRICT_SLOTS=1) it throws, so that a test that
 * reaches one fails; in production it is told once per phase and event, and the slot stays where it was.
 */
export class IllegalSlotTransition extends Error {
  constructor(
    readonly slot: string,
    readonly phase: SlotPhase,
    readonly event: SlotEvent,
  ) {
    super(`slot ${slot}: "${event}" has no meaning in phase ${phase}; the slot stays ${phase}`);
    this.name = 'IllegalSlotTransition';
  }
}

const told = new Set<string>();

/**
 * What to do with an illegal transition: throw under test; else warn once per phase and event through `warn`
 * and go on.
 */
export function illegalTransition(
  error: IllegalSlotTransition,
  warn: (text: string) => void,
  strict = process.env.MEDIA_SPACES_STRICT_SLOTS === '1',
): void {
  if (strict) throw error;
  const key = `${error.phase} ${error.event}`;
  if (told.has(key)) return;
  told.add(key);
  warn(error.message);
}

/** A Mermaid state diagram of the table: docs/slot-states.md holds it, and a test checks it against the table. */
export function slotStateDiagram(): string {
  const lines = ['stateDiagram-v2', '  [*] --> planned'];
  const edges = new Map<string, string[]>();
  for (const r of SLOT_TRANSITIONS) {
    const key = `${r.from} --> ${r.to}`;
    edges.set(key, [...(edges.get(key) ?? []), r.event]);
  }
  for (const [edge, events] of edges) lines.push(`  ${edge}: ${events.join(', ')}`);
  for (const p of FINAL_PHASES) lines.push(`  ${p} --> [*]`);
  return lines.join('\n');
}

import type { Simulator } from '../../lib/simulator';
import { nodeModule } from './node-modules';
import { CONFIG_ID, configNode, credentials, helper, NODES } from './node-red-runtime';

export type ChainMsg = Record<string, unknown> & { topic?: string; payload?: Record<string, unknown> };

/** What a chain's helpers received: output 2 (end), output 3 (control) and the Catch node. */
export type ChainSeen = Record<'end' | 'ctl' | 'caught', ChainMsg[]>;

const at = { z: 'tab', x: 100, y: 100 };

/**
 * The demo's wiring of a schedule in a real runtime: node `sched` (start ->
 * create channel `cc` -> back into the schedule, unless `routeBack` is false), its end and control
 * outputs into helpers, and a Catch node for the tab.
 */
export async function loadScheduleChain(
  sim: Simulator,
  options: {
    yaml: string;
    scheduleId: string;
    server?: string;
    timeout?: number;
    /** false: create channel's output is not wired back into the schedule */
    routeBack?: boolean;
    /** more settings of the create-channel node (watchState, say) */
    channel?: Record<string, unknown>;
  },
): Promise<ChainSeen> {
  const flow = [
    { id: 'tab', type: 'tab', label: 'schedule chain' },
    configNode(sim, { timeout: options.timeout ?? 5000 }),
    {
      id: 'sched',
      ...at,
      type: 'media-spaces-schedule',
      source: 'yaml',
      yaml: options.yaml,
      scheduleId: options.scheduleId,
      catchUp: false,
      server: options.server ?? CONFIG_ID,
      wires: [['cc'], ['end'], ['ctl']],
    },
    {
      id: 'cc',
      ...at,
      type: 'media-spaces-create-channel',
      name: '',
      server: CONFIG_ID,
      ...options.channel,
      wires: [options.routeBack === false ? [] : ['sched']],
    },
    { id: 'end', ...at, type: 'helper' },
    { id: 'ctl', ...at, type: 'helper' },
    { id: 'catcher', ...at, type: 'catch', scope: null, uncaught: false, wires: [['caught']] },
    { id: 'caught', ...at, type: 'helper' },
  ];
  await helper.load([NODES.config, NODES.channel, nodeModule('media-spaces-schedule')], flow, credentials());
  const seen: ChainSeen = { end: [], ctl: [], caught: [] };
  for (const id of ['end', 'ctl', 'caught'] as const) {
    helper.getNode(id).on('input', (m: unknown) => seen[id].push(m as ChainMsg));
  }
  return seen;
}

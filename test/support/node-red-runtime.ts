import { createRequire } from 'node:module';
import helper, { type HelperNode } from 'node-red-node-test-helper';
import type { Simulator } from '../../lib/simulator';
import { nodeModule } from './node-modules';

/**
 * A real Node-RED 4 runtime (node-red-node-test-helper) with the compiled
 * nodes from dist/ (`npm run build` first), wired to a simulator over real
 * HTTP. Every operation node under test sits in a flow with a Catch node and
 * a Complete node scoped to it, so each input's one outcome is observable.
 */

const require = createRequire(import.meta.url);

export { helper };

export const NODES = {
  config: nodeModule('media-spaces-config'),
  list: nodeModule('media-spaces-list-workflows'),
  submit: nodeModule('media-spaces-submit-job'),
  channel: nodeModule('media-spaces-create-channel'),
  deleteEvent: nodeModule('media-spaces-delete-event'),
};
export const ALL_NODES = Object.values(NODES);

export function initRuntime(): void {
  helper.init(require.resolve('node-red'));
}

/** Names from the demo fixture (lib/simulator/fixtures/demo.yaml). */
export const DEMO = {
  space: '11111111-1111-4111-8111-111111111111',
  inactiveSpace: '33333333-3333-4333-8333-333333333333',
  keys: {
    admin: 'demo-admin-key',
    management: 'demo-management-key',
    access: 'demo-access-key',
    inactive: 'lapsed-management-key',
  },
  token: 'demo-live-token',
  inactiveToken: 'lapsed-live-token',
  workflows: {
    transcode: 'aaaaaaaa-0000-4000-8000-000000000001',
    publish: 'aaaaaaaa-0000-4000-8000-000000000004',
    render: 'aaaaaaaa-0000-4000-8000-000000000010',
    loudness: 'aaaaaaaa-0000-4000-8000-000000000013',
    idle: 'aaaaaaaa-0000-4000-8000-000000000020',
    unknown: 'aaaaaaaa-0000-4000-8000-0000000000ff',
  },
} as const;

export const CONFIG_ID = 'cfg';
export const OP_ID = 'op';
export const TAB = 'tab';

export function configNode(sim: Simulator, props: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    id: CONFIG_ID,
    type: 'media-spaces-config',
    name: 'test space',
    workflowUrl: sim.workflowUrl,
    liveCaptureUrl: sim.liveCaptureUrl,
    spaceId: DEMO.space,
    workflowPrefix: '/workflow/v1',
    timeout: 5000,
    retries: 0,
    rejectUnauthorized: true,
    ...props,
  };
}

/** tab + config + the node under test (id "op") -> "out"; Catch -> "caught"; Complete -> "completed". */
export function operationFlow(
  sim: Simulator,
  type: string,
  props: Record<string, unknown> = {},
  configProps: Record<string, unknown> = {},
): Record<string, unknown>[] {
  // flow nodes need x and y, or the runtime takes them for config nodes
  const at = { z: TAB, x: 100, y: 100 };
  return [
    { id: TAB, type: 'tab', label: 'test' },
    configNode(sim, configProps),
    { id: OP_ID, ...at, type, name: '', server: CONFIG_ID, wires: [['out']], ...props },
    { id: 'out', ...at, type: 'helper' },
    { id: 'catcher', ...at, type: 'catch', scope: [OP_ID], uncaught: false, wires: [['caught']] },
    { id: 'caught', ...at, type: 'helper' },
    { id: 'completer', ...at, type: 'complete', scope: [OP_ID], uncaught: false, wires: [['completed']] },
    { id: 'completed', ...at, type: 'helper' },
  ];
}

export function credentials(
  apiKey: string | undefined = DEMO.keys.admin,
  accessToken: string | undefined = DEMO.token,
) {
  const creds: Record<string, string> = {};
  if (apiKey !== undefined) creds.apiKey = apiKey;
  if (accessToken !== undefined) creds.accessToken = accessToken;
  return { [CONFIG_ID]: creds };
}

export async function loadOperation(
  sim: Simulator,
  type: string,
  props: Record<string, unknown> = {},
  options: { configProps?: Record<string, unknown>; apiKey?: string; accessToken?: string } = {},
): Promise<void> {
  await helper.load(
    ALL_NODES,
    operationFlow(sim, type, props, options.configProps),
    credentials(options.apiKey ?? DEMO.keys.admin, options.accessToken ?? DEMO.token),
  );
}

export type Msg = Record<string, unknown> & {
  payload?: unknown;
  statusCode?: number;
  error?: Record<string, unknown> & { cause?: Record<string, unknown> };
  _error?: Record<string, unknown>;
};

export interface Outcome {
  /** Messages on the node's output. */
  outputs: Msg[];
  /** Messages the Catch node received (failures). */
  caught: Msg[];
  /** Messages the Complete node received (successes). */
  completed: Msg[];
}

/**
 * Sends one message into the node under test and waits for its outcome
 * (a Catch or a Complete), then a little longer, so that a second outcome
 * for the same message would be seen too.
 */
export async function trigger(msg: Record<string, unknown>, opts: { timeoutMs?: number } = {}): Promise<Outcome> {
  const outcome: Outcome = { outputs: [], caught: [], completed: [] };
  const taps: Array<[HelperNode, (m: Record<string, unknown>) => void]> = [
    [helper.getNode('out'), (m) => outcome.outputs.push(m)],
    [helper.getNode('caught'), (m) => outcome.caught.push(m)],
    [helper.getNode('completed'), (m) => outcome.completed.push(m)],
  ];
  for (const [node, tap] of taps) node.on('input', tap);
  try {
    helper.getNode(OP_ID).receive(msg);
    await waitFor(() => outcome.caught.length + outcome.completed.length > 0, opts.timeoutMs ?? 8000);
    await sleep(25);
  } finally {
    for (const [node, tap] of taps) node.removeListener('input', tap as (...args: unknown[]) => void);
  }
  return outcome;
}

/** The single failure of an outcome; fails the test if there was anything else. */
export function onlyFailure(outcome: Outcome): Msg {
  if (outcome.caught.length !== 1 || outcome.completed.length !== 0 || outcome.outputs.length !== 0) {
    throw new Error(
      `expected exactly one failure, got ${outcome.caught.length} caught, ${outcome.completed.length} completed, ${outcome.outputs.length} outputs: ${JSON.stringify(outcome).slice(0, 600)}`,
    );
  }
  return outcome.caught[0];
}

/** The single success of an outcome (one output message); fails the test otherwise. */
export function onlyOutput(outcome: Outcome): Msg {
  if (outcome.outputs.length !== 1 || outcome.completed.length !== 1 || outcome.caught.length !== 0) {
    throw new Error(
      `expected exactly one output and completion, got ${outcome.outputs.length} outputs, ${outcome.completed.length} completed, ${outcome.caught.length} caught: ${JSON.stringify(outcome).slice(0, 600)}`,
    );
  }
  return outcome.outputs[0];
}

export async function waitFor(condition: () => boolean, timeoutMs = 5000): Promise<void> {
  const start = Date.now();
  while (!condition()) {
    if (Date.now() - start > timeoutMs) throw new Error(`condition not met within ${timeoutMs} ms`);
    await sleep(5);
  }
}

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

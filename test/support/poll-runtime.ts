import type { ServerResponse } from 'node:http';
import { createRequire } from 'node:module';
import type { Simulator } from '../../lib/simulator';
import { json, type Stub, startStub } from './stub-server';

/**
 * What the polling nodes' runtime tests share (follow-job, wait-workflow,
 * watch-workflows): a Node-RED runtime (node-red-node-test-helper) loading the
 * compiled nodes from dist/, the simulator's demo names, and small waits.
 */
const require = createRequire(import.meta.url);
// biome-ignore lint/suspicious/noExplicitAny: the helper ships no types
export const helper: any = require('node-red-node-test-helper');
helper.init(require.resolve('node-red'));

export const SPACE = '11111111-1111-4111-8111-111111111111';
export const WF_TRANSCODE = 'aaaaaaaa-0000-4000-8000-000000000001';
export const WF_FAILS = 'aaaaaaaa-0000-4000-8000-000000000005';
export const WF_IDLE = 'aaaaaaaa-0000-4000-8000-000000000020';
export const WF_ARCHIVED = 'aaaaaaaa-0000-4000-8000-000000000021';

export type Msg = Record<string, unknown> & { payload?: unknown };
// biome-ignore lint/suspicious/noExplicitAny: Node-RED node objects are untyped here
export type AnyNode = any;

export function config(url: string, id = 'cfg') {
  return {
    id,
    type: 'media-spaces-config',
    name: 'sim',
    workflowUrl: url,
    spaceId: SPACE,
    workflowPrefix: '/workflow/v1',
    timeout: 2000,
    retries: 0,
  };
}
export const credentials = (key = 'demo-admin-key') => ({ cfg: { apiKey: key } });

export const outputs = [
  { id: 'out1', type: 'helper' },
  { id: 'out2', type: 'helper' },
];

/** Collects what a node sends. */
export function record(id: string): Msg[] {
  const list: Msg[] = [];
  helper.getNode(id).on('input', (msg: Msg) => list.push(msg));
  return list;
}

/** The errors a node reports (done(err) and node.error both end in node.error). */
export function errorsOf(node: AnyNode): { err: Error; msg: Msg }[] {
  const list: { err: Error; msg: Msg }[] = [];
  node.on('call:error', (call: { args: [Error, Msg] }) => list.push({ err: call.args[0], msg: call.args[1] }));
  return list;
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Polls `done` every 10 ms of real time, moving the simulator's clock by `simStep` each time. */
export async function until(done: () => boolean, sim?: Simulator, simStep = 0, limitMs = 8000): Promise<void> {
  const end = Date.now() + limitMs;
  while (!done()) {
    if (Date.now() > end) throw new Error('condition not reached in time');
    if (sim && simStep > 0) sim.advance(simStep);
    await sleep(10);
  }
}

export async function untilAsync(done: () => Promise<boolean>, limitMs = 3000): Promise<void> {
  const end = Date.now() + limitMs;
  while (!(await done())) {
    if (Date.now() > end) throw new Error('condition not reached in time');
    await sleep(10);
  }
}

export function countTimers(): number {
  return process.getActiveResourcesInfo().filter((r) => r === 'Timeout').length;
}

/** A workflow list served over HTTP that the test can change (the simulator's workflows are fixed). */
export class MutableList {
  constructor(public workflows: { id: string; name: string; status: string }[]) {}

  start(): Promise<Stub> {
    return startStub((req, res: ServerResponse) => {
      if (req.method === 'GET' && /\/workflows(\?|$)/.test(req.url)) json(res, 200, { workflows: this.workflows });
      else json(res, 404, { error_message: 'not found' });
    });
  }
}

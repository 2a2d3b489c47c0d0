import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { type Simulator, startSimulator } from '../../lib/simulator';
import {
  type FlowNode,
  type NodeRedProcess,
  prepareUserDir,
  ROOT,
  startNodeRed,
} from '../reliability/support-restart/node-red';

const require = createRequire(import.meta.url);
const { pointFlowAtSimulator } = require('../../scripts/demo-userdir.cjs') as {
  pointFlowAtSimulator(
    flow: unknown[],
    info: unknown,
  ): { flow: FlowNode[]; credentials: Record<string, Record<string, string>> };
};

/** The demo flow's tab, schedule node and window (examples/recording-automation.json). */
export const DEMO_TAB = 'f10w00000000rec1';
export const DEMO_SCHEDULE = 'rec0schedule0001';
export const DEMO_WINDOW = 'demo-recording';

export interface DemoOptions {
  /** a folder name under test/.tmp */
  name: string;
  /** the window's cron (6 fields: seconds first) and length in seconds, instead of every minute for 40 s */
  cron: string;
  durationS: number;
  /** more settings.js properties, as JavaScript source */
  settings?: string;
  env?: Record<string, string>;
  /** more nodes on the demo's tab (z is set) */
  extra?: FlowNode[];
}

export interface DemoProcess {
  sim: Simulator;
  red: NodeRedProcess;
  userDir: string;
  /** POST JSON to the simulator's admin API (/__admin, README "Drill") */
  admin(path: string, body?: unknown, method?: string): Promise<{ status: number; json: unknown }>;
  /** SIGKILL, then Node-RED again on the same user directory and port */
  restartAfterKill(): Promise<NodeRedProcess>;
  /** SIGINT (Node-RED closes its nodes), then Node-RED again on the same user directory and port */
  restart(): Promise<NodeRedProcess>;
  close(): Promise<void>;
}

/**
 * The demo's wiring as `npm start` deploys it (examples/recording-automation.json
 * pointed at a simulator, credentials preset) in a real Node-RED process, the
 * window's cron and length shortened and catch-up off (a window caught up in
 * its last seconds would end before recording), with a simulator in this
 * process answering over real HTTP.
 */
export async function startDemoProcess(options: DemoOptions): Promise<DemoProcess> {
  const sim = await startSimulator({ host: '127.0.0.1', port: 0 });
  const example = JSON.parse(readFileSync(join(ROOT, 'examples', 'recording-automation.json'), 'utf8')) as FlowNode[];
  const { flow, credentials } = pointFlowAtSimulator(example, sim.info());
  for (const node of flow) {
    if (node.type === 'media-spaces-schedule') {
      const yaml = String(node.yaml);
      node.yaml = yaml
        .replace('cron: "* * * * *"', `cron: "${options.cron}"`)
        .replace('duration: 40s', `duration: ${options.durationS}s`);
      if (node.yaml === yaml) throw new Error('the demo schedule no longer has the cron and duration this rewrites');
      node.catchUp = false;
    }
    if (node.type === 'media-spaces-follow-job') node.interval = 300;
  }
  for (const node of options.extra ?? []) flow.push({ z: DEMO_TAB, ...node });
  const userDir = join(ROOT, 'test', '.tmp', 'demo-process', `${options.name}-${process.pid}`);
  prepareUserDir({ dir: userDir, flows: flow, credentials, settings: options.settings });
  let red: NodeRedProcess;
  try {
    red = await startNodeRed({ userDir, env: options.env });
  } catch (error) {
    await sim.close();
    throw error;
  }
  const demo: DemoProcess = {
    sim,
    red,
    userDir,
    async admin(path, body, method = 'POST') {
      const res = await fetch(`${sim.adminUrl}${path}`, {
        method,
        headers: body === undefined ? {} : { 'content-type': 'application/json' },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      const text = await res.text();
      return { status: res.status, json: text ? JSON.parse(text) : undefined };
    },
    async restartAfterKill() {
      await demo.red.kill();
      demo.red = await startNodeRed({ userDir, port: demo.red.port, env: options.env });
      return demo.red;
    },
    async restart() {
      await demo.red.stop();
      demo.red = await startNodeRed({ userDir, port: demo.red.port, env: options.env });
      return demo.red;
    },
    async close() {
      await demo.red.stop();
      await sim.close();
    },
  };
  return demo;
}

/** A function node that prints `<tag> <JSON of topic and payload>` for each message, one line each. */
export function printerNode(id: string, tag: string): FlowNode {
  return {
    id,
    type: 'function',
    name: tag,
    func: `node.log('${tag} ' + JSON.stringify({ topic: msg.topic, payload: msg.payload }));\nreturn null;`,
    outputs: 1,
    noerr: 0,
    initialize: '',
    finalize: '',
    libs: [],
    x: 900,
    y: 60,
    wires: [[]],
  };
}

/** What a printer node printed in a process's output, parsed. */
export function printed<T>(red: NodeRedProcess, tag: string): T[] {
  return red.lines().flatMap((l) => {
    const i = l.text.indexOf(`${tag} {`);
    return i < 0 ? [] : [JSON.parse(l.text.slice(i + tag.length + 1)) as T];
  });
}

import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Coordinator, type DoneRecord, RedisConnection } from '../../../lib/coordination';
import type { Simulator } from '../../../lib/simulator';
import { type FlowNode, type NodeRedProcess, prepareUserDir, ROOT, startNodeRed } from '../support-restart/node-red';
import {
  DURATION_MS,
  FOLLOW_JOB_NODE,
  PERIOD_MS,
  recordingFlow,
  SCHEDULE_NODE,
  type WindowPlan,
} from '../support-restart/recording-flow';

/**
 * Several real Node-RED processes (red.js, separate user directories, the
 * same flow and credentials) running the restart suite's recording flow,
 * with the schedule and follow-job nodes sharing one coordination node.
 */

export const COORDINATION_NODE = 'rel0coord0000001';
export const SCHEDULE_ID = 'rel';
export const LEASE_MS = 2000;

export interface CoordinationOptions {
  url: string;
  keyPrefix: string;
  whenUnreachable: 'skip' | 'alone';
  password?: string;
}

export class Cluster {
  readonly processes: NodeRedProcess[] = [];
  readonly dirs: string[];
  /** the process currently running in each user directory */
  readonly current: (NodeRedProcess | undefined)[];

  constructor(
    readonly name: string,
    readonly sim: Simulator,
    windows: WindowPlan[],
    readonly coordination: CoordinationOptions,
    size = 2,
    packageDir?: string,
    /** changes to the flow before it is written (nodes added, say) */
    edit?: (flows: FlowNode[]) => void,
  ) {
    const base = join(ROOT, 'test', '.tmp', 'reliability-coordination', `${name}-${process.pid}`);
    this.dirs = Array.from({ length: size }, (_, i) => join(base, `instance-${i}`));
    this.current = this.dirs.map(() => undefined);
    const { flows, credentials } = recordingFlow(sim.info(), windows);
    for (const node of flows) {
      if (node.id === SCHEDULE_NODE || node.id === FOLLOW_JOB_NODE) node.coordination = COORDINATION_NODE;
    }
    flows.push({
      id: COORDINATION_NODE,
      type: 'media-spaces-coordination',
      name: 'Redis',
      url: coordination.url,
      keyPrefix: coordination.keyPrefix,
      leaseMs: String(LEASE_MS),
      doneTtlDays: '1',
      whenUnreachable: coordination.whenUnreachable,
    });
    if (coordination.password) credentials[COORDINATION_NODE] = { password: coordination.password };
    edit?.(flows);
    mkdirSync(base, { recursive: true });
    for (const dir of this.dirs) prepareUserDir({ dir, flows, credentials, packageDir });
  }

  async start(index: number): Promise<NodeRedProcess> {
    const red = await startNodeRed({ userDir: this.dirs[index] });
    this.processes.push(red);
    this.current[index] = red;
    return red;
  }

  async startAll(): Promise<void> {
    await Promise.all(this.dirs.map((_, i) => this.start(i)));
  }

  async killAll(): Promise<void> {
    await Promise.all(this.current.map((p) => p?.kill()));
  }

  async stopAll(): Promise<void> {
    await Promise.all(this.current.map((p) => p?.stop()));
  }

  lines(): { process: number; at: number; text: string }[] {
    return this.processes.flatMap((p, i) => p.lines().map((l) => ({ process: i, at: l.at, text: l.text })));
  }

  saveLog(): void {
    const dir = join(ROOT, 'test', '.tmp', 'reliability');
    mkdirSync(dir, { recursive: true });
    const text = this.lines().map((l) => `[p${l.process} ${new Date(l.at).toISOString()}] ${l.text}`);
    writeFileSync(join(dir, `coordination-${this.name}.log`), text.join('\n'));
  }
}

/** Reads what the instances wrote to Redis, as another instance would (a real Coordinator). */
export async function redisReader(url: string, keyPrefix: string, password?: string) {
  const connection = new RedisConnection({ url, password });
  const coordinator = new Coordinator({ connection, instanceId: 'test-reader', keyPrefix, leaseMs: LEASE_MS });
  await connection.whenReady(5000);
  return {
    startOf(windowId: string, slot: number): Promise<DoneRecord | undefined> {
      return coordinator.getDone({ schedule: `${SCHEDULE_ID}:${windowId}`, slot, phase: 'start' });
    },
    /** Followed jobs and their owners, as the registry holds them. */
    jobs: () => coordinator.jobs.list(),
    /** The instance holding the live claim of a slot's phase (key layout: lib/coordination/keys.ts). */
    async claimHolder(windowId: string, slot: number, phase: string): Promise<string | undefined> {
      const schedule = encodeURIComponent(`${SCHEDULE_ID}:${windowId}`);
      const key = `${keyPrefix}slot:${schedule}:${new Date(slot).toISOString()}:${phase}:claim`;
      const raw = await connection.send(['GET', key]);
      return typeof raw === 'string' ? (JSON.parse(raw) as { instance: string }).instance : undefined;
    },
    close: () => connection.close(),
  };
}

/** The pid inside an instance id (`host:pid:random`). */
export function pidOf(instance: string): number {
  return Number(instance.split(':').at(-2));
}

export interface SlotCount {
  key: string;
  windowId: string;
  start: number;
  channelPosts: number;
  /** channel POSTs the service answered from its idempotency record */
  channelReplays: number;
  /** channel POSTs that created a channel (2xx, not a replay): the figure that must be 1 */
  channelCreated: number;
  submitPosts: number;
  submitReplays: number;
  submitCreated: number;
  /** stop POSTs of the slot's recording (keyed <slot>:stop…) and how many the service carried out (2xx, not replays) */
  stopPosts: number;
  stopsAccepted: number;
}

/** Channel and follow-up POSTs per slot key, from the simulator's request log. */
export function slotCounts(sim: Simulator, windows: WindowPlan[], from: number, to: number): SlotCount[] {
  const requests = sim.requests().filter((r) => r.method === 'POST');
  const out: SlotCount[] = [];
  for (const w of windows) {
    const first = Math.ceil((from - w.offsetS * 1000) / PERIOD_MS) * PERIOD_MS + w.offsetS * 1000;
    for (let start = first; start < to; start += PERIOD_MS) {
      const key = `${SCHEDULE_ID}:${w.id}:${new Date(start).toISOString().replace('.000Z', 'Z')}`;
      const channel = requests.filter((r) => r.route === 'create_channel' && r.idempotency_key === key);
      const submit = requests.filter((r) => r.route === 'submit' && r.idempotency_key === `${key}:end`);
      const stop = requests.filter((r) => r.route === 'stop_channel' && r.idempotency_key?.startsWith(`${key}:stop`));
      out.push({
        key,
        windowId: w.id,
        start,
        channelPosts: channel.length,
        channelReplays: channel.filter((r) => r.replayed).length,
        channelCreated: channel.filter(created).length,
        submitPosts: submit.length,
        submitReplays: submit.filter((r) => r.replayed).length,
        submitCreated: submit.filter(created).length,
        stopPosts: stop.length,
        stopsAccepted: stop.filter(created).length,
      });
    }
  }
  return out.sort((a, b) => a.start - b.start);
}

function created(r: { status: number | null; replayed?: boolean }): boolean {
  return r.status !== null && r.status >= 200 && r.status < 300 && r.replayed !== true;
}

/** REL-DONE lines (the follow-job node's terminal output 1) per job id, over every process. */
export function reportsPerJob(cluster: Cluster): Map<string, number> {
  const counts = new Map<string, number>();
  for (const l of cluster.lines()) {
    const at = l.text.indexOf('REL-DONE ');
    if (at < 0) continue;
    const job = (JSON.parse(l.text.slice(at + 'REL-DONE '.length)) as { job?: string }).job ?? '?';
    counts.set(job, (counts.get(job) ?? 0) + 1);
  }
  return counts;
}

export { DURATION_MS, PERIOD_MS };

import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { it } from 'vitest';
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

  /** Stops the instance in a user directory (SIGTERM by default, as a service manager does) and starts it again. */
  async restart(index: number, signal: 'SIGTERM' | 'SIGINT' = 'SIGTERM'): Promise<NodeRedProcess> {
    await this.current[index]?.stop(signal);
    return this.start(index);
  }

  /** The user directory whose process has this pid (an instance id names it: pidOf), or -1. */
  indexOf(pid: number): number {
    return this.current.findIndex((p) => p?.pid === pid);
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
    /** The done record of any phase of a cron slot (`end`, `restart:1`). */
    doneOf(windowId: string, slot: number, phase: string): Promise<DoneRecord | undefined> {
      return coordinator.getDone({ schedule: `${SCHEDULE_ID}:${windowId}`, slot, phase });
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
    for (let start = nextSlot(w, from); start < to; start += PERIOD_MS) out.push(countSlot(requests, w.id, start));
  }
  return out.sort((a, b) => a.start - b.start);
}

/** The first start of a window on the 10 s grid (windowPlans) at or after `from`. */
export function nextSlot(w: WindowPlan, from: number): number {
  const shift = w.offsetS * 1000;
  return Math.ceil((from - shift) / PERIOD_MS) * PERIOD_MS + shift;
}

/** The POSTs of one slot (any window: a cron slot's key ends in its start), from the simulator's request log. */
export function slotCount(sim: Simulator, windowId: string, start: number): SlotCount {
  return countSlot(
    sim.requests().filter((r) => r.method === 'POST'),
    windowId,
    start,
  );
}

/** The slot key of a cron window's slot. */
export const slotKeyOf = (windowId: string, start: number) =>
  `${SCHEDULE_ID}:${windowId}:${new Date(start).toISOString().replace('.000Z', 'Z')}`;

/** The POSTs of the slot with this key (a calendar's or a guide's: its occurrence id in the key). */
export function keyCount(sim: Simulator, key: string, windowId: string, start: number): SlotCount {
  return countSlot(
    sim.requests().filter((r) => r.method === 'POST'),
    windowId,
    start,
    key,
  );
}

function countSlot(
  requests: ReturnType<Simulator['requests']>,
  windowId: string,
  start: number,
  key = slotKeyOf(windowId, start),
): SlotCount {
  const channel = requests.filter((r) => r.route === 'create_channel' && r.idempotency_key === key);
  const submit = requests.filter((r) => r.route === 'submit' && r.idempotency_key === `${key}:end`);
  const stop = requests.filter((r) => r.route === 'stop_channel' && r.idempotency_key?.startsWith(`${key}:stop`));
  return {
    key,
    windowId,
    start,
    channelPosts: channel.length,
    channelReplays: channel.filter((r) => r.replayed).length,
    channelCreated: channel.filter(created).length,
    submitPosts: submit.length,
    submitReplays: submit.filter((r) => r.replayed).length,
    submitCreated: submit.filter(created).length,
    stopPosts: stop.length,
    stopsAccepted: stop.filter(created).length,
  };
}

/** POSTs of a route with this idempotency key that the service carried out (2xx, not answered from its record). */
export function createdWithKey(sim: Simulator, route: string, key: string): number {
  return sim
    .requests()
    .filter((r) => r.method === 'POST' && r.route === route && r.idempotency_key === key && created(r)).length;
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

/** Output-3 reports logged by `logReports`, over every process (killed and restarted ones included). */
export interface LoggedReport {
  process: number;
  at: number;
  topic: string;
  payload: Record<string, unknown>;
}

const REPORT_TOPICS = [
  'conflict',
  'channel_freed',
  'missed',
  'skipped',
  'cancelled',
  'interrupted',
  'start_failing',
  'rerecord',
];

/**
 * An edit of the cluster's flow: the schedule's output 3 into a function node that prints each report (the
 * topics above, not the replies to channels routed back) as one REL-REPORT line.
 */
export function logReports(flows: FlowNode[]): void {
  const schedule = flows.find((n) => n.id === SCHEDULE_NODE);
  if (!schedule) throw new Error('no schedule node');
  const id = 'rel0reports00001';
  schedule.wires = [...(schedule.wires as string[][]).slice(0, 2), [id]];
  flows.push({
    id,
    type: 'function',
    z: schedule.z,
    x: 380,
    y: 240,
    name: 'reports',
    func: `if (${JSON.stringify(REPORT_TOPICS)}.includes(msg.topic)) node.log('REL-REPORT ' + JSON.stringify({topic: msg.topic, payload: msg.payload}));\nreturn null;`,
    outputs: 1,
    noerr: 0,
    initialize: '',
    finalize: '',
    libs: [],
    wires: [[]],
  });
}

export function reportsOf(cluster: Cluster, topic: string): LoggedReport[] {
  const out: LoggedReport[] = [];
  for (const l of cluster.lines()) {
    const at = l.text.indexOf('REL-REPORT ');
    if (at < 0) continue;
    const report = JSON.parse(l.text.slice(at + 'REL-REPORT '.length)) as Omit<LoggedReport, 'process' | 'at'>;
    if (report.topic === topic) out.push({ process: l.process, at: l.at, ...report });
  }
  return out;
}

/** An edit of the cluster's flow: the schedule document's `max_channels`. */
export function maxChannels(limit: number): (flows: FlowNode[]) => void {
  return (flows) => {
    const schedule = flows.find((n) => n.id === SCHEDULE_NODE);
    if (!schedule || typeof schedule.yaml !== 'string') throw new Error('no schedule node');
    schedule.yaml = `max_channels: ${limit}\n${schedule.yaml}`;
  };
}

/**
 * Lines that say something went wrong: an error logged, a Catch node's REL-ERROR, an unhandled rejection.
 * `since`: lines about a slot that started before it are left out (a slot open while the instances were still
 * starting, whose start a loaded machine may have left to a first Redis connection that came up too late).
 */
export function errorLines(cluster: Cluster, since = 0): { process: number; at: number; text: string }[] {
  return cluster.lines().filter((l) => {
    if (!/\[error\]|REL-ERROR|Unhandled|TypeError/.test(l.text)) return false;
    const slot = /"slot":"[^"]*:(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ)"/.exec(l.text);
    return !slot || Date.parse(slot[1]) >= since;
  });
}

export interface FollowupJob {
  id: string;
  name: string;
  state: string;
  created_at: string;
}

/** The follow-up jobs the simulator holds, created at or after `from`. */
export async function followupJobs(sim: Simulator, from = 0): Promise<FollowupJob[]> {
  const space = sim.info().spaces[0].space_id;
  const res = await fetch(`${sim.adminUrl}/spaces/${space}/jobs`);
  const { jobs } = (await res.json()) as { jobs: FollowupJob[] };
  return jobs.filter((j) => j.name.startsWith('followup') && Date.parse(j.created_at) >= from);
}

/** The simulator's channels named `name` (channel names carry the window and the slot: channelName). */
export async function channelsNamed(sim: Simulator, name: string): Promise<{ id: string; state: string }[]> {
  const space = sim.info().spaces[0].space_id;
  const res = await fetch(`${sim.adminUrl}/spaces/${space}/channels`);
  const { channels } = (await res.json()) as { channels: { id: string; name: string; state: string }[] };
  return channels.filter((ch) => ch.name === name);
}

/**
 * Cases of a suite run `count` at a time (COORDINATION_LANES, default 2): most of a case is waiting for slots
 * to come and go, and each case has its own simulator and key prefix. `lane` runs a case in a lane; its time
 * limit counts from the suite's start, queueing included. `alone` runs a case with every lane taken (one that
 * restarts instances and counts on their start-up time, so that no other case's start-up slows it down).
 */
export function lanes(count = Math.max(1, Number(process.env.COORDINATION_LANES) || 2)) {
  let running = 0;
  const queued: (() => void)[] = [];
  async function inLane<T>(body: () => Promise<T>, width: number): Promise<T> {
    while (running + width > count && running > 0) await new Promise<void>((resolve) => queued.push(resolve));
    running += width;
    try {
      return await body();
    } finally {
      running -= width;
      for (const wake of queued.splice(0)) wake();
    }
  }
  return {
    count,
    lane: (name: string, body: () => Promise<void>) => it.concurrent(name, () => inLane(body, 1), 20 * 60_000),
    alone: (name: string, body: () => Promise<void>) => it.concurrent(name, () => inLane(body, count), 20 * 60_000),
  };
}

export { DURATION_MS, PERIOD_MS };

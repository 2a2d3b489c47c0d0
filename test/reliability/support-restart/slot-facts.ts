import { join } from 'node:path';
import type { RequestLogEntry, Simulator } from '../../../lib/simulator';
import { StateJournal } from '../../../nodes/schedule/state-journal';
import { channelName, jobName, SCHEDULE_NODE } from './recording-flow';

/**
 * What the simulator and the schedule's journal say about one slot of the
 * restart flow: its channel, the stops and follow-up submissions it received
 * (carried out or replayed from an earlier answer to the same key), and the
 * follow-up jobs it got.
 */

export interface SlotChannel {
  id: string;
  name: string;
  state: string;
}

export interface SlotJob {
  id: string;
  name: string;
  input: { media_nicknames?: unknown } | null;
}

export interface RequestCounts {
  /** 2xx answers the service worked out for this request (not replays) */
  carriedOut: number;
  /** 2xx answers replayed from an earlier request with the same Idempotency-Key */
  replayed: number;
  /** 409: not recording yet, or the same key still in progress */
  conflicts: number;
  /** every request, whatever its answer */
  total: number;
  keys: string[];
}

export interface SlotFigures {
  slotKey: string;
  channel: SlotChannel | undefined;
  stops: RequestCounts;
  submits: RequestCounts;
  jobs: SlotJob[];
}

/** `rel:w0:2025-01-01T00:00:10Z`: the schedule id of the restart flow, the window, the start in whole seconds. */
export const slotKeyOf = (windowId: string, start: number) =>
  `rel:${windowId}:${new Date(start).toISOString().replace(/\.\d{3}Z$/, 'Z')}`;

export function countRequests(entries: RequestLogEntry[]): RequestCounts {
  const ok = (e: RequestLogEntry) => e.status !== null && e.status >= 200 && e.status < 300;
  return {
    carriedOut: entries.filter((e) => ok(e) && !e.replayed).length,
    replayed: entries.filter((e) => ok(e) && e.replayed === true).length,
    conflicts: entries.filter((e) => e.status === 409).length,
    total: entries.length,
    keys: [...new Set(entries.map((e) => e.idempotency_key ?? '(none)'))],
  };
}

export async function slotFigures(sim: Simulator, spaceId: string, windowId: string, start: number) {
  const epoch = Math.floor(start / 1000);
  const key = slotKeyOf(windowId, start);
  const channels = await adminJson<{ channels: SlotChannel[] }>(sim, `/spaces/${spaceId}/channels`);
  const jobs = await adminJson<{ jobs: SlotJob[] }>(sim, `/spaces/${spaceId}/jobs`);
  const channel = channels.channels.find((c) => c.name === channelName(windowId, epoch));
  const requests = sim.requests();
  const figures: SlotFigures = {
    slotKey: key,
    channel,
    stops: countRequests(
      channel ? requests.filter((r) => r.route === 'stop_channel' && r.path.includes(`/channels/${channel.id}/`)) : [],
    ),
    submits: countRequests(requests.filter((r) => r.route === 'submit' && r.idempotency_key === `${key}:end`)),
    jobs: jobs.jobs.filter((j) => j.name === jobName(windowId, epoch)),
  };
  return figures;
}

export async function adminJson<T>(sim: Simulator, path: string): Promise<T> {
  const res = await fetch(`${sim.adminUrl}${path}`);
  if (!res.ok) throw new Error(`admin ${path}: HTTP ${res.status}`);
  return (await res.json()) as T;
}

/**
 * The channel the schedule's journal holds for a slot in progress (written before the node acts on it): in the
 * context directory with the file context store, in the user directory's own `.media-spaces` with any other.
 */
export function journalChannel(userDir: string, key: string, store: 'file' | 'other' = 'file'): string | undefined {
  const dir = store === 'file' ? join(userDir, 'context', '.media-spaces') : join(userDir, '.media-spaces');
  const state = new StateJournal(join(dir, `schedule-${SCHEDULE_NODE}.json`)).read() as
    | { active?: Array<{ key: string; channel?: { id?: string } }> }
    | undefined;
  return state?.active?.find((s) => s.key === key)?.channel?.id;
}

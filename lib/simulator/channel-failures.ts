import { z } from 'zod';
import { UUID_PATTERN } from '../schemas';
import { channelState, recordingStartOf } from './channels';
import { CHANNEL_FAILURE_OUTCOMES, type ChannelFailure, type ChannelRecord, type SimulatorState } from './state';
import { isoTime } from './timespan';

// the outcomes and the failure record live with the channel record (state.ts)
export { CHANNEL_FAILURE_OUTCOMES, type ChannelFailure, type ChannelFailureOutcome } from './state';

const DEFAULT_MESSAGE = 'the recording failed (fault injected by the simulator)';

/**
 * POST /__admin/channel-failures: one channel by id, or the next N channels created. The
 * recording is cut `after_ms` after the later of "now" and the recording's start (0: at once,
 * so the next read sees it), or at the simulated time `at`, never before the recording started
 * nor in the past. A stop that comes first wins: a channel no longer recording is not failed.
 */
export const ChannelFailureSpec = z
  .strictObject({
    channel_id: z.string().regex(UUID_PATTERN, 'must be a UUID').optional(),
    next: z.number().int().min(1).optional(),
    outcome: z.enum(CHANNEL_FAILURE_OUTCOMES).default('error'),
    after_ms: z.number().int().min(0).optional(),
    /** Simulated time: ms since the epoch or an ISO 8601 date. */
    at: z
      .union([z.number().int().min(0), z.string().refine((s) => Number.isFinite(Date.parse(s)), 'must be a date')])
      .optional(),
    message: z.string().min(1).max(500).optional(),
  })
  .refine((s) => (s.channel_id === undefined) !== (s.next === undefined), {
    message: 'give either channel_id (one channel) or next (the next N channels created)',
    path: ['channel_id'],
  })
  .refine((s) => s.at === undefined || s.after_ms === undefined, {
    message: 'give either at or after_ms, not both',
    path: ['at'],
  });
export type ChannelFailureSpecInput = z.input<typeof ChannelFailureSpec>;
type Spec = z.output<typeof ChannelFailureSpec>;

interface Pending {
  readonly id: string;
  remaining: number;
  readonly spec: Spec;
  readonly armedAt: number;
}

type ArmResult = { ok: true; id: string; view: unknown } | { ok: false; status: 404 | 409; message: string };

export class ChannelFailures {
  private pending: Pending[] = [];
  private nextId = 1;

  arm(spec: Spec, state: SimulatorState, now: number): ArmResult {
    const id = `channel-failure-${this.nextId++}`;
    if (spec.next !== undefined) {
      this.pending.push({ id, remaining: spec.next, spec, armedAt: now });
      return { ok: true, id, view: pendingView({ id, remaining: spec.next, spec, armedAt: now }) };
    }
    const channelId = (spec.channel_id as string).toLowerCase();
    const channel = findChannel(state, channelId);
    if (!channel) return { ok: false, status: 404, message: `channel ${spec.channel_id} not found` };
    const current = channelState(channel, now);
    if (current !== 'PENDING' && current !== 'ACTIVE' && current !== 'RECORDING') {
      return { ok: false, status: 409, message: `channel ${channel.id} is ${current}; only a recording can fail` };
    }
    channel.failure = failureFor(id, channel, spec, now);
    return { ok: true, id, view: appliedView(channel, channel.failure) };
  }

  /** Called as a channel is created: the oldest armed "next N" failure takes it. */
  claim(channel: ChannelRecord): void {
    const p = this.pending[0];
    if (!p) return;
    channel.failure = failureFor(p.id, channel, p.spec, Math.max(p.armedAt, channel.createdAt));
    if (--p.remaining === 0) this.pending.shift();
  }

  list(state: SimulatorState) {
    const channels: unknown[] = [];
    for (const space of state.spaceList) {
      for (const ch of space.channels.values()) if (ch.failure) channels.push(appliedView(ch, ch.failure));
    }
    return { pending: this.pending.map(pendingView), channels };
  }

  /** Disarms what has not happened yet; failures already past stay part of their channel's history. */
  clear(state: SimulatorState, now: number): void {
    this.pending = [];
    for (const space of state.spaceList) {
      for (const ch of space.channels.values()) if (ch.failure && ch.failure.at > now) ch.failure = null;
    }
  }

  reset(): void {
    this.pending = [];
    this.nextId = 1;
  }
}

function failureFor(id: string, ch: ChannelRecord, spec: Spec, now: number): ChannelFailure {
  const recordingStart = recordingStartOf(ch);
  const at =
    spec.at === undefined
      ? Math.max(now, recordingStart) + (spec.after_ms ?? 0)
      : Math.max(atMs(spec.at), now, recordingStart);
  return { id, at, outcome: spec.outcome, message: spec.message ?? DEFAULT_MESSAGE };
}

function findChannel(state: SimulatorState, id: string): ChannelRecord | undefined {
  for (const space of state.spaceList) {
    const ch = space.channels.get(id);
    if (ch) return ch;
  }
  return undefined;
}

const pendingView = (p: Pending) => ({
  id: p.id,
  next: p.remaining,
  outcome: p.spec.outcome,
  ...(p.spec.at === undefined ? { after_ms: p.spec.after_ms ?? 0 } : { at: isoTime(atMs(p.spec.at)) }),
  message: p.spec.message ?? DEFAULT_MESSAGE,
});

const appliedView = (ch: ChannelRecord, f: ChannelFailure) => ({
  id: f.id,
  channel_id: ch.id,
  space_id: ch.spaceId,
  outcome: f.outcome,
  at: isoTime(f.at),
  message: f.message,
});

const atMs = (at: number | string) => (typeof at === 'number' ? at : Date.parse(at));

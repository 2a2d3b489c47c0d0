import type { SlotJobOutcome, SlotPhase, SlotTransition } from '../../lib/schedule/slot-events';
import { slotJobs, slotTransitions } from '../../lib/schedule/slot-events';

/**
 * Synthetic slot lives as the schedule's per-slot state machine publishes
 * them (lib/schedule/slot-events): the as-run log and the metrics are tested
 * against these, and the end-to-end tests publish them inside a runtime.
 */
export interface SlotSpec {
  schedule?: { id: string; name: string };
  window?: { id: string; zone: string };
  /** scheduled (padded) start, ISO */
  start: string;
  /** minutes */
  minutes?: number;
  title?: string;
  episode?: string;
  coordinated?: boolean;
}

export const SCHEDULE = { id: 'sched1', name: 'Evening news' };
export const WINDOW = { id: 'news', zone: 'Europe/Paris' };

const iso = (ms: number) => new Date(ms).toISOString().replace(/\.000Z$/, 'Z');

export class SlotStory {
  readonly slot: string;
  readonly base: Omit<SlotTransition, 'from' | 'to' | 'at'>;
  private phase: SlotPhase = 'planned';
  readonly start: number;
  readonly end: number;
  readonly published: SlotTransition[] = [];

  constructor(spec: SlotSpec) {
    const schedule = spec.schedule ?? SCHEDULE;
    const window = spec.window ?? WINDOW;
    this.start = Date.parse(spec.start);
    this.end = this.start + (spec.minutes ?? 30) * 60_000;
    this.slot = `${schedule.id}:${window.id}:${iso(this.start)}`;
    this.base = {
      slot: this.slot,
      schedule,
      window,
      occurrence: {
        id: iso(this.start + 60_000),
        ...(spec.title !== undefined ? { title: spec.title } : {}),
        ...(spec.episode !== undefined ? { episode: spec.episode } : {}),
        start: iso(this.start + 60_000),
        end: iso(this.end - 60_000),
      },
      scheduled: { start: iso(this.start), end: iso(this.end) },
      ...(spec.coordinated ? { coordinated: true } : {}),
    };
  }

  /** The transition to `to`, `offsetS` seconds after the scheduled start. */
  to(to: SlotPhase, offsetS: number, extra: Partial<SlotTransition> = {}): SlotTransition {
    const t: SlotTransition = { ...this.base, from: this.phase, to, at: iso(this.start + offsetS * 1000), ...extra };
    this.phase = to;
    this.published.push(t);
    return t;
  }

  /** Publishes on media-spaces:slot. */
  go(to: SlotPhase, offsetS: number, extra: Partial<SlotTransition> = {}): SlotTransition {
    const t = this.to(to, offsetS, extra);
    slotTransitions.publish(t);
    return t;
  }

  /** A whole recorded life: starting, recording (late by lateS), stopping, finishing, finished. */
  recorded(lateS = 2, channel = `ch-${this.start}`): this {
    const length = (this.end - this.start) / 1000;
    this.go('starting', 0, { attempts: 1 });
    this.go('recording', lateS, { lateBy: lateS, channel: { id: channel } });
    this.go('stopping', length);
    this.go('finishing', length + 1, { channel: { id: channel } });
    this.go('finished', length + 5, { channel: { id: channel, outputs: [{ uri: `s3://bucket/${channel}.mxf` }] } });
    return this;
  }

  job(state: string, id = `job-${this.start}`, elapsed = 42): SlotJobOutcome {
    const outcome: SlotJobOutcome = { slot: this.slot, job: { id, state, elapsed, workflowId: 'wf-1' } };
    slotJobs.publish(outcome);
    return outcome;
  }
}

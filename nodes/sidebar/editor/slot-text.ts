import type { SlotView } from '../activity-types';
import { span, timeIn } from './format';

/** A recording that started this late or later says so. */
const LATE_MS = 1000;

export interface SlotText {
  /**
   * one word, the badge and the bar's class: scheduled, due, starting,
   * recording, stopping, finished, missed, skipped; for a report without a
   * life (older schedules): the channel's state while active, created or failed once past
   */
  stage: string;
  /** one line, the stage first: "starting, attempt 4: 503 Service Unavailable" */
  headline: string;
  /** an alarm: nothing was recorded, or a failure */
  alarm: boolean;
}

/** What the tab says of one slot: its life when the schedule reports one, else its phase and outcome. */
export function describeSlot(slot: SlotView, timeZone: string): SlotText {
  const life = slot.life;
  const channel = slot.channel ? ` · channel ${slot.channel.state}` : '';
  if (life) {
    const note = life.note ? `: ${life.note}` : '';
    switch (life.stage) {
      case 'starting': {
        const attempt = life.attempt ?? 1;
        // a channel already created is not recording until the service says so: "starting · channel PENDING"
        const headline = attempt > 1 || life.note ? `starting, attempt ${attempt}${note}` : `starting${channel}`;
        return { stage: 'starting', headline, alarm: false };
      }
      case 'recording': {
        const late = (life.lateMs ?? 0) >= LATE_MS ? `, started ${span(life.lateMs ?? 0)} late` : '';
        return { stage: 'recording', headline: `recording${late}${channel}`, alarm: false };
      }
      case 'stopping':
        return { stage: 'stopping', headline: `stopping${channel}`, alarm: false };
      case 'finished': {
        const followup = life.followupAt ? `, follow-up submitted at ${timeIn(life.followupAt, timeZone, true)}` : '';
        const job = slot.outcome?.job ? ` · job ${slot.outcome.job.state}` : '';
        return {
          stage: 'finished',
          headline: `finished${followup}${life.note ? ` · ${life.note}` : ''}${job}`,
          alarm: slot.outcome?.job?.state === 'failed',
        };
      }
      case 'missed':
        return { stage: 'missed', headline: `missed: ${life.note ?? 'nothing was recorded'}`, alarm: true };
      case 'skipped':
        return { stage: 'skipped', headline: `skipped${note}`, alarm: false };
      case 'cancelled':
        return { stage: 'cancelled', headline: `cancelled${note}`, alarm: false };
    }
  }
  if (slot.phase === 'upcoming') return { stage: 'scheduled', headline: 'scheduled', alarm: false };
  if (slot.phase === 'due') return { stage: 'due', headline: 'due, no start reported', alarm: false };
  if (slot.phase === 'active') {
    const state = slot.channel?.state ?? 'in window';
    return { stage: state, headline: slot.channel ? `channel ${state}` : 'in window', alarm: false };
  }
  const failed = slot.outcome?.channel === 'failed' || slot.outcome?.job?.state === 'failed';
  return { stage: slot.outcome?.channel ?? 'past', headline: outcomeText(slot), alarm: failed };
}

/** "channel created · job succeeded", "channel failed: the service refused the channel name". */
function outcomeText(slot: SlotView): string {
  const o = slot.outcome;
  if (!o) return 'no outcome reported';
  const channel = o.channel === 'failed' ? `channel failed${o.reason ? `: ${o.reason}` : ''}` : 'channel created';
  return o.job ? `${channel} · job ${o.job.state}` : channel;
}

/** Where a slot is listed under "what is happening": in progress, failures, recent windows, or not listed (planned). */
export function listOf(slot: SlotView, text: SlotText): 'recording' | 'failures' | 'windows' | undefined {
  if (slot.phase === 'upcoming' || slot.phase === 'due') return undefined;
  if (slot.phase === 'active') return 'recording';
  return text.alarm ? 'failures' : 'windows';
}

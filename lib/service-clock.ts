import diagnostics_channel from 'node:diagnostics_channel';

/**
 * How far the service's clock is from this host's, as the answers' `Date` headers bound it: the service
 * stamped each answer (a whole second, so anywhere in [date, date + 1 s)) between the moment this host sent the
 * request and the moment the answer came back. Each answer bounds the offset (service minus host); the bounds
 * of many answers, sent at every fraction of a second, close in to within about the round trip.
 *
 * A schedule starts and stops recordings by this host's clock; the service times them by its own. When the
 * two differ, the as-run log's lateness and overruns (the service's times against the schedule's) include the
 * difference: the estimate is what lets the record and the operator say so.
 */
export interface ServiceClockReading {
  /** service minus host, ms (positive: the service's clock is ahead) */
  offsetMs: number;
  /** the offset is known to within ± this many ms */
  withinMs: number;
}

/** Published on `media-spaces:service-clock` when an origin's estimate settles, moves, or starts again. */
export interface ServiceClockEvent extends ServiceClockReading {
  origin: string;
}

export const serviceClockEvents = diagnostics_channel.channel('media-spaces:service-clock');

/** An estimate this tight says something (one answer bounds it to a second, the Date header's resolution). */
export const SETTLED_WITHIN_MS = 250;
/** A settled estimate that moves this much is told again. */
const MOVED_MS = 500;

export class ServiceClock {
  private low = Number.NEGATIVE_INFINITY;
  private high = Number.POSITIVE_INFINITY;
  private told: ServiceClockReading | undefined;

  constructor(private readonly origin: string) {}

  /** One answer: sent and received at these epoch ms of this host, stamped `date` (an HTTP date) by the service. */
  observe(sentAt: number, receivedAt: number, date: string | string[] | undefined): void {
    if (typeof date !== 'string') return;
    const stamped = Date.parse(date);
    if (!Number.isFinite(stamped)) return;
    const low = stamped - receivedAt;
    const high = stamped + 999 - sentAt;
    if (low > this.high || high < this.low) {
      // no offset fits both this answer and the earlier ones: one of the clocks was set: start again from here
      this.low = low;
      this.high = high;
      this.told = undefined;
    } else {
      this.low = Math.max(this.low, low);
      this.high = Math.min(this.high, high);
    }
    this.tellWhenChanged();
  }

  /** The estimate, once settled (within SETTLED_WITHIN_MS); undefined before. */
  reading(): ServiceClockReading | undefined {
    if (!Number.isFinite(this.low) || !Number.isFinite(this.high)) return undefined;
    const withinMs = Math.round((this.high - this.low) / 2);
    if (withinMs > SETTLED_WITHIN_MS) return undefined;
    return { offsetMs: Math.round((this.low + this.high) / 2), withinMs };
  }

  private tellWhenChanged(): void {
    const now = this.reading();
    if (!now) return;
    if (this.told && Math.abs(now.offsetMs - this.told.offsetMs) < MOVED_MS) return;
    this.told = now;
    if (serviceClockEvents.hasSubscribers) serviceClockEvents.publish({ origin: this.origin, ...now });
  }
}

/** Past this, the difference between the clocks is told (warnings, the as-run log, the alert). */
export const CLOCK_SKEW_TOLD_S = 2;

/** The offset in whole seconds when it is worth telling (more than CLOCK_SKEW_TOLD_S and surely so), else undefined. */
export function toldSkewSeconds(reading: ServiceClockReading | undefined): number | undefined {
  if (!reading) return undefined;
  const surely = Math.abs(reading.offsetMs) - reading.withinMs;
  if (surely <= CLOCK_SKEW_TOLD_S * 1000) return undefined;
  return Math.round(reading.offsetMs / 100) / 10;
}

/** "the service's clock is 10.2 s ahead of this host's" */
export function skewSentence(offsetS: number): string {
  const by = Math.abs(offsetS);
  return `the service's clock is ${by} s ${offsetS > 0 ? 'ahead of' : 'behind'} this host's`;
}

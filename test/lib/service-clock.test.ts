import { afterEach, describe, expect, it } from 'vitest';
import {
  ServiceClock,
  type ServiceClockEvent,
  serviceClockEvents,
  skewSentence,
  toldSkewSeconds,
} from '../../lib/service-clock';

/** An answer to a request sent at `sentAt` (host ms) taking `rttMs`, stamped by a service whose clock is `offsetMs` ahead. */
function answer(clock: ServiceClock, sentAt: number, rttMs: number, offsetMs: number, stampAfterMs = rttMs / 2) {
  const stamped = sentAt + stampAfterMs + offsetMs;
  clock.observe(sentAt, sentAt + rttMs, new Date(stamped).toUTCString());
}

const heard: ServiceClockEvent[] = [];
const hear = (m: unknown) => heard.push(m as ServiceClockEvent);
serviceClockEvents.subscribe(hear);
afterEach(() => {
  heard.length = 0;
});

describe("the service's clock, bounded by its answers' Date headers", () => {
  it('settles to within the round trip once answers come at several fractions of a second', () => {
    const clock = new ServiceClock('https://svc.example');
    const t0 = Date.UTC(2026, 10, 29, 10, 0, 0);
    answer(clock, t0 + 100, 20, 10_300);
    // one answer bounds it to a whole second: not settled yet
    expect(clock.reading()).toBeUndefined();
    for (let i = 1; i <= 40; i++) answer(clock, t0 + 100 + i * 737, 20, 10_300);
    const reading = clock.reading();
    expect(reading).toBeDefined();
    expect(Math.abs((reading?.offsetMs ?? 0) - 10_300)).toBeLessThanOrEqual(reading?.withinMs ?? 0);
    expect(reading?.withinMs).toBeLessThanOrEqual(100);
    expect(heard.at(-1)).toMatchObject({ origin: 'https://svc.example' });
  });

  it('a service behind this host reads negative; a clock set in between starts the estimate again', () => {
    const clock = new ServiceClock('o');
    const t0 = Date.UTC(2026, 10, 29, 10, 0, 0);
    for (let i = 0; i < 40; i++) answer(clock, t0 + i * 613, 10, -4_200);
    expect(clock.reading()?.offsetMs).toBeCloseTo(-4_200, -2);
    // the service's clock is set right: no offset fits both, so the old answers go
    for (let i = 40; i < 80; i++) answer(clock, t0 + i * 613, 10, 0);
    expect(Math.abs(clock.reading()?.offsetMs ?? 99_999)).toBeLessThan(100);
    expect(heard.map((e) => Math.round(e.offsetMs / 1000) + 0)).toEqual([-4, 0]);
  });

  it('ignores answers without a date it can read', () => {
    const clock = new ServiceClock('o');
    clock.observe(0, 10, undefined);
    clock.observe(0, 10, 'not a date');
    clock.observe(0, 10, ['Sun, 29 Nov 2026 10:00:00 GMT']);
    expect(clock.reading()).toBeUndefined();
  });
});

describe('what is told of it', () => {
  it('only a difference surely over 2 s, in tenths of a second, in words', () => {
    expect(toldSkewSeconds(undefined)).toBeUndefined();
    expect(toldSkewSeconds({ offsetMs: 2_400, withinMs: 500 })).toBeUndefined();
    expect(toldSkewSeconds({ offsetMs: 10_260, withinMs: 40 })).toBe(10.3);
    expect(toldSkewSeconds({ offsetMs: -3_100, withinMs: 1_200 })).toBeUndefined();
    expect(toldSkewSeconds({ offsetMs: -3_100, withinMs: 90 })).toBe(-3.1);
    expect(skewSentence(10.3)).toBe("the service's clock is 10.3 s ahead of this host's");
    expect(skewSentence(-3.1)).toBe("the service's clock is 3.1 s behind this host's");
  });
});

describe("the client's reading of the live-capture area's clock", () => {
  it('is found under the address as the server node writes it (upper case, spaces, a trailing slash)', async () => {
    const { startHarness } = await import('../support/sim');
    // a simulator that follows the wall clock, 10 s ahead of it
    const h = await startHarness({ manualClock: false, startTime: new Date(Date.now() + 10_000).toISOString() });
    try {
      const port = new URL(h.sim.liveCaptureUrl).port;
      const written = `  HTTP://LocalHost:${port}/  `;
      const client = h.client({ liveCaptureUrl: written, workflowUrl: written });
      expect(client.liveCaptureClock()).toBeUndefined();
      // answers spread over a second and a half: their Date headers close the bounds in
      const channel = (await client.createChannel({ name: 'clock' })).data;
      for (let i = 0; i < 30; i++) {
        await client.getChannel(channel.id);
        await new Promise((resolve) => setTimeout(resolve, 53));
      }
      const reading = client.liveCaptureClock();
      expect(reading).toBeDefined();
      expect(Math.abs((reading?.offsetMs ?? 0) - 10_000)).toBeLessThanOrEqual(300);
    } finally {
      await h.close();
    }
  });
});

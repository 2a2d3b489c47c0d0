import { afterEach, describe, expect, it } from 'vitest';
import type { ScheduleConfig } from '../../../lib/schedule/config';
import type { FeedPlans } from '../../../lib/schedule/feed-plans';
import type { PlannedOccurrence } from '../../../lib/schedule/plan';
import type { RerecordBooking } from '../../../lib/schedule/rerecord';
import type { Scheduler } from '../../../lib/schedule/scheduler';
import { type SlotTransition, slotTransitions } from '../../../lib/schedule/slot-events';
import {
  LOOKUP_EVERY_MS,
  type RerecordReads,
  type RerecordReport,
  RerecordWatch,
} from '../../../nodes/schedule/rerecord-watch';
import { waitFor } from '../../support/node-red-runtime';

/**
 * The re-record watch with the scheduler, the feed plans and Redis as plain objects: what it books, what it
 * tells, and how a survivor takes up a booking another instance made (the real chain: rerecord.test.ts,
 * rerecord-two-instances.test.ts).
 */

const H = 3600_000;
const config = {
  timezone: 'UTC',
  windows: [
    {
      id: 'drama',
      name: 'Drama',
      cron: '',
      source: { kind: 'xmltv' },
      timezone: 'UTC',
      duration: 3600,
      enabled: true,
      at_end: 'stop',
      channel: {},
      rerecord: { within: 7 * 24 * 3600, minLost: 0.1 },
    },
  ],
} as unknown as ScheduleConfig;

function parts(start: number) {
  const first: PlannedOccurrence = {
    id: 'one/1.2.',
    start,
    end: start + H,
    programme: { title: 'Serial', episode: 'S02E03', start, end: start + H },
  };
  const repeat: PlannedOccurrence = {
    id: `one/1.2./${new Date(start + 48 * H).toISOString()}`,
    start: start + 48 * H,
    end: start + 49 * H,
    programme: { title: 'Serial', episode: 'S02E03', start: start + 48 * H, end: start + 49 * H },
  };
  const booked: RerecordBooking[] = [];
  const replanned: string[] = [];
  const sent: RerecordReport[] = [];
  const scheduler = {
    scheduleId: 'studio',
    bookings: () => booked,
    book: (b: RerecordBooking) => booked.push(b),
  } as unknown as Scheduler;
  const feeds = {
    airings: () => [first, repeat],
    repeats: () => [repeat],
    replan: (id: string) => replanned.push(id),
  } as unknown as FeedPlans;
  return { first, repeat, booked, replanned, sent, scheduler, feeds };
}

const missed = (start: number): SlotTransition => ({
  slot: 'studio:drama:one/1.2.',
  schedule: { id: 'node-1', name: '' },
  window: { id: 'drama', zone: 'UTC' },
  occurrence: {
    id: 'one/1.2.',
    title: 'Serial',
    start: new Date(start).toISOString(),
    end: new Date(start + H).toISOString(),
  },
  scheduled: { start: new Date(start).toISOString(), end: new Date(start + H).toISOString() },
  from: 'starting',
  to: 'missed',
  at: new Date(start + H).toISOString(),
  why: 'create channel failed: HTTP 503',
});

let watch: RerecordWatch | undefined;
afterEach(() => watch?.close());

/** The watch of schedule node-1 over these parts; `redis`: its claim and lookup when it coordinates. */
function watchOf(p: ReturnType<typeof parts>, redis: Pick<RerecordReads, 'claim' | 'lookup'> = {}): RerecordWatch {
  return new RerecordWatch(
    'node-1',
    { config: () => config, scheduler: () => p.scheduler, feeds: p.feeds, ...redis },
    (effect) => {
      if (effect.kind === 'rerecord') p.sent.push(effect.report);
    },
  );
}

describe('the re-record watch', () => {
  it("books the next airing of its own schedule's missed slot, tells it once, and leaves other schedules' slots alone", async () => {
    const start = Math.floor(Date.now() / 1000) * 1000 - 2 * H;
    const p = parts(start);
    watch = watchOf(p);
    slotTransitions.publish({ ...missed(start), schedule: { id: 'node-2', name: '' } });
    slotTransitions.publish(missed(start));
    await waitFor(() => p.sent.length === 1, 1000);
    expect(p.booked.map((b) => [b.slot, b.of, b.start])).toEqual([
      [`studio:drama:${p.repeat.id}`, 'studio:drama:one/1.2.', p.repeat.start],
    ]);
    expect(p.replanned).toEqual(['drama']);
    expect(p.sent[0]).toEqual({
      topic: 'rerecord',
      payload: {
        slot: `studio:drama:${p.repeat.id}`,
        of: 'studio:drama:one/1.2.',
        at: new Date(p.repeat.start).toISOString().replace('.000', ''),
        end: new Date(p.repeat.end).toISOString().replace('.000', ''),
        window_id: 'drama',
        title: 'Serial · S02E03',
        reason: 'missed: create channel failed: HTTP 503',
      },
    });
    // the same failure told again (a restart's replay) books nothing more
    slotTransitions.publish(missed(start));
    await new Promise((r) => setTimeout(r, 50));
    expect(p.sent).toHaveLength(1);
  });

  it('with Redis: a booking another instance claimed first is planned here, and not told again', async () => {
    const start = Math.floor(Date.now() / 1000) * 1000 - 2 * H;
    const p = parts(start);
    watch = watchOf(p, {
      claim: async () => 'done',
    });
    slotTransitions.publish(missed(start));
    await waitFor(() => p.booked.length === 1, 1000);
    expect(p.replanned).toEqual(['drama']);
    expect(p.sent).toEqual([]);
  });

  it('a survivor: the repeats starting within the hour are looked up in Redis, and a booking found is planned', {
    timeout: 10_000,
  }, async () => {
    // the repeat starts within the hour: another instance booked it, then died
    const start = Math.floor(Date.now() / 1000) * 1000 - 48 * H + 30 * 60_000;
    const p = parts(start);
    const elsewhere: RerecordBooking = {
      slot: `studio:drama:${p.repeat.id}`,
      windowId: 'drama',
      occurrence: p.repeat.id,
      of: 'studio:drama:one/1.2.',
      start: p.repeat.start,
      end: p.repeat.end,
      failedStart: start,
      programme: { title: 'Serial', episode: 'S02E03' },
    };
    const asked: string[] = [];
    watch = watchOf(p, {
      claim: async () => 'won',
      lookup: async (airing) => {
        asked.push(airing.slot);
        return airing.slot === elsewhere.slot ? elsewhere : undefined;
      },
    });
    await waitFor(() => p.booked.length === 1, LOOKUP_EVERY_MS * 2);
    expect(asked[0]).toBe(elsewhere.slot);
    expect(p.booked[0]).toEqual(elsewhere);
    expect(p.replanned).toEqual(['drama']);
    expect(p.sent).toEqual([]);
    // once planned here it is not looked up again
    const n = asked.length;
    await new Promise((r) => setTimeout(r, LOOKUP_EVERY_MS + 200));
    expect(asked.length).toBe(n);
  });
});

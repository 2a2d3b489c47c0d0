import { describe, expect, it } from 'vitest';
import { ActivityFeed } from '../../../nodes/sidebar/feed';
import { ManualClock } from '../../support/manual-clock';
import { twentyWindows } from './scale-fixture';

const SCHEDULES = 50;
const JOBS = 500;

function ms(started: bigint): number {
  return Number(process.hrtime.bigint() - started) / 1e6;
}

/**
 * The runtime's state at scale: 50 schedules of 20 windows and 500 followed
 * jobs. Asserts what the state holds and how often it is published; the times
 * are printed only (bench/day-at-scale.mjs measures them against goals).
 */
describe('activity feed at scale (50 schedules x 20 windows, 500 jobs)', () => {
  it('builds the whole state, serves job updates without the timeline, and publishes at most twice a second', async () => {
    const clock = new ManualClock(Date.UTC(2026, 2, 27, 12));
    let published = 0;
    const feed = new ActivityFeed(() => void published++, clock);
    let t = process.hrtime.bigint();
    for (let s = 0; s < SCHEDULES; s++) {
      feed.registerSchedule({ nodeId: `s${s}`, name: `Schedule ${s}`, paused: false, windows: twentyWindows() }, {});
    }
    const registerMs = ms(t);
    t = process.hrtime.bigint();
    const cold = feed.snapshot();
    const coldMs = ms(t);
    t = process.hrtime.bigint();
    const warm = feed.snapshot();
    const warmMs = ms(t);
    const fullBytes = JSON.stringify(warm).length;
    const slots = cold.schedules.reduce((n, s) => n + s.slots.length, 0);
    expect(cold.schedules).toHaveLength(SCHEDULES);
    expect(slots).toBeGreaterThanOrEqual(SCHEDULES * 20 * 7);

    // 500 jobs, each updated once a second, for 10 seconds
    let reportMs = 0;
    for (let second = 0; second < 10; second++) {
      t = process.hrtime.bigint();
      for (let j = 0; j < JOBS; j++) {
        feed.reportJob({
          nodeId: 'f',
          jobId: `job-${j}`,
          workflowId: 'wf',
          state: 'running',
          progress: second * 10 + (j % 10),
        });
      }
      reportMs += ms(t);
      await clock.advance(1000);
    }
    t = process.hrtime.bigint();
    const jobsOnly = feed.snapshot('jobs');
    const jobsMs = ms(t);
    const jobsBytes = JSON.stringify(jobsOnly).length;
    expect(jobsOnly.jobs).toHaveLength(JOBS);
    // 5,000 reports in 10 s: one publish per 500 ms at most (plus the first, for the registrations)
    expect(published).toBeLessThanOrEqual(21);
    expect(published).toBeGreaterThanOrEqual(10);

    console.log(
      [
        `[sidebar scale] register 50 schedules: ${registerMs.toFixed(1)} ms`,
        `[sidebar scale] full state, first (computes ${slots} slots + zone days): ${coldMs.toFixed(1)} ms, ${(fullBytes / 1024).toFixed(0)} KiB JSON`,
        `[sidebar scale] full state, cached slots: ${warmMs.toFixed(1)} ms`,
        `[sidebar scale] 5,000 job reports: ${reportMs.toFixed(1)} ms in all (${((reportMs / 5000) * 1000).toFixed(1)} µs each)`,
        `[sidebar scale] jobs-only state: ${jobsMs.toFixed(2)} ms, ${(jobsBytes / 1024).toFixed(0)} KiB JSON`,
        `[sidebar scale] comms publishes for 10 s of 500 updates/s: ${published}`,
      ].join('\n'),
    );
  });
});

import { describe, expect, it } from 'vitest';
import { jobElapsedSeconds, timeSpanSeconds } from '../../lib/job-elapsed';
import { formatTimeSpan } from '../../lib/simulator/timespan';

describe("a finished job's run time", () => {
  it("reads the service's TimeSpan text, below and above a day", () => {
    expect(timeSpanSeconds('0:00:08')).toBe(8);
    expect(timeSpanSeconds('1:02:03.5')).toBe(3723.5);
    expect(timeSpanSeconds('2.03:00:00')).toBe(2 * 86_400 + 3 * 3600);
    expect(timeSpanSeconds('soon')).toBeUndefined();
    for (const ms of [0, 10_500, 3_599_999, 90_061_001]) expect(timeSpanSeconds(formatTimeSpan(ms))).toBe(ms / 1000);
  });

  it('falls back to updated_at minus created_at, and to nothing', () => {
    expect(jobElapsedSeconds({ elapsed_time: '0:01:00' })).toBe(60);
    expect(
      jobElapsedSeconds({
        elapsed_time: null,
        created_at: '2026-11-26T10:00:00Z',
        updated_at: '2026-11-26T10:00:42.5Z',
      }),
    ).toBe(42.5);
    expect(jobElapsedSeconds({ created_at: 'x', updated_at: '2026-11-26T10:00:00Z' })).toBeUndefined();
  });
});

import { describe, expect, it } from 'vitest';
import { FOLLOW_JOB_LABELS, followJobSettings } from '../../../nodes/follow-job/settings';
import { pollTiming, readPollSettings } from '../../../nodes/shared/poll-settings';
import { WAIT_WORKFLOW_LABELS, waitWorkflowSettings } from '../../../nodes/wait-workflow/settings';
import { WATCH_WORKFLOWS_LABELS, watchWorkflowsSettings } from '../../../nodes/watch-workflows/settings';

const def = (props: Record<string, unknown>) => ({ id: 'n1', type: 't', ...props });

describe('the polling nodes read their settings through their zod schemas', () => {
  it('takes the editor text as numbers, blank as unset', () => {
    const warnings: string[] = [];
    const s = readPollSettings(
      followJobSettings,
      def({ interval: ' 250 ', backoffMax: '', concurrency: '3', timeout: '0' }),
      FOLLOW_JOB_LABELS,
      (w) => warnings.push(w),
    );
    expect(s).toEqual({ interval: 250, backoffMax: undefined, concurrency: 3, timeout: 0 });
    expect(warnings).toEqual([]);
    expect(pollTiming(s)).toEqual({ intervalMs: 250, backoffMaxMs: 60_000 });
    // the backoff is never shorter than the interval
    expect(pollTiming({ interval: 90_000, backoffMax: 10 })).toEqual({ intervalMs: 90_000, backoffMaxMs: 90_000 });
  });

  it('warns about a setting that does not fit, by its dialog label, and uses the default', () => {
    const warnings: string[] = [];
    const s = readPollSettings(
      waitWorkflowSettings,
      def({ interval: '0', timeout: 'soon', workflow: '  QC check ' }),
      WAIT_WORKFLOW_LABELS,
      (w) => warnings.push(w),
    );
    expect(s).toEqual({ interval: undefined, backoffMax: undefined, timeout: undefined, workflow: 'QC check' });
    expect(warnings).toHaveLength(2);
    expect(warnings[0]).toMatch(/^Interval: .*; using the default$/);
    expect(warnings[1]).toMatch(/^Timeout: .*; using the default$/);
  });

  it('accepts only the service description’s workflow statuses as the status filter', () => {
    const warnings: string[] = [];
    const read = (props: Record<string, unknown>) =>
      readPollSettings(watchWorkflowsSettings, def(props), WATCH_WORKFLOWS_LABELS, (w) => warnings.push(w));
    expect(read({ statusFilter: 'archived', emitInitial: 'true' })).toMatchObject({
      statusFilter: 'archived',
      emitInitial: true,
    });
    expect(read({ statusFilter: '', emitInitial: false })).toMatchObject({
      statusFilter: undefined,
      emitInitial: false,
    });
    expect(warnings).toEqual([]);
    expect(read({ statusFilter: 'paused' })).toEqual({ emitInitial: false });
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatch(/^Status: /);
  });
});

import { describe, expect, it } from 'vitest';
import { FIELDS as FOLLOW_FIELDS } from '../../../nodes/follow-job/fields';
import { followJobSettings } from '../../../nodes/follow-job/settings';
import { pollTiming } from '../../../nodes/shared/poll-settings';
import { dialogLabels, settingsWithWarnings } from '../../../nodes/shared/settings';
import { FIELDS as WAIT_FIELDS } from '../../../nodes/wait-workflow/fields';
import { waitWorkflowSettings } from '../../../nodes/wait-workflow/settings';
import { FIELDS as WATCH_FIELDS } from '../../../nodes/watch-workflows/fields';
import { watchWorkflowsSettings } from '../../../nodes/watch-workflows/settings';

const def = (type: string, props: Record<string, unknown>) => ({ id: 'n1', type, ...props });

/** The dialog's labels as the runtime's catalogue gives them (RED._ of the node's locale). */
const catalogue: Record<string, string> = {
  'media-spaces-wait-workflow.label.interval': 'Interval',
  'media-spaces-wait-workflow.label.workflow': 'Workflow',
  'media-spaces-watch-workflows.label.status': 'Status',
};
const RED = { _: (id: string) => catalogue[id] ?? id };

describe('the polling nodes read their settings through their field tables', () => {
  it('takes the editor text as numbers, blank as unset', () => {
    const warnings: string[] = [];
    const s = settingsWithWarnings(
      followJobSettings,
      def('media-spaces-follow-job', { interval: ' 250 ', backoffMax: '', concurrency: '3', timeout: '0' }),
      dialogLabels(RED, 'media-spaces-follow-job', FOLLOW_FIELDS),
      (w) => warnings.push(w),
    );
    expect(s).toEqual({
      server: '',
      interval: 250,
      backoffMax: undefined,
      concurrency: 3,
      timeout: 0,
      coordination: '',
    });
    expect(warnings).toEqual([]);
    expect(pollTiming(s)).toEqual({ intervalMs: 250, backoffMaxMs: 60_000 });
    // the backoff is never shorter than the interval
    expect(pollTiming({ interval: 90_000, backoffMax: 10 })).toEqual({ intervalMs: 90_000, backoffMaxMs: 90_000 });
  });

  it('reads a flow saved without the polling fields as the dialog’s defaults', () => {
    const s = settingsWithWarnings(followJobSettings, def('media-spaces-follow-job', {}), {}, () => {
      throw new Error('no warning expected');
    });
    expect(s).toEqual({ server: '', interval: 5000, backoffMax: 60_000, concurrency: 8, coordination: '' });
  });

  it('warns about a setting that does not fit, by its dialog label, and uses the default', () => {
    const warnings: string[] = [];
    const s = settingsWithWarnings(
      waitWorkflowSettings,
      def('media-spaces-wait-workflow', { interval: '0', timeout: 'soon', workflow: '  QC check ' }),
      dialogLabels(RED, 'media-spaces-wait-workflow', WAIT_FIELDS),
      (w) => warnings.push(w),
    );
    expect(s).toEqual({ server: '', interval: 5000, backoffMax: 60_000, timeout: undefined, workflow: 'QC check' });
    expect(warnings).toEqual([
      'Interval must be a whole number of at least 1; using the default',
      // named by its label in the dialog, though msg.timeout overrides it: the dialog is where it is fixed
      'Timeout must be 0 (no timeout) or a whole number of ms; using the default',
    ]);
  });

  it('accepts only the service description’s workflow statuses as the status filter', () => {
    const warnings: string[] = [];
    const labels = dialogLabels(RED, 'media-spaces-watch-workflows', WATCH_FIELDS);
    const read = (props: Record<string, unknown>) =>
      settingsWithWarnings(watchWorkflowsSettings, def('media-spaces-watch-workflows', props), labels, (w) =>
        warnings.push(w),
      );
    expect(read({ statusFilter: 'archived', emitInitial: 'true' })).toMatchObject({
      statusFilter: 'archived',
      emitInitial: true,
    });
    expect(read({ statusFilter: '', emitInitial: false })).toMatchObject({
      statusFilter: undefined,
      emitInitial: false,
    });
    expect(warnings).toEqual([]);
    expect(read({ statusFilter: 'paused' })).toMatchObject({ statusFilter: undefined, emitInitial: false });
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatch(/^Status must be one of active, archived, deleted, idle/);
  });
});

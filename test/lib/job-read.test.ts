import { describe, expect, it } from 'vitest';
import { readJob } from '../../lib/job-read';
import { WorkflowJob } from '../../lib/schemas';

/** The hand-checked fast path reads every job exactly as the schema does. */
const job = {
  id: 'b1b1b1b1-0000-4000-8000-000000000001',
  name: 'nightly',
  workflow_id: 'aaaaaaaa-0000-4000-8000-000000000001',
  workflow_name: 'Transcode',
  progress: 40,
  state: 'in-process',
  workflow_version: '2',
  created_at: '2024-01-01T00:00:00Z',
  updated_at: '2024-01-01T00:01:00Z',
  elapsed_time: '00:01:00',
  extra: { kept: true },
};

const outcome = (read: () => unknown) => {
  try {
    return { ok: read() };
  } catch (error) {
    return { error: (error as Error).message };
  }
};

describe('readJob', () => {
  it.each([
    ['a job in the usual form', job],
    ['only an id', { id: job.id }],
    ['elapsed_time null', { ...job, elapsed_time: null }],
    ['a state wrapped in a one-element list', { ...job, state: ['succeeded'] }],
    ['progress wrapped in a one-element list', { ...job, progress: [100] }],
    ['progress as text', { ...job, progress: '40' }],
    ['an id that is a number', { ...job, id: 1 }],
    ['no id', { name: 'x' }],
    ['elapsed_time a number', { ...job, elapsed_time: 60 }],
    ['null', null],
    ['a list', [job]],
  ])('%s: the same result or the same error as WorkflowJob.parse', (_name, body) => {
    expect(outcome(() => readJob(structuredClone(body)))).toEqual(
      outcome(() => WorkflowJob.parse(structuredClone(body))),
    );
  });
});

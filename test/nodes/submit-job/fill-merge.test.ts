import { describe, expect, it } from 'vitest';
import type { WorkflowInputs } from '../../../lib/schemas';
import { mergeInputs } from '../../../nodes/submit-job/editor/inputs';

const declared: WorkflowInputs = {
  variables: [
    { name: 'Title', typecode: 'String', default: 'Untitled' },
    { name: 'Priority', typecode: 'Byte', default: '5' },
  ],
  media_nicknames: [{ identifier: 'Source', name: 'Source', files: ['s3://in/default.mxf'] }],
  attachments: [],
  labels: [{ identifier: 'qc', name: 'QC', parameters: [{ name: 'Level', typecode: 'Int32', default_value: '2' }] }],
};

describe('"Fill inputs from the workflow" merge', () => {
  it('empty Inputs: every declared input with its default, nothing to ask', () => {
    const m = mergeInputs('', declared);
    expect(m.merged).toEqual({
      variables: { Title: 'Untitled', Priority: '5' },
      media_nicknames: { Source: 's3://in/default.mxf' },
      labels: { qc: { Level: '2' } },
    });
    expect(m).toMatchObject({ differing: [], undeclared: [], added: 4 });
  });

  it('keeps typed values of declared inputs and reports them; lists undeclared ones', () => {
    const m = mergeInputs(
      JSON.stringify({ variables: { Title: 'Launch', Priority: '5', Old: 'x' }, labels: { qc: { Level: '3' } } }),
      declared,
    );
    expect(m.merged).toEqual({
      variables: { Title: 'Launch', Priority: '5' },
      media_nicknames: { Source: 's3://in/default.mxf' },
      labels: { qc: { Level: '3' } },
    });
    expect(m.differing).toEqual(['Title', 'qc: Level']);
    expect(m.undeclared).toEqual(['Old']);
    expect(m.added).toBe(1);
    expect(m.defaults.variables).toEqual({ Title: 'Untitled', Priority: '5' });
  });
});

import { describe, expect, it } from 'vitest';
import type { WorkflowInputs } from '../../../lib/schemas';
import { buildSubmitRequest } from '../../../lib/submit-input';
import { requiredInputs, settingsInputProblems } from '../../../lib/submit-input-check';
import { firstInputProblem, mergeInputs } from '../../../nodes/shared/editor/input-values';

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

describe('"Fill inputs" and inputs without a default', () => {
  const delivery: WorkflowInputs = {
    variables: [{ name: 'Start', typecode: 'TimeCode' }],
    labels: [
      {
        identifier: 'delivery',
        name: 'Delivery',
        parameters: [
          { name: 'Channels', typecode: 'Byte', options: { stereo: ['2'], surround: ['6'] } },
          { name: 'Retries', typecode: 'Int32', default_value: '1' },
        ],
      },
    ],
  };

  it('writes no "" for an input the workflow gives no default: the node says it is required', () => {
    const m = mergeInputs('', delivery);
    expect(m.merged).toEqual({ labels: { delivery: { Retries: '1' } } });
    expect(m.added).toBe(1);
    expect(firstInputProblem(JSON.stringify(m.merged), delivery)).toBe(
      'variables.Start: is required (TimeCode) and has no default',
    );
  });

  it('keeps a typed value of an input without a default, and reads it as declared', () => {
    const m = mergeInputs(JSON.stringify({ labels: { delivery: { Channels: '6' } } }), delivery);
    expect(m.merged).toEqual({ labels: { delivery: { Channels: '6', Retries: '1' } } });
    expect(m.undeclared).toEqual([]);
    expect(m.differing).toEqual(['delivery: Channels']);
  });

  it('the editor and the runtime: the same verdict, field by field', () => {
    const settings = { variables: { Start: '10:00:00:00@25' }, labels: { delivery: { Retries: 1 } } };
    expect(settingsInputProblems(settings, delivery)).toEqual({
      'labels.delivery.parameters.Channels': 'is required (Byte) and has no default',
    });
    expect(() => buildSubmitRequest({}, { base: settings, declared: delivery, requireDeclared: true })).toThrow(
      /labels\.delivery\.parameters\.Channels: is required \(Byte\) and has no default/,
    );
    expect([...requiredInputs(delivery)].sort()).toEqual(['labels.delivery.parameters.Channels', 'variables.Start']);
  });
});

import { describe, expect, it } from 'vitest';
import { MediaSpacesError } from '../../lib/errors';
import { FRAME_RATES, TYPECODES, type WorkflowInputs } from '../../lib/schemas';
import { buildSubmitRequest } from '../../lib/submit-input';
import { checkParameter, checkTypecode, isTypecode, NUMERIC_TYPECODES, toWireValue } from '../../lib/typecodes';

/** Runs fn and returns the MediaSpacesError it throws. */
function thrown(fn: () => unknown): MediaSpacesError {
  try {
    fn();
  } catch (error) {
    expect(error).toBeInstanceOf(MediaSpacesError);
    return error as MediaSpacesError;
  }
  throw new Error('expected a MediaSpacesError, nothing was thrown');
}

describe('checkTypecode', () => {
  const cases: Record<string, { ok: string[]; bad: string[]; rule: RegExp }> = {
    Boolean: {
      ok: ['true', 'false', 'TRUE', 'False'],
      bad: ['', 'yes', '1', '0', 'true ', 'truth'],
      rule: /^must be a Boolean: true or false$/,
    },
    Byte: {
      ok: ['0', '1', '128', '255', '+7', '007'],
      bad: ['256', '-1', '1.0', '1e2', '', ' 5', '0x10', 'abc'],
      rule: /^must be a Byte: a whole number from 0 to 255$/,
    },
    Int16: {
      ok: ['-32768', '32767', '0', '-1'],
      bad: ['-32769', '32768', '1.5', '', 'NaN'],
      rule: /^must be an Int16: a whole number from -32768 to 32767$/,
    },
    Int32: {
      ok: ['-2147483648', '2147483647', '0', '42'],
      bad: ['-2147483649', '2147483648', '99999999999999999999', '3.0', '1,000'],
      rule: /^must be an Int32: a whole number from -2147483648 to 2147483647$/,
    },
    UInt32: {
      ok: ['0', '4294967295', '65536'],
      bad: ['-1', '4294967296', '', '1e3'],
      rule: /^must be a UInt32: a whole number from 0 to 4294967295$/,
    },
    String: {
      ok: ['', 'anything at all', ' spaced ', '🎬', '{"json":true}'],
      bad: [],
      rule: /.^/,
    },
    Uri: {
      ok: [
        's3://bucket/file.mxf',
        'file:///media/clip.mov',
        'https://cdn.example.com/a/b.mp4?sig=1',
        'smb://nas/share/clip.mxf',
        'urn:isbn:0451450523',
        // "path to a file": absolute paths, POSIX and Windows (drive and UNC), spaces allowed
        '/absolute/path.mov',
        '/media/My Clip.mxf',
        'C:\\media\\a.mxf',
        'd:/media/a.mxf',
        '\\\\nas\\share\\clip.mxf',
      ],
      bad: [
        'media/clip.mov',
        'clip.mov',
        './x',
        '../x.mxf',
        '',
        ' /media/a.mxf',
        'http://exa mple.com/x',
        '://no-scheme',
        's3:',
        's3://',
        'file:///',
        'C:',
        'C:relative.mxf',
        '/',
        '//host-only',
      ],
      rule: /^must be a Uri: a path to a file .* or a fully qualified URI/,
    },
    Double: {
      ok: ['0', '-1', '3.14', '+2.5', '.5', '5.', '1e3', '1E-3', '-2.5e+10', '42'],
      bad: ['NaN', 'Infinity', '-Infinity', '1e400', '', 'abc', '1.2.3', '0x1A', '1e', '1,5', ' 1'],
      rule: /^must be a Double: a decimal number$/,
    },
  };

  for (const [typecode, { ok, bad, rule }] of Object.entries(cases)) {
    describe(typecode, () => {
      it.each(ok)(`accepts %j`, (value) => {
        expect(checkTypecode(typecode, value)).toBeNull();
      });
      if (bad.length > 0) {
        it.each(bad)(`rejects %j with the rule`, (value) => {
          expect(checkTypecode(typecode, value)).toMatch(rule);
        });
      }
    });
  }

  describe('TimeCode', () => {
    const lastFrame: Record<string, number> = {
      '23.976': 23,
      '24': 23,
      '25': 24,
      '29.97': 29,
      '30': 29,
      '50': 49,
      '60': 59,
    };

    it('covers every frame rate of the description', () => {
      expect(Object.keys(lastFrame).sort()).toEqual([...FRAME_RATES].sort());
    });

    it.each(FRAME_RATES)('accepts frame 00 and the last frame at %s, rejects the frame equal to the rate', (rate) => {
      const last = String(lastFrame[rate]).padStart(2, '0');
      const past = String(lastFrame[rate] + 1).padStart(2, '0');
      expect(checkTypecode('TimeCode', `00:00:00:00@${rate}`)).toBeNull();
      expect(checkTypecode('TimeCode', `23:59:59:${last}@${rate}`)).toBeNull();
      expect(checkTypecode('TimeCode', `10:00:00:${past}@${rate}`)).toBe(
        `must be a TimeCode: frame ${past} is not below the rate ${rate}`,
      );
    });

    it('23@24 is fine, 24@24 is not; 29@29.97 is fine, 30@29.97 is not', () => {
      expect(checkTypecode('TimeCode', '01:00:00:23@24')).toBeNull();
      expect(checkTypecode('TimeCode', '01:00:00:24@24')).toMatch(/frame 24 is not below the rate 24/);
      expect(checkTypecode('TimeCode', '01:00:00:29@29.97')).toBeNull();
      expect(checkTypecode('TimeCode', '01:00:00:30@29.97')).toMatch(/frame 30 is not below the rate 29.97/);
    });

    it('rejects a frame rate outside the list', () => {
      for (const rate of ['48', '23.98', '25.0', '29.970', '120', '0']) {
        expect(checkTypecode('TimeCode', `00:00:00:00@${rate}`)).toBe(
          `must be a TimeCode: frame rate ${rate} is not one of 23.976, 24, 25, 29.97, 30, 50, 60`,
        );
      }
    });

    it('rejects hours above 23, minutes and seconds above 59', () => {
      expect(checkTypecode('TimeCode', '24:00:00:00@25')).toBe('must be a TimeCode: hours must be 00 to 23');
      expect(checkTypecode('TimeCode', '00:60:00:00@25')).toBe('must be a TimeCode: minutes must be 00 to 59');
      expect(checkTypecode('TimeCode', '00:00:60:00@25')).toBe('must be a TimeCode: seconds must be 00 to 59');
    });

    it('accepts drop-frame HH:MM:SS;FF@29.97 (an extension), and says what form is wanted otherwise', () => {
      expect(checkTypecode('TimeCode', '10:00:00;00@29.97')).toBeNull();
      expect(checkTypecode('TimeCode', '10:01:00;02@29.97')).toBeNull();
      expect(checkTypecode('TimeCode', '10:10:00;00@29.97')).toBeNull();
      expect(checkTypecode('TimeCode', '10:01:00;00@29.97')).toBe(
        'must be a TimeCode: 10:01:00;00 does not exist in drop-frame (frames 00 and 01 are skipped at the start of each minute except every tenth)',
      );
      expect(checkTypecode('TimeCode', '10:00:00;00@25')).toBe(
        'must be a TimeCode: ";" before the frames marks drop-frame, which only 29.97 has; write 10:00:00:00@25',
      );
      expect(checkTypecode('TimeCode', '10:00:00;00')).toMatch(/\(drop-frame: HH:MM:SS;FF@29\.97\)$/);
    });

    it('rejects other forms', () => {
      for (const value of [
        '00:00:00:00',
        '0:00:00:00@25',
        '00:00:00:000@25',
        '00:00:00@25',
        ' 00:00:00:00@25',
        '00:00:00:00@',
        '',
      ]) {
        expect(checkTypecode('TimeCode', value)).toMatch(/^must be a TimeCode: HH:MM:SS:FF@rate with rate one of/);
      }
    });
  });

  it('puts "an" before Int16 and Int32, "a" before UInt32, Uri and the rest', () => {
    expect(checkTypecode('Int32', 'x')).toMatch(/^must be an Int32:/);
    expect(checkTypecode('Int16', 'x')).toMatch(/^must be an Int16:/);
    expect(checkTypecode('UInt32', 'x')).toMatch(/^must be a UInt32:/);
    expect(checkTypecode('Byte', 'x')).toMatch(/^must be a Byte:/);
  });

  it('names the expected typecodes for an unknown one', () => {
    expect(checkTypecode('Float', '1')).toBe(
      'has an unknown typecode "Float" (expected one of Boolean, Byte, Int16, Int32, UInt32, String, Uri, TimeCode, Double)',
    );
  });
});

describe('isTypecode, toWireValue, NUMERIC_TYPECODES', () => {
  it('knows exactly the typecodes of the description', () => {
    for (const t of TYPECODES) expect(isTypecode(t)).toBe(true);
    for (const t of ['boolean', 'Float', '', 5, undefined]) expect(isTypecode(t)).toBe(false);
    expect([...NUMERIC_TYPECODES].sort()).toEqual(['Byte', 'Double', 'Int16', 'Int32', 'UInt32']);
  });

  it('turns flow values into wire strings', () => {
    expect(toWireValue('x')).toBe('x');
    expect(toWireValue(true)).toBe('true');
    expect(toWireValue(false)).toBe('false');
    expect(toWireValue(12)).toBe('12');
    expect(toWireValue(-0.5)).toBe('-0.5');
    expect(toWireValue(10n)).toBe('10');
    expect(toWireValue(Number.NaN)).toBeUndefined();
    expect(toWireValue(Number.POSITIVE_INFINITY)).toBeUndefined();
    expect(toWireValue(null)).toBeUndefined();
    expect(toWireValue(undefined)).toBeUndefined();
    expect(toWireValue({ a: 1 })).toBeUndefined();
  });
});

describe('checkParameter', () => {
  it('checks the typecode first', () => {
    expect(checkParameter({ typecode: 'Int32', minimum_value: '0' }, 'ten')).toMatch(/^must be an Int32/);
    expect(checkParameter({ typecode: 'Byte', options: { a: ['1'] } }, '300')).toMatch(/^must be a Byte/);
  });

  it('checks minimum and maximum inclusively', () => {
    const p = { typecode: 'Int32', minimum_value: '1', maximum_value: '10' };
    expect(checkParameter(p, '1')).toBeNull();
    expect(checkParameter(p, '10')).toBeNull();
    expect(checkParameter(p, '0')).toBe('must be at least 1');
    expect(checkParameter(p, '11')).toBe('must be at most 10');
  });

  it('checks Double bounds with decimals', () => {
    const p = { typecode: 'Double', minimum_value: '-1.5', maximum_value: '2.25' };
    expect(checkParameter(p, '-1.5')).toBeNull();
    expect(checkParameter(p, '2.25')).toBeNull();
    expect(checkParameter(p, '-1.51')).toBe('must be at least -1.5');
    expect(checkParameter(p, '2.3')).toBe('must be at most 2.25');
  });

  it('checks the increment from the minimum', () => {
    const p = { typecode: 'Int32', minimum_value: '1', maximum_value: '100', increment_value: '2' };
    expect(checkParameter(p, '1')).toBeNull();
    expect(checkParameter(p, '3')).toBeNull();
    expect(checkParameter(p, '99')).toBeNull();
    expect(checkParameter(p, '4')).toBe('must be 1 plus a multiple of the increment 2');
  });

  it('checks the increment from zero without a minimum, tolerating floating point', () => {
    const p = { typecode: 'Double', increment_value: '0.1' };
    expect(checkParameter(p, '0.3')).toBeNull();
    expect(checkParameter(p, '-0.7')).toBeNull();
    expect(checkParameter(p, '0.25')).toBe('must be 0 plus a multiple of the increment 0.1');
  });

  it('ignores empty, null or unreadable constraints and a zero increment', () => {
    const p = { typecode: 'Int32', minimum_value: '', maximum_value: null, increment_value: '0' };
    expect(checkParameter(p, '-5')).toBeNull();
    expect(checkParameter({ typecode: 'Int32', maximum_value: 'lots' }, '5000')).toBeNull();
  });

  it('applies minimum, maximum and increment to numeric typecodes only', () => {
    expect(checkParameter({ typecode: 'String', minimum_value: '5', maximum_value: '6' }, 'abc')).toBeNull();
    expect(checkParameter({ typecode: 'TimeCode', maximum_value: '1' }, '10:00:00:00@25')).toBeNull();
  });

  it('accepts an option name or any of its values, and lists the allowed ones otherwise', () => {
    const p = { typecode: 'String', options: { fast: ['ultrafast', 'veryfast'], slow: ['slower'] } };
    expect(checkParameter(p, 'fast')).toBeNull();
    expect(checkParameter(p, 'veryfast')).toBeNull();
    expect(checkParameter(p, 'slower')).toBeNull();
    expect(checkParameter(p, 'medium')).toBe('must be one of the options: fast, ultrafast, veryfast, slow, slower');
  });

  it('checks options together with numeric bounds', () => {
    const p = { typecode: 'Int32', options: { small: ['1', '2'], big: ['50'] }, maximum_value: '10' };
    expect(checkParameter(p, '2')).toBeNull();
    expect(checkParameter(p, '3')).toMatch(/^must be one of the options/);
    expect(checkParameter(p, '50')).toBe('must be at most 10');
    expect(checkParameter({ typecode: 'String', options: {} }, 'anything')).toBeNull();
  });
});

describe('buildSubmitRequest', () => {
  const declared: WorkflowInputs = {
    variables: [
      { name: 'Start', typecode: 'TimeCode' },
      { name: 'Retries', typecode: 'Byte' },
      { name: 'Ratio', typecode: 'Double' },
      { name: 'Target', typecode: 'Uri' },
    ],
    labels: [
      {
        identifier: 'qc',
        parameters: [
          { name: 'Level', typecode: 'Int32', minimum_value: '0', maximum_value: '10', increment_value: '2' },
          { name: 'Mode', typecode: 'String', options: { strict: [], lenient: [] } },
        ],
      },
    ],
  };

  it('turns the short form into the description shape, inferring typecodes from values', () => {
    const req = buildSubmitRequest({
      job_name: 'nightly',
      variables: { Title: 'News', Count: 5, Ratio2: 1.5, Huge: 3_000_000_000, Flag: true },
      media_nicknames: { src: 's3://b/a.mxf', refs: ['s3://b/root.cube', 's3://b/other.cube'] },
      attachments: { subs: 's3://b/subs.srt' },
      labels: { tags: { Colour: 'red' } },
    });
    expect(req).toEqual({
      job_name: 'nightly',
      usage: {
        input: {
          variables: [
            { name: 'Title', typecode: 'String', value: 'News' },
            { name: 'Count', typecode: 'Int32', value: '5' },
            { name: 'Ratio2', typecode: 'Double', value: '1.5' },
            { name: 'Huge', typecode: 'Double', value: '3000000000' },
            { name: 'Flag', typecode: 'Boolean', value: 'true' },
          ],
          media_nicknames: [
            { identifier: 'src', files: ['s3://b/a.mxf'] },
            { identifier: 'refs', files: ['s3://b/root.cube', 's3://b/other.cube'] },
          ],
          attachments: [{ identifier: 'subs', file: 's3://b/subs.srt' }],
          labels: [{ identifier: 'tags', parameters: [{ name: 'Colour', typecode: 'String', value: 'red' }] }],
        },
      },
    });
  });

  it('takes typecodes from the declared inputs', () => {
    const req = buildSubmitRequest(
      { variables: { Start: '01:00:00:00@25', Retries: 3, Ratio: 2, Target: 's3://b/out/' } },
      { declared },
    );
    expect(req.usage?.input?.variables).toEqual([
      { name: 'Start', typecode: 'TimeCode', value: '01:00:00:00@25' },
      { name: 'Retries', typecode: 'Byte', value: '3' },
      { name: 'Ratio', typecode: 'Double', value: '2' },
      { name: 'Target', typecode: 'Uri', value: 's3://b/out/' },
    ]);
  });

  it('lets an explicit {value, typecode} win over the declared typecode', () => {
    const req = buildSubmitRequest({ variables: { Start: { value: 'later', typecode: 'String' } } }, { declared });
    expect(req.usage?.input?.variables).toEqual([{ name: 'Start', typecode: 'String', value: 'later' }]);
  });

  it('reads nicknames with data, datafilename and binary_mode', () => {
    const req = buildSubmitRequest({
      media_nicknames: { lut: { data: 'AAEC', datafilename: 'lut.cube', binary_mode: true } },
    });
    expect(req.usage?.input?.media_nicknames).toEqual([
      { identifier: 'lut', data: 'AAEC', datafilename: 'lut.cube', binary_mode: true },
    ]);
  });

  it('passes the full form through unchanged', () => {
    const full = {
      job_name: 'full',
      usage: {
        input: {
          variables: [{ name: 'Start', typecode: 'TimeCode' as const, value: '00:00:10:00@50' }],
          media_nicknames: [{ identifier: 'src', files: ['s3://b/a.mxf'], binary_mode: false }],
          attachments: [{ identifier: 'subs', file: 's3://b/s.srt' }],
          labels: [{ identifier: 'qc', parameters: [{ name: 'Level', typecode: 'Int32' as const, value: '4' }] }],
        },
      },
    };
    expect(buildSubmitRequest(full)).toEqual(full);
  });

  it('returns an empty request for empty input', () => {
    expect(buildSubmitRequest({})).toEqual({});
    expect(buildSubmitRequest(undefined)).toEqual({});
    expect(buildSubmitRequest({ usage: { input: {} } })).toEqual({});
  });

  it('merges the base (node settings) under the override (message), by name and identifier', () => {
    const req = buildSubmitRequest(
      { variables: { B: 'from-msg', C: 'new' }, media_nicknames: { src: 's3://msg.mxf' } },
      {
        base: {
          job_name: 'ignored-base-name',
          usage: {
            input: {
              variables: [
                { name: 'A', typecode: 'String', value: 'from-settings' },
                { name: 'B', typecode: 'String', value: 'from-settings' },
              ],
              media_nicknames: [
                { identifier: 'src', files: ['s3://settings.mxf'] },
                { identifier: 'lut', files: ['s3://lut.cube'] },
              ],
              attachments: [{ identifier: 'subs', file: 's3://subs.srt' }],
            },
          },
        },
      },
    );
    expect(req.job_name).toBeUndefined();
    expect(req.usage?.input?.variables).toEqual([
      { name: 'A', typecode: 'String', value: 'from-settings' },
      { name: 'B', typecode: 'String', value: 'from-msg' },
      { name: 'C', typecode: 'String', value: 'new' },
    ]);
    expect(req.usage?.input?.media_nicknames).toEqual([
      { identifier: 'src', files: ['s3://msg.mxf'] },
      { identifier: 'lut', files: ['s3://lut.cube'] },
    ]);
    expect(req.usage?.input?.attachments).toEqual([{ identifier: 'subs', file: 's3://subs.srt' }]);
  });

  it('takes the job name from the option over the payload', () => {
    expect(buildSubmitRequest({ job_name: 'payload' }, { jobName: 'option' })).toEqual({ job_name: 'option' });
    expect(buildSubmitRequest({ job_name: 'payload' })).toEqual({ job_name: 'payload' });
  });

  it('names the variable and the rule of a bad value', () => {
    const err = thrown(() => buildSubmitRequest({ variables: { Start: '25:00:00:00@25' } }, { declared }));
    expect(err.code).toBe('invalid_input');
    expect(err.status).toBeUndefined();
    expect(err.message).toBe(
      'variables.Start: "25:00:00:00@25" must be a TimeCode: hours must be 00 to 23 (job not submitted)',
    );
    expect(err.fieldErrors).toEqual({
      'variables.Start': '"25:00:00:00@25" must be a TimeCode: hours must be 00 to 23',
    });
  });

  it('checks values of the full form too', () => {
    const err = thrown(() =>
      buildSubmitRequest({
        usage: { input: { variables: [{ name: 'Start', typecode: 'TimeCode', value: '00:00:00:30@29.97' }] } },
      }),
    );
    expect(err.message).toMatch(/variables\.Start: "00:00:00:30@29\.97" must be a TimeCode/);
  });

  it('reports every bad field at once', () => {
    const err = thrown(() =>
      buildSubmitRequest(
        {
          variables: { Retries: 256, Ratio: 'NaN', Target: 'relative/path.mxf', Other: { value: 1, typecode: 'Num' } },
        },
        { declared },
      ),
    );
    expect(Object.keys(err.fieldErrors).sort()).toEqual([
      'variables.Other',
      'variables.Ratio',
      'variables.Retries',
      'variables.Target',
    ]);
    expect(err.fieldErrors['variables.Retries']).toMatch(/^"256" must be a Byte/);
    expect(err.fieldErrors['variables.Ratio']).toMatch(/^"NaN" must be a Double/);
    expect(err.fieldErrors['variables.Target']).toMatch(/^"relative\/path.mxf" must be a Uri/);
    expect(err.fieldErrors['variables.Other']).toMatch(/typecode "Num" is not one of/);
    for (const name of ['Retries', 'Ratio', 'Target', 'Other']) expect(err.message).toContain(`variables.${name}:`);
  });

  it('applies the declared constraints of label parameters in the short form', () => {
    const ok = buildSubmitRequest({ labels: { qc: { Level: 4, Mode: 'strict' } } }, { declared });
    expect(ok.usage?.input?.labels).toEqual([
      {
        identifier: 'qc',
        parameters: [
          {
            name: 'Level',
            typecode: 'Int32',
            value: '4',
            minimum_value: '0',
            maximum_value: '10',
            increment_value: '2',
          },
          { name: 'Mode', typecode: 'String', value: 'strict', options: { strict: [], lenient: [] } },
        ],
      },
    ]);

    const err = thrown(() => buildSubmitRequest({ labels: { qc: { Level: 12, Mode: 'loose' } } }, { declared }));
    expect(err.fieldErrors).toEqual({
      'labels.qc.parameters.Level': '"12" must be at most 10',
      'labels.qc.parameters.Mode': '"loose" must be one of the options: strict, lenient',
    });
    expect(thrown(() => buildSubmitRequest({ labels: { qc: { Level: 3 } } }, { declared })).fieldErrors).toEqual({
      'labels.qc.parameters.Level': '"3" must be 0 plus a multiple of the increment 2',
    });
    expect(thrown(() => buildSubmitRequest({ labels: { qc: { Level: 'x' } } }, { declared })).message).toContain(
      'labels.qc.parameters.Level: "x" must be an Int32',
    );
  });

  it('checks constraints given in a full-form parameter list', () => {
    const err = thrown(() =>
      buildSubmitRequest({
        labels: [
          {
            identifier: 'qc',
            parameters: [{ name: 'Level', typecode: 'Byte', value: -1, minimum_value: '0', maximum_value: '3' }],
          },
        ],
      }),
    );
    expect(err.fieldErrors).toHaveProperty('labels.qc.parameters.Level');
    expect(err.fieldErrors['labels.qc.parameters.Level']).toMatch(/^"-1" must be a Byte/);
    const err2 = thrown(() =>
      buildSubmitRequest({
        usage: {
          input: {
            labels: [
              { identifier: 'qc', parameters: [{ name: 'L', typecode: 'Int16', value: '7', maximum_value: '5' }] },
            ],
          },
        },
      }),
    );
    expect(err2.fieldErrors).toEqual({ 'labels.qc.parameters.L': '"7" must be at most 5' });
  });

  it('rejects unknown fields, unknown input kinds and non-object payloads', () => {
    expect(thrown(() => buildSubmitRequest({ variabels: { A: 1 } })).fieldErrors).toHaveProperty('variabels');
    expect(thrown(() => buildSubmitRequest({ usage: { input: { sources: [] } } })).fieldErrors).toHaveProperty(
      'usage.input.sources',
    );
    expect(thrown(() => buildSubmitRequest('text')).fieldErrors).toEqual({
      payload: expect.stringContaining('got the text "text"'),
    });
    expect(thrown(() => buildSubmitRequest([1, 2])).fieldErrors).toHaveProperty('payload');
    expect(thrown(() => buildSubmitRequest({ a: 1 }, { base: 5 })).fieldErrors).toHaveProperty('settings');
    expect(thrown(() => buildSubmitRequest({ usage: 'x' })).fieldErrors).toHaveProperty('usage');
    expect(thrown(() => buildSubmitRequest({ usage: { input: [] } })).fieldErrors).toHaveProperty('usage.input');
  });

  it('rejects malformed entries by name', () => {
    expect(thrown(() => buildSubmitRequest({ variables: { A: { valeu: '1' } } })).fieldErrors).toEqual({
      'variables.A': 'has unknown field(s) valeu (expected value, typecode, default, identifier)',
    });
    expect(thrown(() => buildSubmitRequest({ variables: { A: { value: { deep: 1 } } } })).fieldErrors).toEqual({
      'variables.A': 'value must be a string, number or boolean, got an object',
    });
    expect(thrown(() => buildSubmitRequest({ variables: 'A=1' })).fieldErrors).toHaveProperty('variables');
    expect(thrown(() => buildSubmitRequest({ variables: [{ value: '1' }] })).fieldErrors).toHaveProperty(
      'variables[0]',
    );
    expect(thrown(() => buildSubmitRequest({ media_nicknames: { src: 5 } })).fieldErrors).toHaveProperty(
      'media_nicknames.src',
    );
    expect(thrown(() => buildSubmitRequest({ attachments: { subs: [1] } })).fieldErrors).toHaveProperty(
      'attachments.subs',
    );
    expect(thrown(() => buildSubmitRequest({ labels: { qc: 'x' } })).fieldErrors).toHaveProperty('labels.qc');
    expect(thrown(() => buildSubmitRequest({ labels: { qc: { parameters: 'x' } } })).fieldErrors).toHaveProperty(
      'labels.qc.parameters',
    );
    expect(thrown(() => buildSubmitRequest({ media_nicknames: [{ files: [] }] })).fieldErrors).toHaveProperty(
      'media_nicknames[0]',
    );
  });

  it('reports request-schema failures with their path (bad base64, long job name)', () => {
    const err = thrown(() =>
      buildSubmitRequest({ job_name: 'x'.repeat(300), media_nicknames: { lut: { data: '***' } } }),
    );
    expect(err.fieldErrors).toEqual({
      job_name: 'job_name is longer than 256',
      'usage.input.media_nicknames.0.data': 'must be base64 text (RFC 4648: A-Z a-z 0-9 + / and = padding only)',
    });
  });
});

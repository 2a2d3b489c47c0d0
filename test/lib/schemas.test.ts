import { describe, expect, it } from 'vitest';
import {
  AttachmentInput,
  CHANNEL_STATES,
  Channel,
  ChannelCreateRequest,
  describeIssues,
  ErrorMessageShape,
  ErrorResponseShape,
  FRAME_RATES,
  JOB_STATES,
  LabelInput,
  NickNameInput,
  ParameterInput,
  ProblemShape,
  SubmitJobRequest,
  TERMINAL_JOB_STATES,
  TYPECODES,
  ValidationShape,
  VariableInput,
  WORKFLOW_STATUSES,
  Workflow,
  WorkflowAttachment,
  WorkflowInputs,
  WorkflowJob,
  WorkflowJobInput,
  WorkflowLabel,
  WorkflowList,
  WorkflowNickName,
  WorkflowParameter,
  WorkflowVariable,
} from '../../lib/schemas';

const WF_ID = '3f2504e0-4f89-41d3-9a0c-0305e82c3301';
const SOURCE_ID = '9b1deb4d-3b7d-4bad-9bdd-2b0d7b3dcb6d';
const CHANNEL_ID = '1b9d6bcd-bbfd-4b2d-9b5d-ab8dfbbd4bed';
const RECORDING_ID = '6ec0bd7f-11c0-43da-975e-2a8ad9ebae0b';

/** Issues of a failed parse as {path: message}. */
function issuesOf(result: { success: boolean; error?: unknown }): Record<string, string> {
  expect(result.success).toBe(false);
  // biome-ignore lint/suspicious/noExplicitAny: zod error of any schema
  return describeIssues((result as any).error);
}

describe('enumerations of the description', () => {
  it('lists the workflow statuses, job states, channel states, typecodes and frame rates', () => {
    expect([...WORKFLOW_STATUSES]).toEqual(['active', 'archived', 'deleted', 'idle']);
    expect([...JOB_STATES]).toEqual([
      'created',
      'in-process',
      'succeeded',
      'failed',
      'stopped',
      'retry',
      'malfunctioned',
    ]);
    expect([...TERMINAL_JOB_STATES]).toEqual(['succeeded', 'failed', 'stopped']);
    expect([...CHANNEL_STATES]).toEqual([
      'DRAFT',
      'INACTIVE',
      'PENDING',
      'ACTIVE',
      'RECORDING',
      'FINISHING_RECORDING',
      'ERROR',
    ]);
    expect([...TYPECODES]).toEqual([
      'Boolean',
      'Byte',
      'Int16',
      'Int32',
      'UInt32',
      'String',
      'Uri',
      'TimeCode',
      'Double',
    ]);
    expect([...FRAME_RATES]).toEqual(['23.976', '24', '25', '29.97', '30', '50', '60']);
  });
});

describe('Workflow (list entry)', () => {
  const full = {
    name: 'Transcode',
    description: 'Transcodes to mezzanine',
    id: WF_ID,
    created_at: '2024-01-02T03:04:05Z',
    updated_at: '2024-02-03T04:05:06Z',
    status: 'active',
  };

  it('reads every field of the table', () => {
    expect(Workflow.parse(full)).toEqual(full);
  });

  it.each(WORKFLOW_STATUSES)('reads status %s', (status) => {
    expect(Workflow.parse({ ...full, status }).status).toBe(status);
  });

  it('keeps unknown fields', () => {
    const parsed = Workflow.parse({ ...full, owner: 'ops', revision: 7, nested: { a: [1] } });
    expect(parsed).toMatchObject({ owner: 'ops', revision: 7, nested: { a: [1] } });
  });

  it('unwraps one-element lists where a scalar is declared', () => {
    const parsed = Workflow.parse({
      name: ['x'],
      description: ['d'],
      id: [WF_ID],
      created_at: ['2024-01-02T03:04:05Z'],
      updated_at: ['2024-02-03T04:05:06Z'],
      status: ['idle'],
    });
    expect(parsed).toEqual({ ...full, name: 'x', description: 'd', status: 'idle' });
  });

  it('does not unwrap a list of two and names the field', () => {
    expect(issuesOf(Workflow.safeParse({ id: WF_ID, name: ['x', 'y'] }))).toHaveProperty('name');
  });

  it('requires id and reads optional fields as absent', () => {
    expect(issuesOf(Workflow.safeParse({ name: 'x' }))).toHaveProperty('id');
    expect(Workflow.parse({ id: WF_ID })).toEqual({ id: WF_ID });
  });

  it('rejects a wrong type with the field in the path', () => {
    expect(issuesOf(Workflow.safeParse({ id: WF_ID, description: 5 }))).toHaveProperty('description');
  });
});

describe('WorkflowList', () => {
  it('reads workflows and next_page_token', () => {
    const parsed = WorkflowList.parse({
      workflows: [{ id: WF_ID, name: 'a' }, { id: SOURCE_ID }],
      next_page_token: 'tok-2',
    });
    expect(parsed.workflows.map((w) => w.id)).toEqual([WF_ID, SOURCE_ID]);
    expect(parsed.next_page_token).toBe('tok-2');
  });

  it('accepts a missing or null workflows list as empty and a null token as the last page', () => {
    expect(WorkflowList.parse({}).workflows).toEqual([]);
    expect(WorkflowList.parse({ workflows: null, next_page_token: null })).toEqual({
      workflows: [],
      next_page_token: null,
    });
  });

  it('unwraps a wrapped token, keeps unknown fields and reads wrapped entries', () => {
    const parsed = WorkflowList.parse({
      workflows: [{ id: [WF_ID], name: ['x'] }],
      next_page_token: ['tok'],
      total: 1001,
    });
    expect(parsed.next_page_token).toBe('tok');
    expect(parsed.workflows[0]).toEqual({ id: WF_ID, name: 'x' });
    expect(parsed).toHaveProperty('total', 1001);
  });

  it('names the entry and field of a bad workflow', () => {
    expect(issuesOf(WorkflowList.safeParse({ workflows: [{ id: WF_ID }, { name: 'no id' }] }))).toHaveProperty(
      'workflows.1.id',
    );
  });
});

describe('WorkflowJob', () => {
  const job = {
    id: 'job-1',
    name: 'nightly',
    workflow_id: WF_ID,
    workflow_name: 'Transcode',
    progress: 42.5,
    state: 'in-process',
    workflow_version: 'rev-3',
    created_at: '2024-01-02T03:04:05Z',
    updated_at: '2024-01-02T03:05:05Z',
    elapsed_time: null,
  };

  it('reads every field of the table', () => {
    expect(WorkflowJob.parse(job)).toEqual(job);
  });

  it.each(JOB_STATES)('reads state %s', (state) => {
    expect(WorkflowJob.parse({ ...job, state }).state).toBe(state);
  });

  it('reads elapsed_time in its textual forms and as null or absent', () => {
    expect(WorkflowJob.parse({ ...job, state: 'succeeded', elapsed_time: '0.00:01:00.0' }).elapsed_time).toBe(
      '0.00:01:00.0',
    );
    expect(WorkflowJob.parse({ ...job, elapsed_time: '1:02:03' }).elapsed_time).toBe('1:02:03');
    const { elapsed_time: _e, ...withoutElapsed } = job;
    expect(WorkflowJob.parse(withoutElapsed).elapsed_time).toBeUndefined();
  });

  it('unwraps wrapped scalars and keeps unknown fields', () => {
    const parsed = WorkflowJob.parse({ id: ['job-1'], progress: [10], state: ['created'], priority: 'high' });
    expect(parsed).toEqual({ id: 'job-1', progress: 10, state: 'created', priority: 'high' });
  });

  it('rejects a progress that is not a number and a missing id', () => {
    expect(issuesOf(WorkflowJob.safeParse({ id: 'j', progress: '50' }))).toHaveProperty('progress');
    expect(issuesOf(WorkflowJob.safeParse({ name: 'j' }))).toHaveProperty('id');
  });
});

describe('submission inputs as the service reports them (tolerant)', () => {
  it('reads WorkflowVariable with every field and unwraps wrapped scalars', () => {
    const v = {
      identifier: '0f8fad5b-d9cb-469f-a165-70867728950e',
      name: 'Start',
      typecode: 'TimeCode',
      default: '00:00:00:00@25',
      value: '01:00:00:00@25',
    };
    expect(WorkflowVariable.parse(v)).toEqual(v);
    expect(WorkflowVariable.parse({ name: ['Start'], typecode: ['TimeCode'], default: null, x: 1 })).toEqual({
      name: 'Start',
      typecode: 'TimeCode',
      default: null,
      x: 1,
    });
    expect(issuesOf(WorkflowVariable.safeParse({ name: 'A' }))).toHaveProperty('typecode');
  });

  it('reads WorkflowParameter with constraints and options', () => {
    const p = {
      identifier: '7c9e6679-7425-40de-944b-e07fc1f90ae7',
      name: 'Quality',
      typecode: 'Int32',
      default_value: '5',
      value: '7',
      description: 'from 1 to 10',
      minimum_value: '1',
      maximum_value: '10',
      increment_value: '1',
      options: { low: ['1', '2'], high: ['9', '10'] },
    };
    expect(WorkflowParameter.parse(p)).toEqual(p);
    expect(issuesOf(WorkflowParameter.safeParse({ ...p, options: { low: '1' } }))).toHaveProperty('options.low');
  });

  it('reads WorkflowNickName with files, data, datafilename and binary_mode', () => {
    const n = {
      name: 'Source',
      description: 'main source',
      identifier: 'src',
      files: ['s3://bucket/root.mxf', 's3://bucket/lut.cube'],
      data: 'aGVsbG8=',
      datafilename: 'hello.txt',
      binary_mode: true,
    };
    expect(WorkflowNickName.parse(n)).toEqual(n);
    expect(WorkflowNickName.parse({ identifier: ['src'], binary_mode: [false] })).toEqual({
      identifier: 'src',
      binary_mode: false,
    });
  });

  it('reads WorkflowAttachment and WorkflowLabel with parameters', () => {
    expect(WorkflowAttachment.parse({ name: 'Sub', identifier: 'subs', file: 's3://b/subs.srt', y: 2 })).toEqual({
      name: 'Sub',
      identifier: 'subs',
      file: 's3://b/subs.srt',
      y: 2,
    });
    const label = WorkflowLabel.parse({
      name: 'QC',
      identifier: 'qc',
      parameters: [{ name: ['Level'], typecode: 'Byte', maximum_value: '3' }],
    });
    expect(label.parameters?.[0]).toEqual({ name: 'Level', typecode: 'Byte', maximum_value: '3' });
    expect(issuesOf(WorkflowLabel.safeParse({ identifier: 'qc', parameters: [{ name: 'x' }] }))).toHaveProperty(
      'parameters.0.typecode',
    );
  });

  it('reads the declared inputs of a workflow', () => {
    const inputs = WorkflowInputs.parse({
      variables: [{ name: 'Start', typecode: 'TimeCode' }],
      media_nicknames: [{ identifier: 'src' }],
      attachments: [{ identifier: 'subs' }],
      labels: [{ identifier: 'qc', parameters: [{ name: 'Level', typecode: 'Byte' }] }],
    });
    expect(inputs.variables?.[0].typecode).toBe('TimeCode');
    expect(inputs.labels?.[0].parameters?.[0].name).toBe('Level');
  });
});

describe('SubmitJobRequest and WorkflowJobInput (strict)', () => {
  const request = {
    job_name: 'ingest-2024-01-02',
    usage: {
      input: {
        variables: [
          {
            identifier: '0f8fad5b-d9cb-469f-a165-70867728950e',
            name: 'Start',
            typecode: 'TimeCode',
            default: '00:00:00:00@25',
            value: '01:00:00:00@25',
          },
          { name: 'Count', typecode: 'Int32', value: '3' },
        ],
        media_nicknames: [
          { identifier: 'src', name: 'Source', files: ['s3://bucket/a.mxf'] },
          { identifier: 'lut', data: 'aGVsbG8gd29ybGQ=', datafilename: 'lut.cube', binary_mode: true },
        ],
        attachments: [{ identifier: 'subs', file: 's3://bucket/subs.srt', name: 'Subtitles' }],
        labels: [
          {
            identifier: 'qc',
            name: 'QC',
            parameters: [
              {
                name: 'Level',
                typecode: 'Byte',
                value: '2',
                default_value: '1',
                minimum_value: '0',
                maximum_value: '3',
                increment_value: '1',
                description: 'strictness',
                options: { strict: ['3'] },
              },
            ],
          },
        ],
      },
    },
  };

  it('accepts a full request with every input kind and keeps it unchanged', () => {
    expect(SubmitJobRequest.parse(request)).toEqual(request);
  });

  it('accepts an empty request and an empty input', () => {
    expect(SubmitJobRequest.parse({})).toEqual({});
    expect(SubmitJobRequest.parse({ usage: {} })).toEqual({ usage: {} });
    expect(WorkflowJobInput.parse({ input: {} })).toEqual({ input: {} });
  });

  it('rejects unknown fields at every level with a path naming the field', () => {
    expect(issuesOf(SubmitJobRequest.safeParse({ job_name: 'x', priority: 1 }))).toEqual({
      priority: 'is not a known field',
    });
    expect(issuesOf(SubmitJobRequest.safeParse({ usage: { input: {}, extra: true } }))).toHaveProperty('usage.extra');
    expect(issuesOf(SubmitJobRequest.safeParse({ usage: { input: { sources: [] } } }))).toHaveProperty(
      'usage.input.sources',
    );
    expect(
      issuesOf(
        SubmitJobRequest.safeParse({
          usage: { input: { variables: [{ name: 'A', typecode: 'String', colour: 'red' }] } },
        }),
      ),
    ).toHaveProperty('usage.input.variables.0.colour');
  });

  it('rejects wrong types with a path naming the field', () => {
    const bad = structuredClone(request) as Record<string, unknown> & typeof request;
    (bad.usage.input.variables[1] as Record<string, unknown>).value = 3;
    (bad.usage.input.media_nicknames[1] as Record<string, unknown>).binary_mode = 'yes';
    (bad.usage.input.attachments[0] as Record<string, unknown>).file = ['a', 'b'];
    (bad.usage.input.labels[0].parameters[0] as Record<string, unknown>).maximum_value = 3;
    (bad as Record<string, unknown>).job_name = 7;
    const issues = issuesOf(SubmitJobRequest.safeParse(bad));
    expect(Object.keys(issues).sort()).toEqual(
      [
        'job_name',
        'usage.input.variables.1.value',
        'usage.input.media_nicknames.1.binary_mode',
        'usage.input.attachments.0.file',
        'usage.input.labels.0.parameters.0.maximum_value',
      ].sort(),
    );
  });

  it('rejects an unknown typecode, a non-GUID identifier and a missing name of a variable', () => {
    expect(issuesOf(VariableInput.safeParse({ name: 'A', typecode: 'Float' }))).toHaveProperty('typecode');
    expect(issuesOf(VariableInput.safeParse({ name: 'A', typecode: 'String', identifier: 'abc' }))).toEqual({
      identifier: 'must be a UUID (8-4-4-4-12 hex digits)',
    });
    expect(issuesOf(VariableInput.safeParse({ name: '', typecode: 'String' }))).toEqual({ name: 'name is required' });
    expect(issuesOf(VariableInput.safeParse({ typecode: 'String' }))).toHaveProperty('name');
  });

  it('checks nickname data is base64 text and requires identifiers of nicknames, attachments and labels', () => {
    expect(NickNameInput.parse({ identifier: 'n', data: 'AAEC/w==' }).data).toBe('AAEC/w==');
    expect(issuesOf(NickNameInput.safeParse({ identifier: 'n', data: 'not base64!' })).data).toMatch(
      /^must be base64 text/,
    );
    expect(issuesOf(NickNameInput.safeParse({ identifier: 'n', files: 's3://one' }))).toHaveProperty('files');
    expect(issuesOf(NickNameInput.safeParse({ files: [] }))).toHaveProperty('identifier');
    expect(issuesOf(AttachmentInput.safeParse({ identifier: '' }))).toEqual({ identifier: 'identifier is required' });
    expect(issuesOf(LabelInput.safeParse({ name: 'x' }))).toHaveProperty('identifier');
  });

  it('checks label parameters strictly', () => {
    expect(issuesOf(ParameterInput.safeParse({ name: 'p', typecode: 'Int32', options: { a: [1] } }))).toHaveProperty(
      'options.a.0',
    );
    expect(issuesOf(ParameterInput.safeParse({ name: 'p', typecode: 'Int32', unit: 'ms' }))).toEqual({
      unit: 'is not a known field',
    });
    expect(
      issuesOf(LabelInput.safeParse({ identifier: 'qc', parameters: [{ name: 'p', typecode: 'Integer' }] })),
    ).toHaveProperty('parameters.0.typecode');
  });

  it('bounds the job name', () => {
    expect(issuesOf(SubmitJobRequest.safeParse({ job_name: '' }))).toEqual({ job_name: 'job_name must not be empty' });
    expect(issuesOf(SubmitJobRequest.safeParse({ job_name: 'x'.repeat(257) }))).toEqual({
      job_name: 'job_name is longer than 256',
    });
    expect(SubmitJobRequest.parse({ job_name: 'x'.repeat(256) }).job_name).toHaveLength(256);
  });

  it('does not unwrap one-element lists in requests', () => {
    expect(issuesOf(SubmitJobRequest.safeParse({ job_name: ['x'] }))).toHaveProperty('job_name');
  });

  it('prefixes paths with a root when one is given', () => {
    const result = SubmitJobRequest.safeParse({ job_name: 1 });
    expect(result.success).toBe(false);
    if (!result.success) expect(describeIssues(result.error, 'payload')).toHaveProperty('payload.job_name');
  });
});

describe('ChannelCreateRequest (strict)', () => {
  const request = {
    name: 'Studio A',
    description: 'evening news',
    source_id: SOURCE_ID,
    expected_properties: JSON.stringify({ video: { width: 1920, height: 1080 } }),
    continuous_recording: true,
    recording_duration: 24,
    region: 'eu-west-1',
    tags: ['news', 'studio-a'],
  };

  it('accepts every field of the table', () => {
    expect(ChannelCreateRequest.parse(request)).toEqual(request);
    expect(ChannelCreateRequest.parse({})).toEqual({});
  });

  it('requires expected_properties to be a JSON string', () => {
    expect(ChannelCreateRequest.parse({ expected_properties: '[]' }).expected_properties).toBe('[]');
    expect(issuesOf(ChannelCreateRequest.safeParse({ expected_properties: '{video:' }))).toEqual({
      expected_properties: 'must be a JSON string',
    });
    expect(issuesOf(ChannelCreateRequest.safeParse({ expected_properties: { video: {} } }))).toHaveProperty(
      'expected_properties',
    );
  });

  it('requires source_id to be a UUID and recording_duration whole hours', () => {
    expect(issuesOf(ChannelCreateRequest.safeParse({ source_id: 'cam-1' }))).toEqual({
      source_id: 'must be a UUID (8-4-4-4-12 hex digits)',
    });
    expect(issuesOf(ChannelCreateRequest.safeParse({ recording_duration: 1.5 }))).toEqual({
      recording_duration: 'must be a whole number of hours',
    });
    expect(issuesOf(ChannelCreateRequest.safeParse({ recording_duration: 0 }))).toHaveProperty('recording_duration');
    expect(issuesOf(ChannelCreateRequest.safeParse({ recording_duration: '24' }))).toHaveProperty('recording_duration');
  });

  it('rejects unknown fields and wrong types with a path naming the field', () => {
    expect(issuesOf(ChannelCreateRequest.safeParse({ ...request, state: 'ACTIVE' }))).toEqual({
      state: 'is not a known field',
    });
    const issues = issuesOf(
      ChannelCreateRequest.safeParse({ name: 5, continuous_recording: 'yes', tags: ['a', 2], region: null }),
    );
    expect(Object.keys(issues).sort()).toEqual(['continuous_recording', 'name', 'region', 'tags.1']);
  });
});

describe('Channel (tolerant)', () => {
  const channel = {
    id: CHANNEL_ID,
    name: 'Studio A',
    description: 'evening news',
    source_id: SOURCE_ID,
    continuous_recording: true,
    expected_properties: '{"video":{"width":1920}}',
    pinned: false,
    activated_at: '2024-03-01T18:00:00Z',
    auto_shutdown: { enabled: true, no_recording_timeout: 600, no_stream_timeout: 300 },
    recording_duration: 24,
    recording: {
      id: RECORDING_ID,
      channel_id: CHANNEL_ID,
      started_at: '2024-03-01T18:00:05Z',
      ended_at: '2024-03-01T19:00:05Z',
      outputs: [
        { file_name: 'news.mp4', location_url: 's3://rec/news.mp4', format: 'mp4' },
        { file_name: 'news.m3u8', location_url: 's3://rec/news.m3u8', format: 'hls' },
      ],
    },
    recording_settings: { engine_version: '2.1', settings: '{"bitrate":8000}' },
    recording_trigger: { recording_trigger: true },
    region: 'eu-west-1',
    errors: ['source lost at 18:30'],
    tags: ['news'],
    created_at: '2024-03-01T17:00:00Z',
    updated_at: '2024-03-01T19:00:05Z',
  };

  it('reads every field of the table, nested objects included', () => {
    expect(Channel.parse(channel)).toEqual(channel);
  });

  it('keeps the state field the description does not name, and other unknown fields', () => {
    const parsed = Channel.parse({ ...channel, state: 'RECORDING', auto_shutdown: { enabled: false, unit: 's' } });
    expect(parsed).toHaveProperty('state', 'RECORDING');
    expect(parsed.auto_shutdown).toEqual({ enabled: false, unit: 's' });
  });

  it('unwraps one-element lists of the nested objects and their scalars', () => {
    const parsed = Channel.parse({
      id: [CHANNEL_ID],
      name: ['Studio A'],
      pinned: [true],
      auto_shutdown: [{ enabled: [true], no_stream_timeout: [30] }],
      recording: [{ id: [RECORDING_ID], outputs: [{ file_name: ['a.mp4'], format: ['mp4'] }] }],
      recording_settings: [{ engine_version: ['2.1'] }],
      recording_trigger: [{ recording_trigger: [false] }],
      recording_duration: [12],
    });
    expect(parsed).toEqual({
      id: CHANNEL_ID,
      name: 'Studio A',
      pinned: true,
      auto_shutdown: { enabled: true, no_stream_timeout: 30 },
      recording: { id: RECORDING_ID, outputs: [{ file_name: 'a.mp4', format: 'mp4' }] },
      recording_settings: { engine_version: '2.1' },
      recording_trigger: { recording_trigger: false },
      recording_duration: 12,
    });
  });

  it('keeps declared lists as lists, even of one element', () => {
    const parsed = Channel.parse({ id: CHANNEL_ID, tags: ['only'], errors: ['one'] });
    expect(parsed.tags).toEqual(['only']);
    expect(parsed.errors).toEqual(['one']);
  });

  it('accepts null for the nullable parts of a fresh channel', () => {
    const parsed = Channel.parse({
      id: CHANNEL_ID,
      recording: null,
      activated_at: null,
      auto_shutdown: null,
      recording_settings: null,
      recording_trigger: null,
      errors: null,
    });
    expect(parsed.recording).toBeNull();
    expect(parsed.auto_shutdown).toBeNull();
  });

  it('names the field of a wrong type', () => {
    expect(
      issuesOf(Channel.safeParse({ id: CHANNEL_ID, auto_shutdown: { no_recording_timeout: 1.5 } })),
    ).toHaveProperty('auto_shutdown.no_recording_timeout');
    expect(issuesOf(Channel.safeParse({ id: CHANNEL_ID, recording: { outputs: [{ format: 4 }] } }))).toHaveProperty(
      'recording.outputs.0.format',
    );
    expect(issuesOf(Channel.safeParse({ id: CHANNEL_ID, pinned: 'no' }))).toHaveProperty('pinned');
    expect(issuesOf(Channel.safeParse({ name: 'no id' }))).toHaveProperty('id');
  });
});

describe('the four error shapes', () => {
  it('ErrorResponse: code (int32) and message, both required', () => {
    expect(ErrorResponseShape.parse({ code: 400, message: 'bad', extra: 1 })).toEqual({
      code: 400,
      message: 'bad',
      extra: 1,
    });
    expect(ErrorResponseShape.safeParse({ code: 400 }).success).toBe(false);
    expect(ErrorResponseShape.safeParse({ code: 400.5, message: 'x' }).success).toBe(false);
    expect(ErrorResponseShape.safeParse({ code: '400', message: 'x' }).success).toBe(false);
  });

  it('error body: error_message', () => {
    expect(ErrorMessageShape.parse({ error_message: 'not found' })).toEqual({ error_message: 'not found' });
    expect(ErrorMessageShape.safeParse({ error_message: 404 }).success).toBe(false);
    expect(ErrorMessageShape.safeParse({ message: 'x' }).success).toBe(false);
  });

  it('validation body: errors maps field names to messages', () => {
    expect(ValidationShape.parse({ errors: { name: 'is required', source_id: 'unknown' } }).errors).toEqual({
      name: 'is required',
      source_id: 'unknown',
    });
    expect(ValidationShape.safeParse({ errors: ['x'] }).success).toBe(false);
    expect(ValidationShape.safeParse({ errors: { name: 1 } }).success).toBe(false);
  });

  it('problem body: every field, errors items with pointer, type and detail', () => {
    const problem = {
      title: 'Bad Request',
      status: 400,
      trace_id: '00-abc-def-01',
      type: 'https://errors.example/invalid',
      detail: 'max_results must be between 1 and 100',
      instance: '/workflow/v1/space/workflows',
      errors: [{ pointer: 'max_results', type: 'invalid_value', detail: 'must be between 1 and 100' }],
    };
    expect(ProblemShape.parse(problem)).toEqual(problem);
    expect(ProblemShape.parse({})).toEqual({});
    expect(ProblemShape.safeParse({ status: '400' }).success).toBe(false);
    expect(ProblemShape.safeParse({ errors: [{ pointer: 5 }] }).success).toBe(false);
  });
});

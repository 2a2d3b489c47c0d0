import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { type Simulator, startSimulator } from '../../lib/simulator';
import { CONFIG_ID, DEMO, helper, initRuntime, loadOperation, onlyFailure, trigger } from '../support/node-red-runtime';

/**
 * Malformed messages and bad node settings, across the four operation nodes
 * in a real runtime: each must end in exactly one Catch-visible error whose
 * message names the offending field, with nothing thrown out of a handler
 * and no unhandled promise rejection.
 */

interface Case {
  /** What is wrong, for the test title. */
  what: string;
  msg: Record<string, unknown>;
  /** Text the error message must contain: the field it names. */
  field: string;
}

interface Group {
  node: string;
  props: Record<string, unknown>;
  options?: { configProps?: Record<string, unknown>; apiKey?: string; accessToken?: string };
  cases: Case[];
}

const TRANSCODE = DEMO.workflows.transcode;
const circular: Record<string, unknown> = { variables: {} };
circular.self = circular;
const HUGE = 'x'.repeat(5 * 1024 * 1024);

const groups: Group[] = [
  {
    node: 'media-spaces-list-workflows',
    props: { mode: 'page' },
    cases: [
      { what: 'msg.status a number', msg: { status: 5 }, field: 'msg.status' },
      { what: 'msg.status unknown', msg: { status: 'running' }, field: 'status' },
      { what: 'msg.status a status-node object', msg: { status: { fill: 'red', text: 'x' } }, field: 'msg.status' },
      { what: 'msg.status null', msg: { status: null }, field: 'msg.status' },
      { what: 'msg.status a list', msg: { status: ['active'] }, field: 'msg.status' },
      { what: 'msg.max_results 0', msg: { max_results: 0 }, field: 'max_results' },
      { what: 'msg.max_results 101', msg: { max_results: 101 }, field: 'max_results' },
      { what: 'msg.max_results negative', msg: { max_results: -1 }, field: 'max_results' },
      { what: 'msg.max_results text', msg: { max_results: 'ten' }, field: 'msg.max_results' },
      { what: 'msg.max_results fraction', msg: { max_results: 2.5 }, field: 'msg.max_results' },
      { what: 'msg.max_results NaN', msg: { max_results: Number.NaN }, field: 'msg.max_results' },
      { what: 'msg.max_results Infinity', msg: { max_results: Number.POSITIVE_INFINITY }, field: 'msg.max_results' },
      { what: 'msg.max_results null', msg: { max_results: null }, field: 'msg.max_results' },
      { what: 'msg.max_results empty text', msg: { max_results: '' }, field: 'msg.max_results' },
      { what: 'msg.max_results an object', msg: { max_results: { n: 1 } }, field: 'msg.max_results' },
      { what: 'msg.max_results exponent text', msg: { max_results: '1e2' }, field: 'msg.max_results' },
      { what: 'msg.page_token a number', msg: { page_token: 42 }, field: 'msg.page_token' },
      { what: 'msg.page_token an object', msg: { page_token: { t: 1 } }, field: 'msg.page_token' },
      { what: 'msg.page_token forged (400 from the service)', msg: { page_token: 'forged' }, field: 'page_token' },
    ],
  },
  {
    node: 'media-spaces-submit-job',
    props: { workflowId: TRANSCODE, workflowIdType: 'str' },
    cases: [
      // text, numbers, booleans and Buffers only trigger (test/nodes/inject-trigger.test.ts); these are mistakes
      { what: 'payload JSON text', msg: { payload: '{"variables":{}}' }, field: 'msg.payload' },
      { what: 'payload a list', msg: { payload: [1, 2] }, field: 'msg.payload' },
      { what: 'payload 5 MB of JSON text', msg: { payload: `{${HUGE}` }, field: 'msg.payload' },
      { what: 'variables text', msg: { payload: { variables: 'x' } }, field: 'variables' },
      { what: 'variable value a list', msg: { payload: { variables: { A: [1] } } }, field: 'variables.A' },
      {
        what: 'variable with unknown fields',
        msg: { payload: { variables: { A: { nested: {} } } } },
        field: 'variables.A',
      },
      {
        what: 'variable typecode unknown',
        msg: { payload: { variables: { Visibility: { value: 'a', typecode: 'Colour' } } } },
        field: 'variables.Visibility',
      },
      { what: 'usage text', msg: { payload: { usage: 'x' } }, field: 'usage' },
      { what: 'usage.input a list', msg: { payload: { usage: { input: [] } } }, field: 'usage.input' },
      { what: 'label a number', msg: { payload: { labels: { qc: 5 } } }, field: 'labels.qc' },
      { what: 'nickname a number', msg: { payload: { media_nicknames: { src: 5 } } }, field: 'media_nicknames.src' },
      { what: 'attachment a number', msg: { payload: { attachments: { subs: 5 } } }, field: 'attachments.subs' },
      { what: 'unknown payload field', msg: { payload: { foo: 1 } }, field: 'foo' },
      { what: 'payload referring to itself', msg: { payload: circular }, field: 'self' },
      { what: 'payload job_name a number', msg: { payload: { job_name: 5 } }, field: 'job_name' },
      { what: 'payload job_name too long', msg: { payload: { job_name: 'j'.repeat(300) } }, field: 'job_name' },
      { what: 'msg.workflow_id not a UUID', msg: { workflow_id: 'not-a-uuid' }, field: 'workflow_id' },
      { what: 'msg.workflow_id a number', msg: { workflow_id: 12 }, field: 'workflow_id' },
      { what: 'msg.workflow_id an object', msg: { workflow_id: { id: TRANSCODE } }, field: 'workflow_id' },
      { what: 'msg.workflow_id null', msg: { workflow_id: null }, field: 'workflow_id' },
      { what: 'msg.workflow_id empty', msg: { workflow_id: '' }, field: 'workflow_id' },
      { what: 'msg.workflow_id with a path', msg: { workflow_id: `${TRANSCODE}/../x` }, field: 'workflow_id' },
      { what: 'msg.job_name a number', msg: { job_name: 5 }, field: 'msg.job_name' },
      { what: 'msg.job_name an object', msg: { job_name: { n: 1 } }, field: 'msg.job_name' },
      { what: 'msg.idempotency_key a number', msg: { idempotency_key: 5 }, field: 'msg.idempotency_key' },
      { what: 'msg.idempotency_key with spaces', msg: { idempotency_key: 'has space' }, field: 'msg.idempotency_key' },
      { what: 'msg.idempotency_key too long', msg: { idempotency_key: 'k'.repeat(300) }, field: 'msg.idempotency_key' },
      {
        what: 'TimeCode out of range (declared typecode)',
        msg: { workflow_id: DEMO.workflows.render, payload: { variables: { StartTimecode: '25:00:00:00@25' } } },
        field: 'variables.StartTimecode',
      },
      {
        what: 'Boolean that is not',
        msg: { workflow_id: DEMO.workflows.render, payload: { variables: { BurnIn: 'maybe' } } },
        field: 'variables.BurnIn',
      },
      {
        what: 'Byte above 255',
        msg: { workflow_id: DEMO.workflows.render, payload: { variables: { Priority: 300 } } },
        field: 'variables.Priority',
      },
      {
        what: 'label parameter below its minimum',
        msg: { workflow_id: DEMO.workflows.loudness, payload: { labels: { loudness: { TargetLufs: -40 } } } },
        field: 'labels.loudness.parameters.TargetLufs',
      },
      {
        what: 'label parameter off its increment',
        msg: { workflow_id: DEMO.workflows.loudness, payload: { labels: { loudness: { TargetLufs: -23.3 } } } },
        field: 'labels.loudness.parameters.TargetLufs',
      },
      {
        what: 'label parameter not among its options',
        msg: { workflow_id: DEMO.workflows.loudness, payload: { labels: { delivery: { Channels: 4 } } } },
        field: 'labels.delivery.parameters.Channels',
      },
    ],
  },
  {
    node: 'media-spaces-create-channel',
    props: { channelName: 'Studio 1' },
    cases: [
      { what: 'payload JSON text', msg: { payload: '{"name":"Studio 2"}' }, field: 'msg.payload' },
      { what: 'payload a list', msg: { payload: [] }, field: 'msg.payload' },
      { what: 'name a number', msg: { payload: { name: 5 } }, field: 'name' },
      { what: 'name empty', msg: { payload: { name: '' } }, field: 'name' },
      { what: 'source_id not a UUID', msg: { payload: { source_id: 'cam-1' } }, field: 'source_id' },
      {
        what: 'expected_properties not JSON',
        msg: { payload: { expected_properties: '{oops' } },
        field: 'expected_properties',
      },
      {
        what: 'expected_properties a number',
        msg: { payload: { expected_properties: 5 } },
        field: 'expected_properties',
      },
      {
        what: 'recording_duration fractional',
        msg: { payload: { recording_duration: 1.5 } },
        field: 'recording_duration',
      },
      { what: 'recording_duration text', msg: { payload: { recording_duration: '4' } }, field: 'recording_duration' },
      { what: 'recording_duration zero', msg: { payload: { recording_duration: 0 } }, field: 'recording_duration' },
      {
        what: 'continuous_recording text',
        msg: { payload: { continuous_recording: 'yes' } },
        field: 'continuous_recording',
      },
      { what: 'tags as text', msg: { payload: { tags: 'a,b' } }, field: 'tags' },
      { what: 'tags with a number', msg: { payload: { tags: [1] } }, field: 'tags' },
      { what: 'region a number', msg: { payload: { region: 5 } }, field: 'region' },
      { what: 'unknown field', msg: { payload: { bogus: 1 } }, field: 'bogus' },
      { what: 'msg.idempotency_key an object', msg: { idempotency_key: {} }, field: 'msg.idempotency_key' },
    ],
  },
  {
    node: 'media-spaces-delete-event',
    props: { eventId: 'event_id', eventIdType: 'msg' },
    cases: [
      { what: 'event_id missing', msg: {}, field: 'event_id' },
      { what: 'event_id an object', msg: { event_id: { id: 'e' } }, field: 'event_id' },
      { what: 'event_id a list', msg: { event_id: ['e'] }, field: 'event_id' },
      { what: 'event_id null', msg: { event_id: null }, field: 'event_id' },
      { what: 'event_id empty', msg: { event_id: '' }, field: 'event_id' },
      { what: 'event_id blank', msg: { event_id: '   ' }, field: 'event_id' },
      { what: 'event_id too long', msg: { event_id: 'e'.repeat(300) }, field: 'event_id' },
      { what: 'event_id a relative segment', msg: { event_id: '..' }, field: 'event_id' },
      { what: 'event_id a boolean', msg: { event_id: true }, field: 'event_id' },
      { what: 'event_id NaN', msg: { event_id: Number.NaN }, field: 'event_id' },
      { what: 'event_id with a slash (400 from the service)', msg: { event_id: 'a/b' }, field: 'event_id' },
    ],
  },
  // bad node settings, each named as its dialog labels it, in the sentence the dialog shows
  {
    node: 'media-spaces-list-workflows',
    props: { mode: 'all', maxResults: 'lots', statusFilter: 'active' },
    cases: [
      { what: 'page size setting not a number', msg: {}, field: 'Page size must be a whole number from 1 to 100' },
    ],
  },
  {
    node: 'media-spaces-list-workflows',
    props: { mode: 'all', statusFilter: 'sleeping' },
    cases: [{ what: 'status setting unknown', msg: {}, field: 'Status must be one of active' }],
  },
  {
    node: 'media-spaces-submit-job',
    props: { workflowId: TRANSCODE, jobInputs: '{"variables": ', jobInputsType: 'json' },
    cases: [{ what: 'inputs setting not JSON', msg: {}, field: 'Inputs (json' }],
  },
  {
    node: 'media-spaces-submit-job',
    props: { workflowId: TRANSCODE, jobInputs: '[1, 2]', jobInputsType: 'json' },
    cases: [{ what: 'inputs setting a list', msg: {}, field: 'Inputs must be an object' }],
  },
  {
    node: 'media-spaces-submit-job',
    props: { workflowId: 'nope', workflowIdType: 'str' },
    cases: [{ what: 'workflow id setting not a UUID', msg: {}, field: 'Workflow id must be a UUID' }],
  },
  {
    node: 'media-spaces-submit-job',
    props: { workflowId: '', workflowIdType: 'str' },
    cases: [{ what: 'no workflow anywhere', msg: {}, field: 'workflow_id' }],
  },
  {
    node: 'media-spaces-submit-job',
    props: { workflowId: 'a..b', workflowIdType: 'msg' },
    cases: [{ what: 'workflow id setting a bad msg path', msg: {}, field: 'Workflow id (msg "a..b") cannot be read' }],
  },
  // a setting no msg property overrides is named by its label in the dialog
  {
    node: 'media-spaces-create-channel',
    props: { channelName: 'x', recordingDuration: 'four' },
    cases: [{ what: 'keep-last setting not a number', msg: {}, field: 'Keep last' }],
  },
  {
    node: 'media-spaces-create-channel',
    props: { channelName: 'x', sourceId: 'camera one' },
    cases: [{ what: 'source setting not a UUID', msg: {}, field: 'source_id' }],
  },
  {
    node: 'media-spaces-create-channel',
    props: { channelName: 'x', expectedProperties: '{' },
    cases: [{ what: 'expected properties setting not JSON', msg: {}, field: 'expected_properties' }],
  },
  {
    node: 'media-spaces-list-workflows',
    props: {},
    options: { configProps: { spaceId: '' } },
    cases: [{ what: 'config without space id', msg: {}, field: 'Space ID' }],
  },
  {
    node: 'media-spaces-list-workflows',
    props: {},
    options: { configProps: { workflowUrl: 'ftp://media.example.com' } },
    cases: [{ what: 'config URL not http', msg: {}, field: 'Workflow URL' }],
  },
  {
    node: 'media-spaces-submit-job',
    props: { workflowId: TRANSCODE },
    options: { configProps: { workflowPrefix: '/workflow/v2' } },
    cases: [{ what: 'config prefix unknown', msg: {}, field: 'Path prefix' }],
  },
  {
    node: 'media-spaces-delete-event',
    props: { eventId: 'e', eventIdType: 'str' },
    options: { configProps: { timeout: 'soon', retries: '-1' } },
    cases: [{ what: 'config timeout and retries not numbers', msg: {}, field: 'Timeout' }],
  },
  {
    node: 'media-spaces-list-workflows',
    props: {},
    options: { apiKey: '' },
    cases: [{ what: 'config without API key', msg: {}, field: 'API key' }],
  },
  {
    node: 'media-spaces-create-channel',
    props: { channelName: 'x' },
    options: { accessToken: '' },
    cases: [{ what: 'config without access token', msg: {}, field: 'access token' }],
  },
  {
    node: 'media-spaces-delete-event',
    props: { server: '', eventId: 'e', eventIdType: 'str' },
    cases: [{ what: 'no config node selected', msg: {}, field: 'server' }],
  },
  {
    node: 'media-spaces-submit-job',
    props: { server: 'missing-config', workflowId: TRANSCODE },
    cases: [{ what: 'config node not deployed', msg: {}, field: 'config' }],
  },
];

let sim: Simulator;
const unhandled: unknown[] = [];
const onUnhandled = (reason: unknown) => unhandled.push(reason);

beforeAll(async () => {
  initRuntime();
  sim = await startSimulator();
  process.on('unhandledRejection', onUnhandled);
});

afterAll(async () => {
  process.off('unhandledRejection', onUnhandled);
  await sim.close();
});

afterEach(async () => {
  await helper.unload();
});

const total = groups.reduce((n, g) => n + g.cases.length, 0);

describe(`bad input table (${total} cases)`, () => {
  it('has at least 50 cases across the four operation nodes and bad settings', () => {
    expect(total).toBeGreaterThanOrEqual(50);
    expect(new Set(groups.map((g) => g.node)).size).toBe(4);
  });

  for (const group of groups) {
    const title = `${group.node} ${JSON.stringify(group.props)}${group.options ? ` ${JSON.stringify(group.options)}` : ''}`;
    it(title, async () => {
      await loadOperation(sim, group.node, group.props, group.options);
      const node = helper.getNode('op');
      const statuses: Array<Record<string, unknown>> = [];
      const original = node.status as (s: unknown) => void;
      node.status = (s: Record<string, unknown>) => {
        statuses.push(s);
        original.call(node, s);
      };
      for (const c of group.cases) {
        const caught = onlyFailure(await trigger(c.msg));
        const error = caught.error as { message: string; code: string; cause: { fieldErrors: object } };
        expect(error.message, c.what).toContain(c.field);
        expect(typeof error.code, c.what).toBe('string');
        expect(error.cause.fieldErrors, c.what).toBeTypeOf('object');
        expect(error.message.length, c.what).toBeLessThan(2_000);
        await vi.waitFor(() => expect(statuses.at(-1), c.what).toMatchObject({ fill: 'red', shape: 'ring' }), {
          timeout: 5000,
        });
      }
      expect(unhandled).toEqual([]);
    });
  }

  it('a message that is fine after all those still works (nothing was left broken)', async () => {
    await loadOperation(sim, 'media-spaces-list-workflows', { mode: 'page' });
    const outcome = await trigger({ max_results: '2' });
    expect(outcome.caught).toEqual([]);
    expect((outcome.outputs[0].payload as { workflows: unknown[] }).workflows).toHaveLength(2);
    expect(unhandled).toEqual([]);
    expect(CONFIG_ID).toBe('cfg');
  });
});

import type { NodeModule } from 'node-red-node-test-helper';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type RequestLogEntry, type Simulator, startSimulator } from '../../lib/simulator';
import { nodeModule } from '../support/node-modules';
import {
  ALL_NODES,
  credentials,
  DEMO,
  helper,
  initRuntime,
  type Msg,
  type Outcome,
  operationFlow,
  trigger,
} from '../support/node-red-runtime';

const EVERY_NODE: NodeModule[] = [
  ...ALL_NODES,
  nodeModule('media-spaces-follow-job'),
  nodeModule('media-spaces-wait-workflow'),
  nodeModule('media-spaces-schedule'),
];

/**
 * Ids from messages and settings cannot change the request path. Each hostile
 * value goes through the real node in a Node-RED runtime against the
 * simulator, and the simulator's request log shows what went out: either
 * nothing (the node failed with invalid_input, caught once), or requests to
 * exactly the expected route, with the value as one percent-encoded path
 * segment (or one query parameter) that decodes back to itself - never
 * another route, another segment count, an extra query parameter or an
 * injected header.
 */

const SPACE = DEMO.space;
const WF = 'aaaaaaaa-0000-4000-8000-000000000006';

const HOSTILE = [
  '../',
  '..',
  '.',
  '..%2F',
  '%2F',
  '%2e%2e',
  '../../workflows',
  '..\\..\\x',
  '\\',
  'a/b',
  '/',
  '//',
  '?x=1',
  'x?max_results=1',
  '#frag',
  'a#b',
  ';x=1',
  '&status=active',
  '%',
  '%00',
  '\u0000',
  'a\r\nX-Injected: 1',
  'a\nb',
  ' ',
  'a b',
  'événement-ü-日本-🎬',
  '\u202e\u200b',
  '\ud800',
  'x'.repeat(300),
];

/** One ordinary message for each node type that calls the service. */
const EVERY_NODE_PATHS: Array<{ type: string; props?: Record<string, unknown>; msg: Record<string, unknown> }> = [
  { type: 'media-spaces-list-workflows', props: { mode: 'all' }, msg: {} },
  { type: 'media-spaces-submit-job', props: { workflowId: WF, workflowIdType: 'str' }, msg: { payload: {} } },
  { type: 'media-spaces-create-channel', msg: { payload: { name: 'x' } } },
  { type: 'media-spaces-delete-event', msg: { event_id: 'e1' } },
  {
    type: 'media-spaces-follow-job',
    props: { interval: 20 },
    msg: { job_id: 'b0000000-0000-4000-8000-000000000001', workflow_id: WF },
  },
  {
    type: 'media-spaces-wait-workflow',
    props: { interval: 20, timeout: '500' },
    msg: { workflow_id: WF },
  },
];

interface Case {
  label: string;
  node: string;
  props?: Record<string, unknown>;
  configProps?: Record<string, unknown>;
  msg: Record<string, unknown>;
  /** What may go out: the route and the raw path; null when nothing may be sent. */
  expect: null | { route: string; path: (value: string) => string; query?: (value: string) => Record<string, string> };
  value: string;
}

describe('security: ids cannot change the request path', () => {
  let sim: Simulator;
  const figures = { cases: 0, rejected: 0, encoded: 0, requests: 0 };

  beforeAll(async () => {
    initRuntime();
    sim = await startSimulator();
  });
  afterEach(async () => {
    await helper.unload();
  });
  afterAll(async () => {
    await sim.close();
    process.stdout.write(`security paths figures: ${JSON.stringify(figures)}\n`);
  });

  /** Runs one case; returns the requests it caused and its outcome. */
  async function run(c: Case): Promise<{ sent: RequestLogEntry[]; outcome: Outcome }> {
    await helper.load(EVERY_NODE, operationFlow(sim, c.node, c.props ?? {}, c.configProps), credentials());
    const before = sim.requests().length;
    const outcome = await trigger(c.msg);
    const sent = sim.requests().slice(before);
    return { sent, outcome };
  }

  function check(c: Case, sent: RequestLogEntry[], outcome: Outcome): void {
    figures.cases++;
    figures.requests += sent.length;
    const where = `${c.label} ${JSON.stringify(c.value).slice(0, 40)}`;
    const failure: Msg | undefined = outcome.caught[0];
    if (sent.length === 0) {
      // nothing sent: the node said why, once, as invalid input naming the field
      expect(outcome.caught, where).toHaveLength(1);
      expect(outcome.completed, where).toHaveLength(0);
      expect(failure?.error?.code, where).toBe('invalid_input');
      figures.rejected++;
      return;
    }
    expect(
      c.expect,
      `${where}: nothing may be sent, but ${sent.map((r) => `${r.method} ${r.path}`).join(', ')}`,
    ).not.toBe(null);
    if (!c.expect) return;
    figures.encoded++;
    for (const r of sent) {
      expect(r.route, `${where}: ${r.method} ${r.path}`).toBe(c.expect.route);
      expect(r.path, where).toBe(c.expect.path(c.value));
      if (c.expect.query) expect(r.query, where).toEqual(c.expect.query(c.value));
      else expect(r.query, where).toEqual({});
    }
    // the service's answer (404, 400, ...) comes back as the node's one outcome
    expect(outcome.caught.length + outcome.completed.length, where).toBe(1);
  }

  const segment = (value: string) => encodeURIComponent(value);

  it.each(HOSTILE)(
    'delete-event msg.event_id %j: one encoded segment of DELETE /events/{id}, or invalid input',
    async (value) => {
      const c: Case = {
        label: 'msg.event_id',
        node: 'media-spaces-delete-event',
        msg: { event_id: value },
        value,
        expect: { route: 'delete_event', path: (v) => `/livecapture/v1/${SPACE}/events/${segment(v)}` },
      };
      const { sent, outcome } = await run(c);
      check(c, sent, outcome);
      if (sent.length > 0) {
        const last = sent[0].path.split('/').at(-1) ?? '';
        expect(decodeURIComponent(last)).toBe(value);
      }
    },
  );

  it.each(HOSTILE)(
    'follow-job msg.job_id %j: one encoded segment of GET /jobs/{id}, or invalid input',
    async (value) => {
      const c: Case = {
        label: 'msg.job_id',
        node: 'media-spaces-follow-job',
        props: { interval: 20, backoffMax: 40 },
        msg: { job_id: value, workflow_id: WF },
        value,
        expect: { route: 'job', path: (v) => `/workflow/v1/${SPACE}/workflows/${WF}/jobs/${segment(v)}` },
      };
      const { sent, outcome } = await run(c);
      check(c, sent, outcome);
    },
  );

  it.each(HOSTILE)('submit-job msg.workflow_id %j: invalid input, nothing sent', async (value) => {
    const c: Case = {
      label: 'msg.workflow_id',
      node: 'media-spaces-submit-job',
      msg: { workflow_id: value, payload: {} },
      value,
      expect: null,
    };
    const { sent, outcome } = await run(c);
    check(c, sent, outcome);
    expect(outcome.caught[0]?.error?.cause?.fieldErrors).toHaveProperty('workflow_id');
  });

  it.each(HOSTILE)('follow-job msg.workflow_id %j: invalid input, nothing sent', async (value) => {
    const c: Case = {
      label: 'follow-job msg.workflow_id',
      node: 'media-spaces-follow-job',
      props: { interval: 20, backoffMax: 40 },
      msg: { job_id: 'b0000000-0000-4000-8000-000000000001', workflow_id: value },
      value,
      expect: null,
    };
    const { sent, outcome } = await run(c);
    check(c, sent, outcome);
  });

  it.each(HOSTILE)(
    'list-workflows msg.page_token %j: one query parameter of GET /workflows, path unchanged',
    async (value) => {
      const c: Case = {
        label: 'msg.page_token',
        node: 'media-spaces-list-workflows',
        props: { mode: 'page' },
        msg: { page_token: value },
        value,
        expect: {
          route: 'list',
          path: () => `/workflow/v1/${SPACE}/workflows`,
          query: (v) => ({ page_token: v }),
        },
      };
      const { sent, outcome } = await run(c);
      check(c, sent, outcome);
    },
  );

  it.each(HOSTILE)('config spaceId %j: every node refuses before sending', async (value) => {
    for (const node of EVERY_NODE_PATHS) {
      const c: Case = {
        label: `config spaceId (${node.type})`,
        node: node.type,
        props: node.props,
        configProps: { spaceId: value },
        msg: node.msg,
        value,
        expect: null,
      };
      const { sent, outcome } = await run(c);
      check(c, sent, outcome);
      await helper.unload();
    }
  });

  it.each(['a\r\nX-Injected: 1', 'a\nb', 'key with space', 'ü', 'x'.repeat(300)])(
    'msg.idempotency_key %j cannot inject a header: invalid input, nothing sent',
    async (value) => {
      const c: Case = {
        label: 'msg.idempotency_key',
        node: 'media-spaces-create-channel',
        msg: { idempotency_key: value, payload: { name: 'x' } },
        value,
        expect: null,
      };
      const { sent, outcome } = await run(c);
      check(c, sent, outcome);
    },
  );
});

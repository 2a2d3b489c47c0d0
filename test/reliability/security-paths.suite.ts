import { chmodSync, existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { NodeModule } from 'node-red-node-test-helper';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { JsonlAsRunStore } from '../../lib/asrun/jsonl-store';
import { type RequestLogEntry, type Simulator, startSimulator } from '../../lib/simulator';
import { feedDir } from '../../nodes/schedule/feed-access';
import type { ScheduleAPI, ScheduleNode } from '../../nodes/schedule/types';
import { vcalendar, vevent } from '../support/ical-text';
import { nodeModule } from '../support/node-modules';
import {
  ALL_NODES,
  configNode,
  credentials,
  DEMO,
  helper,
  initRuntime,
  type Msg,
  type Outcome,
  operationFlow,
  trigger,
  waitFor,
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

/** A file's or folder's permission bits. */
const modeOf = (p: string) => statSync(p).mode & 0o777;

/**
 * Node ids name files and folders too: the schedule's journal and its feeds' last good copies. Whatever the
 * id, each is one name inside the package's folder of the user directory; and what the package writes there
 * (feed copies, the as-run log, the journal) is the owner's only: files 0600, their folders 0700.
 */
describe("security: node ids cannot move files, and the files are the owner's", () => {
  let base: string;
  let userDir: string;

  beforeAll(() => {
    initRuntime();
    base = mkdtempSync(path.join(os.tmpdir(), 'ms-paths-'));
    userDir = path.join(base, 'a', 'b', 'user');
    mkdirSync(userDir, { recursive: true });
  });
  afterEach(async () => {
    await helper.unload();
  });
  afterAll(() => {
    rmSync(base, { recursive: true, force: true });
  });

  it.each([...HOSTILE, '../../../../escaped', '/etc', 'C:\\x', '..\\..\\..\\x'])(
    'a schedule id %j names one folder inside feeds/',
    (id) => {
      const feeds = path.join(userDir, '.media-spaces', 'feeds');
      const dir = feedDir({ settings: { userDir } } as ScheduleAPI, { id } as ScheduleNode) ?? '';
      expect(path.dirname(dir)).toBe(feeds);
      expect(['.', '..', '']).not.toContain(path.basename(dir));
      expect(path.basename(dir)).toMatch(/^[A-Za-z0-9_-][A-Za-z0-9_.-]*$/);
    },
  );

  it('a deployed schedule whose id climbs out with ../ keeps its feed copy in feeds/, 0600 in 0700 folders', async () => {
    const sim = await startSimulator();
    try {
      const id = '../../../../escaped-feed';
      const ics = path.join(base, 'feed.ics');
      const start = Math.ceil(Date.now() / 1000) * 1000 + 3_600_000;
      writeFileSync(ics, vcalendar(...vevent({ uid: 'p@test', title: 'REC Paths', start, end: start + 1_800_000 })));
      helper.settings({ userDir });
      await helper.load(
        [nodeModule('media-spaces-config'), nodeModule('media-spaces-schedule')],
        [
          { id: 'tab', type: 'tab', label: 'paths' },
          configNode(sim),
          {
            id,
            z: 'tab',
            type: 'media-spaces-schedule',
            source: 'yaml',
            yaml: `windows:\n  - id: cal\n    ical: ${JSON.stringify(ics)}\n    timezone: UTC\n`,
            catchUp: false,
            server: 'cfg',
            wires: [[], [], []],
          },
        ],
        credentials(),
      );
      const feeds = path.join(userDir, '.media-spaces', 'feeds');
      const dir = path.join(feeds, '_._.._.._.._escaped-feed');
      await waitFor(() => existsSync(dir) && readdirSync(dir).some((f) => f.endsWith('.body')), 10_000);
      // the id as a path would have been base/a/escaped-feed (outside the user directory): nothing there
      expect(existsSync(path.join(feeds, id))).toBe(false);
      expect(readdirSync(path.join(base, 'a'))).toEqual(['b']);
      expect(readdirSync(feeds)).toEqual(['_._.._.._.._escaped-feed']);
      for (const f of readdirSync(dir)) expect([f, modeOf(path.join(dir, f))]).toEqual([f, 0o600]);
      for (const d of [dir, feeds, path.dirname(feeds)]) expect([d, modeOf(d)]).toEqual([d, 0o700]);
    } finally {
      helper.settings({});
      await helper.unload();
      await sim.close();
    }
  });

  it('the as-run log: day files 0600 in a 0700 folder, also a folder an earlier version left 0755', async () => {
    const dir = path.join(userDir, 'media-spaces-as-run');
    mkdirSync(dir, { recursive: true });
    chmodSync(dir, 0o755);
    const store = new JsonlAsRunStore(dir);
    await store.append({
      kind: 'job',
      at: new Date().toISOString(),
      event: { slot: 's:w:o', job: { id: 'j', state: 'succeeded' } },
    });
    const files = readdirSync(dir);
    expect(files).toHaveLength(1);
    expect(modeOf(path.join(dir, files[0]))).toBe(0o600);
    expect(modeOf(dir)).toBe(0o700);
  });
});

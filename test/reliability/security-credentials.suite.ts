import { mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { errorFromResponse, REDACTED, redactSecrets } from '../../lib/errors';
import {
  credentialsFor,
  fixtureDocument,
  fixtureSpace,
  fixtureWorkflow,
  type Simulator,
  spaceIdFor,
  startSimulator,
  workflowIdFor,
} from '../../lib/simulator';
import { type Captured, captureNodes, leaks, readCaptured } from './security-support';
import {
  type FlowNode,
  httpJson,
  type NodeRedProcess,
  prepareUserDir,
  ROOT,
  sleep,
  startNodeRed,
} from './support-restart/node-red';

/**
 * Credentials never leave the config node: a real Node-RED (logging at
 * trace, audit on) runs every node of the package against three config nodes
 * - the simulator with valid credentials, the simulator with wrong ones (401
 * everywhere), and a "leaky" service that echoes the credential it was sent
 * back in every error body, in each of the service's error shapes - plus the
 * editor endpoints. The API keys and tokens (all distinctive strings) must
 * not appear in: the exported flows (GET /flows) or the credentials endpoint,
 * any line Node-RED printed (stdout and stderr, every level), any output or
 * Catch message, any node status, any editor endpoint answer, or the context
 * files. The run must also show that every node did its work and met the
 * failures (so the absence of secrets means something).
 */

const PREFIX = 'zq81secret';
const GOOD = credentialsFor(PREFIX);
const SPACE = spaceIdFor(PREFIX);
const WF_QUICK = workflowIdFor('Quick');
const WF_INPUT = workflowIdFor('Needs input');
const WF_FAILS = workflowIdFor('Fails');
const BAD = { key: `${PREFIX}-WRONG-api-key-51c3`, token: `${PREFIX}-WRONG-live-token-8e0d` };
const LEAKY = { key: `${PREFIX}-LEAKY-api-key-9c2e`, token: `${PREFIX}-LEAKY-live-token-4b7d` };
const TYPED = `${PREFIX}-TYPED-api-key-77f0`;
/** A sign-in token (the config dialog's Sign in) held by a config node, and one typed into the dialog. */
const SIGNED = `${PREFIX}-SIGNED-in-token-3a9b`;
const SIGNED_TYPED = `${PREFIX}-SIGNED-typed-token-6d21`;
/** A schedule's feed secrets (its `feeds` credential): a private calendar address and the token it needs. */
const FEED_PATH = `${PREFIX}-FEED-private-path-2b8c`;
const FEED_TOKEN = `${PREFIX}-FEED-token-d41e`;
const SECRETS = [
  GOOD.admin,
  GOOD.token,
  BAD.key,
  BAD.token,
  LEAKY.key,
  LEAKY.token,
  TYPED,
  SIGNED,
  SIGNED_TYPED,
  FEED_PATH,
  FEED_TOKEN,
];
const FEED_WINDOW = { id: 'cal', ical: 'private', match: { title: '^REC ' }, padding: { before: '1m', after: '2m' } };

/** A calendar with one event tomorrow (no secret in it: what the test feed lists is the feed's own text). */
function tomorrowCalendar(): string {
  const day = new Date(Math.ceil(Date.now() / 86_400_000) * 86_400_000 + 86_400_000);
  const stamp = (h: number) => `${day.toISOString().slice(0, 10).replace(/-/g, '')}T${String(h).padStart(2, '0')}0000Z`;
  return [
    'BEGIN:VCALENDAR',
    'VERSION:2.0',
    'PRODID:-//media-spaces//security//EN',
    'BEGIN:VEVENT',
    'UID:security@feed',
    'DTSTAMP:20260101T000000Z',
    'SUMMARY:REC Security feed',
    `DTSTART:${stamp(10)}`,
    `DTEND:${stamp(11)}`,
    'END:VEVENT',
    'END:VCALENDAR',
    '',
  ].join('\r\n');
}

const TAB = 'sec0tab000000001';

/** A service that quotes the credential it got in every answer, in each of the description's error shapes. */
function startLeakyService(): Promise<{ server: Server; url: string; requests: string[] }> {
  const requests: string[] = [];
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    req.resume();
    req.on('end', () => {
      const auth = String(req.headers.authorization ?? '');
      const credential = auth.replace(/^Bearer\s+/i, '');
      const path = (req.url ?? '').split('?')[0];
      requests.push(`${req.method} ${path}`);
      const json = (status: number, body: unknown) => {
        res.writeHead(status, { 'content-type': 'application/json' });
        res.end(JSON.stringify(body));
      };
      if (path.includes('/feeds/')) {
        // the feed answers the token it expects, and quotes any other it gets
        if (credential === FEED_TOKEN) {
          res.writeHead(200, { 'content-type': 'text/calendar' });
          res.end(tomorrowCalendar());
        } else {
          res.writeHead(401, { 'content-type': 'text/plain' });
          res.end(`token ${credential} rejected for ${path}`);
        }
        return;
      }
      if (path.includes('/livecapture/')) {
        if (req.method === 'DELETE') {
          res.writeHead(400, { 'content-type': 'text/plain' });
          res.end(`Bad request: Authorization: ${auth}`);
          return;
        }
        json(401, {
          title: 'Unauthorized',
          detail: `the token ${credential} is not valid`,
          trace_id: 'leaky-trace-1',
          errors: [{ pointer: '/headers/authorization', detail: `rejected ${auth}` }],
        });
        return;
      }
      if (/\/jobs\/[^/]+$/.test(path)) json(401, { title: 'Unauthorized', detail: `key ${credential} rejected` });
      else if (path.endsWith('/jobs')) json(401, { code: 'unauthorized', message: `key ${credential} may not submit` });
      else if (/\/workflows\/[^/]+$/.test(path))
        json(401, { errors: { authorization: `Bearer ${credential} rejected` } });
      else json(401, { error_message: `unknown API key ${credential}` });
    });
  });
  return new Promise((resolve) => {
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as AddressInfo;
      resolve({ server, url: `http://127.0.0.1:${port}`, requests });
    });
  });
}

interface ConfigPlan {
  id: string;
  url: string;
  key: string;
  token: string;
  /** Signed in instead of an API key. */
  workflowToken?: string;
}

/**
 * Config nodes (global), and per tab a copy of every operation node for each
 * config. Tab 1 has a Catch node; tab 2 has none, so its errors go to the
 * runtime log instead (Node-RED logs an error no Catch node handled).
 */
function flow(configs: ConfigPlan[], captureFile: string): FlowNode[] {
  const nodes: FlowNode[] = configs.map((c) => ({
    id: c.id,
    type: 'media-spaces-config',
    name: `config ${c.id}`,
    workflowUrl: c.url,
    liveCaptureUrl: '',
    spaceId: SPACE,
    workflowPrefix: '/workflow/v1',
    timeout: '3000',
    retries: '1',
    rejectUnauthorized: true,
  }));
  nodes.push(...tabNodes(TAB, configs, captureFile, true));
  nodes.push(...tabNodes(`${TAB}-uncaught`, configs, captureFile, false));
  return nodes;
}

function tabNodes(tab: string, configs: ConfigPlan[], captureFile: string, withCatch: boolean): FlowNode[] {
  const capture = captureNodes(tab, captureFile, `${tab}-cap`);
  const at = (x: number, y: number) => ({ z: tab, x, y });
  const nodes: FlowNode[] = [
    { id: tab, type: 'tab', label: `Security ${tab}`, disabled: false, info: '' },
    ...capture.nodes.filter((n) => withCatch || n.type !== 'catch'),
  ];
  const out = [capture.out];
  for (const c of configs) {
    const n = (name: string) => `${tab}-${c.id}-${name}`;
    nodes.push(
      {
        id: n('inject'),
        type: 'inject',
        ...at(100, 100),
        name: 'go',
        props: [
          { p: 'payload', v: '{}', vt: 'json' },
          { p: 'event_id', v: 'no-such-event', vt: 'str' },
        ],
        repeat: '',
        crontab: '',
        once: true,
        onceDelay: 0.5,
        topic: '',
        wires: [[n('list'), n('submit'), n('channel'), n('delete'), n('active')]],
      },
      {
        // follow-job reads a job itself, so it meets each config's key even when submit-job fails before it
        id: n('inject-follow'),
        type: 'inject',
        ...at(100, 140),
        name: 'follow',
        props: [
          { p: 'job_id', v: 'no-such-job', vt: 'str' },
          { p: 'workflow_id', v: WF_QUICK, vt: 'str' },
        ],
        repeat: '',
        crontab: '',
        once: true,
        onceDelay: 0.5,
        topic: '',
        wires: [[n('follow')]],
      },
      {
        id: n('list'),
        type: 'media-spaces-list-workflows',
        ...at(300, 60),
        name: '',
        server: c.id,
        mode: 'all',
        wires: [out],
      },
      {
        id: n('submit'),
        type: 'media-spaces-submit-job',
        ...at(300, 100),
        name: '',
        server: c.id,
        workflowId: WF_QUICK,
        workflowIdType: 'str',
        jobName: '',
        jobInputs: '',
        jobInputsType: 'json',
        wires: [[n('follow'), ...out]],
      },
      {
        id: n('follow'),
        type: 'media-spaces-follow-job',
        ...at(500, 100),
        name: '',
        server: c.id,
        interval: 200,
        backoffMax: 1000,
        wires: [out, out],
      },
      {
        id: n('channel'),
        type: 'media-spaces-create-channel',
        ...at(300, 140),
        name: '',
        server: c.id,
        channelName: 'security channel',
        recordingDuration: '1',
        wires: [out],
      },
      {
        id: n('delete'),
        type: 'media-spaces-delete-event',
        ...at(300, 180),
        name: '',
        server: c.id,
        wires: [out],
      },
      {
        id: n('active'),
        type: 'media-spaces-wait-workflow',
        ...at(300, 220),
        name: '',
        server: c.id,
        workflow: WF_QUICK,
        interval: 200,
        timeout: '2000',
        wires: [out],
      },
      {
        id: n('list-watch'),
        type: 'media-spaces-watch-workflows',
        ...at(300, 260),
        name: '',
        server: c.id,
        interval: 500,
        backoffMax: 1000,
        emitInitial: true,
        wires: [out, out],
      },
      // a schedule window started by hand: start -> create channel -> back; end -> submit -> follow
      {
        id: n('schedule'),
        type: 'media-spaces-schedule',
        ...at(100, 320),
        name: '',
        source: 'yaml',
        yaml: [
          'timezone: UTC',
          'windows:',
          '  - id: w',
          '    name: Security window',
          '    cron: "0 0 1 1 *"',
          '    duration: 2s',
          '    channel:',
          '      name: "sec {{slot.epoch}}"',
          '      recording_duration: 1',
          '    followup:',
          `      workflow_id: ${WF_QUICK}`,
          '      media_nicknames: {}',
          '      variables: {}',
          '      job_name: "after {{channel.name}}"',
          '',
        ].join('\n'),
        scheduleId: `sec-${tab}-${c.id}`,
        timezone: 'UTC',
        catchUp: true,
        server: c.id,
        wires: [[n('sched-channel'), ...out], [n('sched-submit'), ...out], out],
      },
      {
        id: n('trigger'),
        type: 'inject',
        ...at(100, 380),
        name: 'trigger',
        props: [{ p: 'payload', v: '{"command":"trigger","window_id":"w"}', vt: 'json' }],
        repeat: '',
        crontab: '',
        once: true,
        onceDelay: 0.7,
        topic: '',
        wires: [[n('schedule')]],
      },
      {
        id: n('sched-channel'),
        type: 'media-spaces-create-channel',
        ...at(300, 320),
        name: '',
        server: c.id,
        wires: [[n('schedule'), ...out]],
      },
      {
        id: n('sched-submit'),
        type: 'media-spaces-submit-job',
        ...at(300, 360),
        name: '',
        server: c.id,
        workflowId: '',
        workflowIdType: 'str',
        wires: [[n('follow'), ...out]],
      },
    );
  }
  // the good config also meets a 422 (missing input) and a job that fails
  const g = (name: string) => `${tab}-good-${name}`;
  nodes.push(
    {
      id: g('more'),
      type: 'inject',
      ...at(100, 450),
      name: 'more',
      props: [{ p: 'payload', v: '{}', vt: 'json' }],
      repeat: '',
      crontab: '',
      once: true,
      onceDelay: 0.5,
      topic: '',
      wires: [[g('submit-input'), g('submit-fails')]],
    },
    {
      id: g('submit-input'),
      type: 'media-spaces-submit-job',
      ...at(300, 450),
      name: '',
      server: 'good',
      workflowId: WF_INPUT,
      workflowIdType: 'str',
      wires: [out],
    },
    {
      id: g('submit-fails'),
      type: 'media-spaces-submit-job',
      ...at(300, 490),
      name: '',
      server: 'good',
      workflowId: WF_FAILS,
      workflowIdType: 'str',
      wires: [[g('follow'), ...out]],
    },
  );
  return nodes;
}

function filesUnder(dir: string): string[] {
  const out: string[] = [];
  let entries: string[] = [];
  try {
    entries = readdirSync(dir);
  } catch {
    return out;
  }
  for (const name of entries) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) out.push(...filesUnder(path));
    else out.push(path);
  }
  return out;
}

describe('security: credentials never leave the config node', () => {
  const userDir = join(ROOT, 'test', '.tmp', 'reliability-security', `credentials-${process.pid}`);
  const captureFile = join(userDir, 'captured.jsonl');
  let sim: Simulator;
  let leaky: Awaited<ReturnType<typeof startLeakyService>>;
  let red: NodeRedProcess;
  const answers: Record<string, string> = {};

  beforeAll(async () => {
    sim = await startSimulator({
      fixture: fixtureDocument(
        fixtureSpace(PREFIX, {
          workflows: [
            fixtureWorkflow('Quick', { status: 'active', job_duration_ms: 1000 }),
            fixtureWorkflow('Needs input', {
              status: 'active',
              inputs: { variables: [{ name: 'Title', typecode: 'String' }] },
            }),
            fixtureWorkflow('Fails', { status: 'active', job_duration_ms: 500, outcome: 'failed' }),
          ],
        }),
      ),
    });
    leaky = await startLeakyService();
    const configs: ConfigPlan[] = [
      { id: 'good', url: sim.workflowUrl, key: GOOD.admin, token: GOOD.token },
      { id: 'bad', url: sim.workflowUrl, key: BAD.key, token: BAD.token },
      { id: 'leaky', url: leaky.url, key: LEAKY.key, token: LEAKY.token },
      { id: 'signed', url: leaky.url, key: '', token: LEAKY.token, workflowToken: SIGNED },
    ];
    mkdirSync(userDir, { recursive: true });
    prepareUserDir({
      dir: userDir,
      flows: [
        ...flow(configs, captureFile),
        // a schedule whose calendar address and token are its feeds credential
        {
          id: 'feedsched',
          type: 'media-spaces-schedule',
          z: TAB,
          name: 'feeds',
          source: 'editor',
          windows: [FEED_WINDOW],
          timezone: 'UTC',
          wires: [[], [], []],
        },
      ],
      credentials: Object.fromEntries([
        [
          'feedsched',
          {
            feeds: JSON.stringify({ cal: { location: `${leaky.url}/feeds/${FEED_PATH}/cal.ics`, token: FEED_TOKEN } }),
          },
        ],
        ...configs.map((c): [string, Record<string, string>] => [
          c.id,
          c.workflowToken
            ? {
                workflowToken: c.workflowToken,
                workflowTokenExpiresAt: String(Date.now() + 3_600_000),
                accessToken: c.token,
              }
            : { apiKey: c.key, accessToken: c.token },
        ]),
      ]),
      logLevel: 'trace',
      audit: true,
    });
    red = await startNodeRed({ userDir });
  }, 90_000);

  afterAll(async () => {
    await red?.kill();
    await sim?.close();
    await new Promise<void>((resolve) => (leaky ? leaky.server.close(() => resolve()) : resolve()));
  });

  it('keeps every key and token out of flows, logs, messages, errors, statuses and editor answers', async () => {
    // let everything run: injects at 0.5 s, a 1 s job, a 2 s window and its follow-up
    const deadline = Date.now() + 30_000;
    const done = () => {
      const captured = readCaptured(captureFile);
      const succeeded = captured.filter(
        (c) => c.kind === 'out' && (c.msg.payload as { state?: string })?.state === 'succeeded',
      );
      const ended = captured.filter(
        (c) =>
          c.kind === 'out' &&
          (c.msg.window as { slotKey?: string })?.slotKey &&
          c.msg.idempotency_key?.toString().endsWith(':end'),
      );
      return succeeded.length >= 2 && ended.length >= 3;
    };
    while (!done() && Date.now() < deadline) await sleep(250);
    await sleep(1500);

    // the editor endpoints, with stored credentials and with a typed one
    const admin = async (name: string, path: string, body?: unknown) => {
      const r = await httpJson(`${red.url}${path}`, body === undefined ? {} : { method: 'POST', body });
      answers[name] = `${r.status} ${r.text}`;
      return r;
    };
    for (const id of ['good', 'bad', 'leaky', 'signed']) {
      await admin(`test-connection ${id}`, '/media-spaces/test-connection', {
        id,
        workflowUrl: id === 'leaky' || id === 'signed' ? leaky.url : sim.workflowUrl,
        spaceId: SPACE,
        apiKey: '__PWRD__',
        accessToken: '__PWRD__',
        workflowToken: '__PWRD__',
      });
      await admin(`workflows ${id}`, `/media-spaces/workflows?server=${id}`);
      await admin(`workflow-inputs ${id}`, `/media-spaces/workflow-inputs?server=${id}&workflow=${WF_INPUT}`);
    }
    await admin('workflows typed', '/media-spaces/workflows', {
      workflowUrl: leaky.url,
      spaceId: SPACE,
      apiKey: TYPED,
    });
    await admin('test-connection typed', '/media-spaces/test-connection', {
      workflowUrl: leaky.url,
      spaceId: SPACE,
      apiKey: TYPED,
      accessToken: TYPED,
    });
    await admin('test-connection signed in, typed', '/media-spaces/test-connection', {
      workflowUrl: leaky.url,
      spaceId: SPACE,
      workflowToken: SIGNED_TYPED,
      workflowTokenExpiresAt: String(Date.now() + 60_000),
    });
    await admin('workflows signed in, typed', '/media-spaces/workflows', {
      workflowUrl: leaky.url,
      spaceId: SPACE,
      workflowToken: SIGNED_TYPED,
    });
    // the schedule's feed tested with its stored address and token, and at an address of the caller's
    await admin('test-feed deployed', '/media-spaces/schedule/test-feed', { node: 'feedsched', window: FEED_WINDOW });
    await admin('test-feed elsewhere', '/media-spaces/schedule/test-feed', {
      node: 'feedsched',
      window: { ...FEED_WINDOW, ical: `${leaky.url}/feeds/other.ics` },
    });
    const flows = await httpJson(`${red.url}/flows`, { headers: { 'Node-RED-API-Version': 'v2' } });
    const flowsV1 = await httpJson(`${red.url}/flows`);
    const creds: Record<string, string> = {};
    for (const id of ['good', 'bad', 'leaky', 'signed']) {
      const r = await httpJson(`${red.url}/credentials/media-spaces-config/${id}`);
      creds[id] = r.text;
    }
    creds.feedsched = (await httpJson(`${red.url}/credentials/media-spaces-schedule/feedsched`)).text;
    await red.stop();

    const captured = readCaptured(captureFile);
    const log = red.output();
    const contextFiles = filesUnder(join(userDir, 'context'));
    const haystacks: Record<string, string> = {
      'Node-RED output': log,
      'captured messages': JSON.stringify(captured),
      'GET /flows (v2)': flows.text,
      'GET /flows (v1)': flowsV1.text,
      ...Object.fromEntries(Object.entries(creds).map(([k, v]) => [`GET /credentials ${k}`, v])),
      ...Object.fromEntries(Object.entries(answers).map(([k, v]) => [`editor endpoint ${k}`, v])),
      ...Object.fromEntries(contextFiles.map((f) => [`context file ${f}`, readFileSync(f, 'utf8')])),
    };

    const figures = summarise(captured, log);
    const dir = join(ROOT, 'test', '.tmp', 'reliability');
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'security-credentials.json'), `${JSON.stringify({ figures, answers }, null, 2)}\n`);
    writeFileSync(join(dir, 'security-credentials-nodered.log'), log);
    process.stdout.write(`security credentials figures: ${JSON.stringify(figures, null, 2)}\n`);

    // the run exercised what it claims to
    expect(flows.status).toBe(200);
    expect(JSON.parse(creds.good)).toMatchObject({ has_apiKey: true, has_accessToken: true });
    expect(JSON.parse(creds.signed)).toMatchObject({ has_workflowToken: true, has_apiKey: false });
    // the feed was fetched with the stored token (the event is listed), and not elsewhere (the leaky feed quoted nothing back)
    expect(JSON.parse(creds.feedsched)).toMatchObject({ has_feeds: true });
    expect(answers['test-feed deployed']).toMatch(/^200 .*"title":"REC Security feed"/);
    expect(answers['test-feed elsewhere']).toMatch(/^200 .*"error":"The feed cannot be read: HTTP 401\."/);
    // the signed-in config really sent its token (the leaky service quoted it back, to be redacted)
    expect(answers['test-connection signed']).toMatch(/Wrong sign-in token/);
    expect(figures.traceLines).toBeGreaterThan(0);
    expect(figures.outputsByType['media-spaces-list-workflows'] ?? 0).toBeGreaterThan(0);
    expect(figures.succeededJobs).toBeGreaterThanOrEqual(2);
    expect(figures.scheduleStarts).toBeGreaterThanOrEqual(1);
    for (const type of [
      'media-spaces-list-workflows',
      'media-spaces-submit-job',
      'media-spaces-create-channel',
      'media-spaces-delete-event',
      'media-spaces-follow-job',
      'media-spaces-wait-workflow',
      'media-spaces-watch-workflows',
    ]) {
      expect(figures.unauthorizedByType[type] ?? 0, `401s caught from ${type}`).toBeGreaterThanOrEqual(1);
      expect(figures.failuresByType[type] ?? 0, `failures caught from ${type}`).toBeGreaterThanOrEqual(2);
      expect(figures.statusesByType[type] ?? 0, `statuses of ${type}`).toBeGreaterThan(0);
    }
    expect(figures.codesCaught).toEqual(expect.arrayContaining(['unauthorized', 'invalid_options', 'job_failed']));
    expect(leaky.requests.length).toBeGreaterThan(5);
    // the second tab has no Catch node: its failures were logged by the runtime, leaky ones included
    expect(figures.errorLines).toBeGreaterThanOrEqual(5);
    expect(log).toMatch(/\[error\] \[media-spaces-list-workflows:[^\]]*\] .*401/);
    expect(answers['test-connection bad']).toMatch(/Wrong API key/);

    expect(leaks(SECRETS, haystacks)).toEqual([]);
  }, 120_000);
});

describe('security: a credential quoted back by the service is redacted from the error', () => {
  const key = 'k3y-quoted-back-0042';
  it.each([
    ['{code, message}', { code: 'unauthorized', message: `key ${key} may not submit` }],
    ['{error_message}', { error_message: `unknown API key ${key}` }],
    ['{errors}', { errors: { [`Bearer ${key}`]: `rejected ${key}` } }],
    [
      'problem details',
      { title: 'Unauthorized', detail: `token ${key}`, trace_id: key, errors: [{ pointer: key, detail: key }] },
    ],
    ['plain text', `Authorization: Bearer ${key}`],
  ])('%s', (_shape, body) => {
    const error = errorFromResponse(401, body, 'Submit job', [key, undefined]);
    const everything = JSON.stringify({ json: error.toJSON(), body: error.body, message: error.message });
    expect(everything).not.toContain(key);
    expect(everything).toContain(REDACTED);
    expect(error.status).toBe(401);
  });

  it('leaves text alone when there is nothing to redact, and ignores secrets too short to matter', () => {
    expect(redactSecrets({ a: ['x', { b: 'abc' }] }, ['abc', ''])).toEqual({ a: ['x', { b: 'abc' }] });
    expect(redactSecrets('a secret-1 b secret-1', ['secret-1'])).toBe(`a ${REDACTED} b ${REDACTED}`);
  });
});

function summarise(captured: Captured[], log: string) {
  const count = (list: string[]) => {
    const counts: Record<string, number> = {};
    for (const k of list) counts[k] = (counts[k] ?? 0) + 1;
    return counts;
  };
  const catches = captured.filter((c) => c.kind === 'catch');
  const outs = captured.filter((c) => c.kind === 'out');
  return {
    captured: captured.length,
    outputs: outs.length,
    outputsByType: count(
      outs.map((c) =>
        c.msg.statusCode !== undefined && Array.isArray(c.msg.payload) ? 'media-spaces-list-workflows' : 'other',
      ),
    ),
    catches: catches.length,
    unauthorizedByType: count(
      catches
        .filter((c) => c.msg.error?.code === 'unauthorized' || /401/.test(c.msg.error?.message ?? ''))
        .map((c) => c.msg.error?.source?.type ?? '?'),
    ),
    failuresByType: count(catches.map((c) => c.msg.error?.source?.type ?? '?')),
    codesCaught: [...new Set(catches.map((c) => c.msg.error?.code ?? '?'))].sort(),
    statuses: captured.filter((c) => c.kind === 'status').length,
    statusesByType: count(captured.filter((c) => c.kind === 'status').map((c) => c.msg.status?.source?.type ?? '?')),
    succeededJobs: outs.filter((c) => (c.msg.payload as { state?: string })?.state === 'succeeded').length,
    scheduleStarts: outs.filter(
      (c) =>
        (c.msg.window as { reason?: string })?.reason === 'manual' && !String(c.msg.idempotency_key).endsWith(':end'),
    ).length,
    logLines: log.split('\n').length,
    traceLines: log.split('\n').filter((l) => l.includes('[trace]')).length,
    warnLines: log.split('\n').filter((l) => l.includes('[warn]')).length,
    errorLines: log.split('\n').filter((l) => l.includes('[error]')).length,
  };
}

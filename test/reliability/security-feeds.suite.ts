import { createServer, type Server } from 'node:http';
import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  httpJson,
  type NodeRedProcess,
  prepareUserDir,
  ROOT,
  sleep,
  startNodeRed,
  waitFor,
} from './support-restart/node-red';

/**
 * Feeds a hostile operator or a feed server gone bad cannot use, through a
 * real Node-RED under adminAuth with a user "operator" (`read` and
 * `media-spaces.write`, not `flows.write`: it may test the deployed feeds, not
 * deploy):
 * - Test feed on a deployed guide window with the pattern `([\s\S]+)+X$`
 *   (exponential on a backtracking engine: a 30-character title would hold
 *   the event loop for hours) answers within 30 s, and `/settings` answers in
 *   under 1 s all the while;
 * - a deployed calendar address that answers 302 to a loopback port serving
 *   an internal page: not one byte of that page reaches a Test feed answer,
 *   the activity answer, a Debug (comms) message or a line of the log.
 */

const require = createRequire(import.meta.url);
const bcrypt = require('bcryptjs') as { hashSync(text: string, rounds: number): string };
type Socket = {
  once(event: string, listener: (...args: unknown[]) => void): void;
  on(event: string, listener: (data: unknown) => void): void;
  send(data: string): void;
  close(): void;
};
const WebSocket = require('ws') as new (url: string) => Socket;

const PASSWORD = 'operator-pass-27c1';
const SCHEDULE = 'feeds0schedule001';
const INTERNAL = 'INTERNAL-ONLY: db_password=secret';
/** what may not appear anywhere: the internal page, any piece of it */
const LEAK = /INTERNAL-ONLY|db_password|password=secret/;
const EVIL = '([\\s\\S]+)+X$';

async function listen(handler: Parameters<typeof createServer>[1]): Promise<{ server: Server; url: string }> {
  const server = createServer(handler);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
}

const xmltvTime = (ms: number) => `${new Date(ms).toISOString().replace(/[-:T]/g, '').slice(0, 14)} +0000`;

/** 600 programmes from an hour from now, each title 30 characters of "a" with no X. */
function guide(now: number): string {
  const start = Math.ceil(now / 3_600_000) * 3_600_000 + 3_600_000;
  const programmes = Array.from({ length: 600 }, (_, i) => {
    const at = start + i * 1_800_000;
    return `<programme channel="c1" start="${xmltvTime(at)}" stop="${xmltvTime(at + 1_800_000)}"><title>${'a'.repeat(30)}</title></programme>`;
  });
  return `<?xml version="1.0" encoding="UTF-8"?>\n<tv>\n<channel id="c1"><display-name>One</display-name></channel>\n${programmes.join('\n')}\n</tv>\n`;
}

describe('security: feeds under a hostile operator and a feed server gone bad', () => {
  const userDir = join(ROOT, 'test', '.tmp', 'reliability-security', `feeds-${process.pid}`);
  let red: NodeRedProcess;
  let token = '';
  let internal: { server: Server; url: string };
  let feeds: { server: Server; url: string };
  let internalHits = 0;
  const comms: string[] = [];
  let ws: Socket | undefined;

  beforeAll(async () => {
    internal = await listen((_req, res) => {
      internalHits++;
      res.writeHead(200, { 'content-type': 'text/plain' }).end(`${INTERNAL}\n`);
    });
    const text = guide(Date.now());
    feeds = await listen((req, res) => {
      if (req.url === '/guide.xml') res.writeHead(200, { 'content-type': 'application/xml' }).end(text);
      else if (req.url === '/cal.ics') res.writeHead(302, { location: `${internal.url}/admin/config` }).end();
      else res.writeHead(404).end();
    });
    prepareUserDir({
      dir: userDir,
      logLevel: 'debug',
      flows: [
        { id: 'feeds0tab00000001', type: 'tab', label: 'feeds', disabled: false, info: '' },
        {
          id: SCHEDULE,
          type: 'media-spaces-schedule',
          z: 'feeds0tab00000001',
          name: 'feeds',
          source: 'editor',
          windows: [
            { id: 'epg', xmltv: `${feeds.url}/guide.xml`, match: { channel: 'c1' } },
            { id: 'cal', ical: `${feeds.url}/cal.ics` },
          ],
          timezone: 'UTC',
          wires: [[], [], []],
        },
      ],
      settings: `  adminAuth: {
    type: 'credentials',
    users: [
      { username: 'operator', password: ${JSON.stringify(bcrypt.hashSync(PASSWORD, 8))}, permissions: ['read', 'media-spaces.write'] },
    ],
  },
`,
    });
    red = await startNodeRed({ userDir });
    const r = await httpJson(`${red.url}/auth/token`, {
      method: 'POST',
      body: {
        client_id: 'node-red-admin',
        grant_type: 'password',
        scope: '',
        username: 'operator',
        password: PASSWORD,
      },
    });
    expect(r.status, r.text).toBe(200);
    token = (r.json as { access_token: string }).access_token;
    // every Debug message, status and notification the editor would show
    const socket = new WebSocket(`${red.url.replace('http', 'ws')}/comms`);
    ws = socket;
    await new Promise<void>((resolve, reject) => {
      socket.once('open', () => resolve());
      socket.once('error', reject);
    });
    let authorised = false;
    socket.on('message', (data) => {
      const text = String(data);
      comms.push(text);
      if (text.includes('"auth":"ok"')) authorised = true;
    });
    socket.send(JSON.stringify({ auth: token }));
    await waitFor(() => authorised, 'comms to accept the token');
    for (const topic of ['debug', 'status/#', 'notification/#']) socket.send(JSON.stringify({ subscribe: topic }));
  }, 90_000);

  afterAll(async () => {
    ws?.close();
    await red?.stop();
    await new Promise((resolve) => feeds?.server.close(resolve));
    await new Promise((resolve) => internal?.server.close(resolve));
  });

  /** Test feed as the window form sends it for a deployed window; gives up after 60 s (a runtime held up answers nothing) */
  const testFeed = async (window: Record<string, unknown>) => {
    const res = await fetch(`${red.url}/media-spaces/schedule/test-feed`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', accept: 'application/json' },
      body: JSON.stringify({ node: SCHEDULE, window }),
      signal: AbortSignal.timeout(60_000),
    });
    const text = await res.text();
    return { status: res.status, text, json: JSON.parse(text) as unknown };
  };

  it('the operator may not deploy: the premise', async () => {
    const flows = await httpJson(`${red.url}/flows`, { token });
    expect(flows.status).toBe(200);
    expect((await httpJson(`${red.url}/flows`, { method: 'POST', token, body: flows.json })).status).toBe(401);
  });

  it('Test feed with ([\\s\\S]+)+X$ on the deployed guide answers within 30 s; /settings answers in under 1 s meanwhile', async () => {
    // the first Test feed loads the parsers (zod, saxes, re2js): a one-time cost, not the pattern's
    const warm = await testFeed({ id: 'epg', xmltv: `${feeds.url}/guide.xml`, match: { title: '^News' } });
    expect(warm.json).toMatchObject({ ok: true, occurrences: [] });
    let done = false;
    const settingsMs: number[] = [];
    const poll = (async () => {
      while (!done) {
        const started = performance.now();
        try {
          const res = await fetch(`${red.url}/settings`, { signal: AbortSignal.timeout(5_000) });
          await res.arrayBuffer();
        } catch {
          // no answer in 5 s: counted as such
        }
        settingsMs.push(performance.now() - started);
        await sleep(100);
      }
    })();
    const started = performance.now();
    let res: Response;
    let answer: unknown;
    try {
      // a backtracking engine would not answer at all: the request gives up at 30 s
      res = await fetch(`${red.url}/media-spaces/schedule/test-feed`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: JSON.stringify({
          node: SCHEDULE,
          window: { id: 'epg', xmltv: `${feeds.url}/guide.xml`, match: { title: EVIL } },
        }),
        signal: AbortSignal.timeout(30_000),
      });
      answer = (await res.json()) as unknown;
    } finally {
      done = true;
      await poll;
    }
    const took = performance.now() - started;
    expect(res.status).toBe(200);
    expect(took).toBeLessThan(30_000);
    // RE2 runs it: the guide is read, and no title matches
    expect(answer).toMatchObject({ ok: true, window: 'epg', kind: 'xmltv', occurrences: [] });
    expect(settingsMs.length).toBeGreaterThan(0);
    expect(Math.max(...settingsMs)).toBeLessThan(1000);
    console.log(
      `Test feed with ${EVIL} over 600 titles: ${Math.round(took)} ms; /settings ${settingsMs.length} times, at most ${Math.round(Math.max(...settingsMs))} ms`,
    );
  });

  it('a pattern RE2 cannot run is refused, naming the field and the pattern', async () => {
    const answer = await testFeed({ id: 'epg', xmltv: `${feeds.url}/guide.xml`, match: { title: '(a)\\1' } });
    expect(answer.status).toBe(200);
    expect(answer.json).toMatchObject({
      ok: false,
      issues: [
        {
          path: 'match.title',
          message:
            'The title pattern "(a)\\\\1" uses a backreference, which the linear-time engine does not run (patterns are RE2: no backreferences or lookaround).',
        },
      ],
    });
  });

  it('a calendar address redirected to an internal page: no byte of it in any answer, Debug message or log line', async () => {
    // the deployed window has read it (the redirect is followed: the address configured is itself on loopback)
    await waitFor(() => internalHits > 0, 'the deployed window to read its feed', { timeoutMs: 30_000 });
    const answer = await testFeed({ id: 'cal', ical: `${feeds.url}/cal.ics` });
    expect(answer.status).toBe(200);
    expect(answer.json).toMatchObject({
      ok: false,
      error: expect.stringMatching(/not an iCalendar feed: line 1 is not BEGIN:VCALENDAR/),
    });
    const activity = await httpJson(`${red.url}/media-spaces/activity`, { token });
    expect(activity.status).toBe(200);
    // the window's warning has reached Debug and the log, said without the body
    await waitFor(
      () => comms.some((m) => m.includes('not an iCalendar feed')) && red.output().includes('not an iCalendar feed'),
      'the feed warning in Debug and the log',
      { timeoutMs: 30_000 },
    );
    for (const [what, text] of [
      ['the Test feed answer', answer.text],
      ['the activity answer', activity.text],
      ['Debug, status and notifications (comms)', comms.join('\n')],
      ['the log', red.output()],
    ]) {
      expect(text, what).not.toMatch(LEAK);
    }
    expect(internalHits).toBeGreaterThanOrEqual(2);
  });
});

import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer as createHttpsServer, type Server as HttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { runInNewContext } from 'node:vm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Simulator, startSimulator } from '../../lib/simulator';
import { captureNodes, readCaptured } from './security-support';
import {
  type FlowNode,
  type NodeRedProcess,
  prepareUserDir,
  ROOT,
  sleep,
  startNodeRed,
} from './support-restart/node-red';

/**
 * Transport security of the config node:
 * - plain http to a host that is not loopback draws a warning in the editor
 *   (the config dialog's script, run here against a minimal jQuery stand-in)
 *   and in the runtime log on deploy, once per config node; loopback and
 *   https draw none;
 * - TLS certificate verification is on unless turned off in a config node,
 *   and only for that node: against an https server with a self-signed
 *   certificate, a default config node fails with a clear TLS error (caught,
 *   Node-RED keeps running, nothing reaches the server's handler), the config
 *   node with verification off gets the workflow list, and a second default
 *   config node deployed after it still fails.
 */

const SPACE = '11111111-1111-4111-8111-111111111111';
const TAB = 'tls0tab000000001';

/** A self-signed certificate for 127.0.0.1: made with openssl when it is there, else the committed one. */
function selfSignedCert(dir: string): { key: string; cert: string; source: string } {
  const keyFile = join(dir, 'key.pem');
  const certFile = join(dir, 'cert.pem');
  const made = spawnSync(
    'openssl',
    [
      'req',
      '-x509',
      '-newkey',
      'rsa:2048',
      '-nodes',
      '-keyout',
      keyFile,
      '-out',
      certFile,
      '-days',
      '2',
      '-subj',
      '/CN=127.0.0.1',
      '-addext',
      'subjectAltName=IP:127.0.0.1,DNS:localhost',
    ],
    { encoding: 'utf8' },
  );
  if (made.status === 0) {
    return { key: readFileSync(keyFile, 'utf8'), cert: readFileSync(certFile, 'utf8'), source: 'openssl' };
  }
  const pem = readFileSync(join(ROOT, 'test', 'reliability', 'security-tls-fallback.pem'), 'utf8');
  const key = /-----BEGIN PRIVATE KEY-----[\s\S]+?-----END PRIVATE KEY-----/.exec(pem)?.[0] ?? '';
  const cert = /-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/.exec(pem)?.[0] ?? '';
  return { key, cert, source: 'committed fallback' };
}

interface TlsService {
  server: HttpsServer;
  url: string;
  /** Authorization headers of requests that got past the handshake. */
  requests: string[];
  handshakeFailures: number;
}

function startTlsService(key: string, cert: string): Promise<TlsService> {
  const service = { requests: [] as string[], handshakeFailures: 0 } as TlsService;
  service.server = createHttpsServer({ key, cert }, (req, res) => {
    service.requests.push(String(req.headers.authorization ?? ''));
    req.resume();
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(
      JSON.stringify({
        workflows: [{ id: 'cccccccc-0000-4000-8000-000000000001', name: 'Over TLS', status: 'active' }],
        next_page_token: null,
      }),
    );
  });
  service.server.on('tlsClientError', () => {
    service.handshakeFailures++;
  });
  return new Promise((resolve) => {
    service.server.listen(0, '127.0.0.1', () => {
      const { port } = service.server.address() as AddressInfo;
      service.url = `https://127.0.0.1:${port}`;
      resolve(service);
    });
  });
}

// ------------------------------------------------------------------ the editor's script, without a browser

interface FakeElement {
  id: string;
  value: string;
  checked: boolean;
  visible: boolean;
  text: string;
  children: FakeElement[];
  handlers: Record<string, Array<() => void>>;
}

/** Just enough of jQuery for the config dialog's oneditprepare. */
function fakeJquery() {
  const elements = new Map<string, FakeElement>();
  const element = (id: string): FakeElement => {
    let el = elements.get(id);
    if (!el) {
      el = { id, value: '', checked: false, visible: true, text: '', children: [], handlers: {} };
      elements.set(id, el);
    }
    return el;
  };
  const textOf = (el: FakeElement): string => el.text + el.children.map(textOf).join('');
  const wrap = (els: FakeElement[]) => {
    const api = {
      on(events: string, fn: () => void) {
        for (const el of els) {
          for (const e of events.split(/\s+/)) {
            el.handlers[e] = [...(el.handlers[e] ?? []), fn];
          }
        }
        return api;
      },
      prop(name: string, value?: unknown) {
        if (value === undefined) return name === 'checked' ? els[0]?.checked : undefined;
        if (name === 'checked') for (const el of els) el.checked = Boolean(value);
        return api;
      },
      is(selector: string) {
        return selector === ':checked' ? Boolean(els[0]?.checked) : false;
      },
      val(value?: string) {
        if (value === undefined) return els[0]?.value;
        for (const el of els) el.value = value;
        return api;
      },
      empty() {
        for (const el of els) {
          el.children = [];
          el.text = '';
        }
        return api;
      },
      text(value?: string) {
        if (value === undefined) return els.map(textOf).join('');
        for (const el of els) el.text = value;
        return api;
      },
      appendTo(target: { __els: FakeElement[] }) {
        target.__els[0]?.children.push(...els);
        return api;
      },
      append(child: { __els: FakeElement[] }) {
        els[0]?.children.push(...child.__els);
        return api;
      },
      toggle(show: boolean) {
        for (const el of els) el.visible = show;
        return api;
      },
      show() {
        return api.toggle(true);
      },
      hide() {
        return api.toggle(false);
      },
      css() {
        return api;
      },
      __els: els,
    };
    return api;
  };
  const $ = (selector: string) => {
    if (selector.trim().startsWith('<')) {
      return wrap([{ id: selector, value: '', checked: false, visible: true, text: '', children: [], handlers: {} }]);
    }
    return wrap(selector.split(',').map((s) => element(s.trim().replace(/^#/, ''))));
  };
  const fire = (id: string, event: string) => {
    for (const fn of element(id).handlers[event] ?? []) fn();
  };
  return { $, element, fire, textOf };
}

function configDialog() {
  // the built dialog: the template with the bundled nodes/config/editor.ts in its script
  const html = readFileSync(join(ROOT, 'dist', 'nodes', 'config', 'media-spaces-config.html'), 'utf8');
  const script = /<script type="text\/javascript">([\s\S]*?)<\/script>/.exec(html)?.[1] ?? '';
  const template =
    /<script type="text\/html" data-template-name="media-spaces-config">([\s\S]*?)<\/script>/.exec(html)?.[1] ?? '';
  let definition: { oneditprepare(this: unknown): void } | undefined;
  const jq = fakeJquery();
  const RED = {
    nodes: {
      registerType: (_type: string, def: typeof definition) => {
        definition = def;
      },
    },
    validators: { regex: () => () => true, number: () => () => true },
  };
  runInNewContext(script, { RED, $: jq.$, URL });
  const node = {
    id: 'cfg1',
    rejectUnauthorized: true,
    _: (key: string, vars?: Record<string, string>) => `${key}${vars ? ` ${JSON.stringify(vars)}` : ''}`,
  };
  return { template, definition, jq, node };
}

// ------------------------------------------------------------------ Node-RED

function flow(sim: Simulator, tls: TlsService, captureFile: string): FlowNode[] {
  const capture = captureNodes(TAB, captureFile, 'tls-cap');
  const config = (id: string, props: Record<string, unknown>): FlowNode => ({
    id,
    type: 'media-spaces-config',
    // not the id itself: Node-RED takes a property equal to a config node id for a reference to it
    name: `config ${id}`,
    liveCaptureUrl: '',
    spaceId: SPACE,
    workflowPrefix: '/workflow/v1',
    timeout: '3000',
    retries: '2',
    ...props,
  });
  const lister = (id: string, server: string, delay: number): FlowNode[] => [
    {
      id: `${id}-go`,
      type: 'inject',
      z: TAB,
      x: 100,
      y: 100,
      name: '',
      props: [
        { p: 'payload', v: '{}', vt: 'json' },
        { p: 'topic', vt: 'str' },
      ],
      repeat: '',
      crontab: '',
      once: true,
      onceDelay: delay,
      topic: id,
      wires: [[id]],
    },
    {
      id,
      type: 'media-spaces-list-workflows',
      z: TAB,
      x: 300,
      y: 100,
      name: id,
      server,
      mode: 'all',
      wires: [[capture.out]],
    },
  ];
  return [
    { id: TAB, type: 'tab', label: 'TLS', disabled: false, info: '' },
    ...capture.nodes,
    // plain http: to a documentation address (not loopback) and, for the live area, to a name
    config('plain-remote', { workflowUrl: 'http://192.0.2.10:8080', rejectUnauthorized: true }),
    config('plain-live', {
      workflowUrl: tls.url,
      liveCaptureUrl: 'http://media.example.net',
      rejectUnauthorized: true,
    }),
    config('plain-loopback', { workflowUrl: sim.workflowUrl, rejectUnauthorized: true }),
    config('plain-localhost', { workflowUrl: 'http://localhost:9', rejectUnauthorized: true }),
    // TLS: the one that turns verification off comes first, and is used first
    config('tls-insecure', { workflowUrl: tls.url, rejectUnauthorized: false }),
    config('tls-default', { workflowUrl: tls.url, rejectUnauthorized: true }),
    // a config node saved before the setting existed: no rejectUnauthorized at all
    config('tls-default-2', { workflowUrl: tls.url }),
    ...lister('list-insecure', 'tls-insecure', 0.3),
    ...lister('list-default', 'tls-default', 0.9),
    ...lister('list-default-2', 'tls-default-2', 1.2),
    ...lister('list-insecure-again', 'tls-insecure', 1.5),
  ];
}

describe('security: transport (plain http warnings, TLS verification per config node)', () => {
  const userDir = join(ROOT, 'test', '.tmp', 'reliability-security', `transport-${process.pid}`);
  const captureFile = join(userDir, 'captured.jsonl');
  let sim: Simulator;
  let tls: TlsService;
  let red: NodeRedProcess;
  let certSource = '';

  beforeAll(async () => {
    mkdirSync(userDir, { recursive: true });
    const { key, cert, source } = selfSignedCert(join(ROOT, 'test', '.tmp', 'reliability-security'));
    certSource = source;
    tls = await startTlsService(key, cert);
    sim = await startSimulator();
    const keys = [
      'plain-remote',
      'plain-live',
      'plain-loopback',
      'plain-localhost',
      'tls-insecure',
      'tls-default',
      'tls-default-2',
    ];
    prepareUserDir({
      dir: userDir,
      flows: flow(sim, tls, captureFile),
      credentials: Object.fromEntries(keys.map((k) => [k, { apiKey: `key-${k}`, accessToken: `token-${k}` }])),
    });
    red = await startNodeRed({ userDir });
  }, 90_000);

  afterAll(async () => {
    await red?.kill();
    await sim?.close();
    await new Promise<void>((resolve) => (tls ? tls.server.close(() => resolve()) : resolve()));
  });

  it('warns in the editor dialog about plain http to a remote host and about verification turned off', () => {
    const { template, definition, jq, node } = configDialog();
    expect(template).toContain('id="node-config-media-spaces-insecure"');
    const locale = JSON.parse(
      readFileSync(join(ROOT, 'nodes', 'config', 'locales', 'en-US', 'media-spaces-config.json'), 'utf8'),
    );
    expect(locale['media-spaces-config'].warning.plainHttp).toMatch(/__field__.*__host__/);
    expect(locale['media-spaces-config'].warning.tlsOff).toBeTruthy();
    expect(definition).toBeDefined();

    const box = jq.element('node-config-media-spaces-insecure');
    const workflowUrl = jq.element('node-config-input-workflowUrl');
    const liveUrl = jq.element('node-config-input-liveCaptureUrl');
    const verify = jq.element('node-config-input-rejectUnauthorized');
    verify.checked = true;
    workflowUrl.value = 'https://media.example.com';
    definition?.oneditprepare.call(node);
    expect(box.visible).toBe(false);

    const cases: Array<[string, string, boolean, RegExp | null]> = [
      ['http://192.0.2.10:8080', '', true, /plainHttp.*workflowUrl.*"host":"192\.0\.2\.10"/],
      ['http://media.example.com/base', '', true, /plainHttp.*"host":"media\.example\.com"/],
      ['http://127.0.0.1:8787', '', true, null],
      ['http://localhost:1880', '', true, null],
      ['http://[::1]:8787', '', true, null],
      ['http://studio.localhost', '', true, null],
      ['https://media.example.com', 'http://10.1.2.3', true, /plainHttp.*liveCaptureUrl.*"host":"10\.1\.2\.3"/],
      ['https://media.example.com', 'https://live.example.com', false, /tlsOff/],
      ['not a url', '', true, null],
    ];
    for (const [workflow, live, checked, expected] of cases) {
      workflowUrl.value = workflow;
      liveUrl.value = live;
      verify.checked = checked;
      jq.fire('node-config-input-workflowUrl', 'input');
      const where = `${workflow} / ${live} / verify ${checked}`;
      expect(box.visible, where).toBe(expected !== null);
      if (expected) expect(jq.textOf(box), where).toMatch(expected);
    }
    // unticking the box alone shows the warning
    workflowUrl.value = 'https://media.example.com';
    liveUrl.value = '';
    verify.checked = false;
    jq.fire('node-config-input-rejectUnauthorized', 'change');
    expect(box.visible).toBe(true);
  });

  it('warns in the runtime log on deploy, once per config node with plain http to a remote host', async () => {
    const warnings = red
      .output()
      .split('\n')
      .filter((l) => l.includes('[warn]') && l.includes('[media-spaces-config:'));
    // the runtime names a node by its name in the log
    const of = (id: string) => warnings.filter((l) => l.includes(`[media-spaces-config:config ${id}]`));
    expect(of('plain-remote')).toHaveLength(1);
    expect(of('plain-remote')[0]).toMatch(/Workflow URL uses plain http to 192\.0\.2\.10/);
    expect(of('plain-live')).toHaveLength(1);
    expect(of('plain-live')[0]).toMatch(/Live capture URL uses plain http to media\.example\.net/);
    expect(of('plain-loopback')).toHaveLength(0);
    expect(of('plain-localhost')).toHaveLength(0);
    expect(of('tls-insecure')).toHaveLength(1);
    expect(of('tls-insecure')[0]).toMatch(/TLS certificate verification is off/);
    expect(of('tls-default')).toHaveLength(0);
    expect(of('tls-default-2')).toHaveLength(0);
  });

  it('verifies certificates unless the config node turns it off, per config node', async () => {
    const deadline = Date.now() + 20_000;
    const outcome = () => {
      const captured = readCaptured(captureFile);
      const from = (id: string) =>
        captured.filter(
          (c) => (c.kind === 'out' && c.msg.topic === id) || (c.kind === 'catch' && c.msg.error?.source?.id === id),
        );
      return { captured, from };
    };
    // the badge follows the Catch message by up to one status throttle (250 ms): wait for both
    const redBadge = (captured: ReturnType<typeof readCaptured>, id: string) =>
      captured.filter((c) => c.kind === 'status' && c.msg.status?.source?.id === id).at(-1)?.msg.status?.fill === 'red';
    while (Date.now() < deadline) {
      const { captured, from } = outcome();
      if (
        ['list-insecure', 'list-default', 'list-default-2', 'list-insecure-again'].every((id) => from(id).length > 0) &&
        ['list-default', 'list-default-2'].every((id) => redBadge(captured, id))
      )
        break;
      await sleep(100);
    }
    const { captured, from } = outcome();
    const insecure = [...from('list-insecure'), ...from('list-insecure-again')];
    expect(insecure.map((c) => c.kind)).toEqual(['out', 'out']);
    expect(insecure[0].msg.payload).toEqual([expect.objectContaining({ name: 'Over TLS' })]);

    const failures: Record<string, { code?: string; message?: string }> = {};
    for (const id of ['list-default', 'list-default-2']) {
      const got = from(id);
      expect(
        got.map((c) => c.kind),
        id,
      ).toEqual(['catch']);
      const error = got[0].msg.error ?? {};
      failures[id] = { code: error.code, message: error.message };
      expect(error.code, id).toBe('tls_error');
      expect(error.message, id).toMatch(/certificate/i);
      expect(error.message, id).toMatch(/SELF_SIGNED|self.signed/i);
      // the red status names the problem too
      const statuses = captured.filter((c) => c.kind === 'status' && c.msg.status?.source?.id === id);
      expect(statuses.at(-1)?.msg.status).toMatchObject({ fill: 'red', text: 'TLS failure' });
    }
    // nothing of the default nodes got past the handshake; a certificate problem is not retried
    expect(tls.requests.filter((a) => a.includes('key-tls-default'))).toEqual([]);
    expect(tls.requests.filter((a) => a.includes('key-tls-insecure')).length).toBe(2);
    expect(tls.handshakeFailures).toBe(2);
    // Node-RED is still running
    expect(red.child.exitCode).toBeNull();
    expect((await fetch(`${red.url}/settings`)).status).toBe(200);

    const figures = { certSource, failures, handshakeFailures: tls.handshakeFailures, served: tls.requests.length };
    const dir = join(ROOT, 'test', '.tmp', 'reliability');
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'security-transport.json'), `${JSON.stringify(figures, null, 2)}\n`);
    process.stdout.write(`security transport figures: ${JSON.stringify(figures, null, 2)}\n`);
  }, 40_000);
});

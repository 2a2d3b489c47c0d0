import { createServer, type Server } from 'node:http';
import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { Simulator, SimulatorOptions } from '../../lib/simulator';
import {
  credentialsFor,
  fixtureDocument,
  fixtureSpace,
  fixtureWorkflow,
  spaceIdFor,
  workflowIdFor,
} from '../../lib/simulator/fixture-builders';
import { closeAllTrays, closeNode, dismissNotifications, nodeSelector, openNode } from './support/editor';
import { INSTALLED_PACKAGE } from './support/paths';
import { openSidebar, type SidebarStack, startSidebarStack, widenSidebar } from './support/sidebar-stack';

/**
 * Names and messages written by someone else, shown in the editor of whoever
 * opens it: node names, schedule windows, workflow and job names from the
 * service, the service's error messages, a coordination URL. Each carries
 * markup that runs script if it is ever parsed as HTML. Every sidebar action
 * is pressed (and refused, for the "Could not …" notices) and every dialog
 * opened; the page must show each text as text, never open a dialog, never
 * set window.__xss and never hold an element the markup would create.
 */

const require = createRequire(import.meta.url);
const IMG = '<img src=x onerror=window.__xss=1>';
const SVG = '"><svg onload=window.__xss=1>';
const ALERT = '<img src=x onerror=alert(document.domain)>';

const SPACE = 'hostile';
const KEYS = credentialsFor(SPACE);
const TAB = 'xsstab0000000001';
const CONFIG = 'xssconfig0000001';
const BROKEN = 'xssbrokencfg0001';
const COORD = 'xsscoord00000001';
const SCHEDULE = 'xssschedule00001';
const CHANNEL = 'xsschannel000001';
const SUBMIT = 'xsssubmit0000001';
const SUBMIT_INPUTS = 'xsssubmitinputs1';
const FOLLOW = 'xssfollow0000001';
const REFUSING = 'xssrefusing00001';
const REFUSING_PAUSED = 'xssrefusingpaus1';
const HISTORY = 'xsshistory000001';
const OTHERS = {
  list: 'xsslist000000001',
  delete: 'xssdelete0000001',
  wait: 'xsswait000000001',
  watch: 'xsswatch00000001',
};

const NAMES = {
  config: `${IMG} space`,
  broken: `${SVG} broken service`,
  coordination: `${IMG} redis`,
  schedule: `${IMG} schedule`,
  news: `${SVG} evening news`,
  live: `${IMG} live desk`,
  channel: `${SVG} create channel`,
  submit: `${IMG} submit`,
  submitInputs: `${SVG} submit with inputs`,
  follow: `${SVG} follow`,
  refusing: `${SVG} refusing schedule`,
  refusingPaused: `${IMG} paused refusing schedule`,
  refusal: `${IMG} the runtime refused`,
  slotReason: `${SVG} the service refused the channel`,
  jobOk: `${IMG} job`,
  jobFails: `${SVG} failing job`,
  list: `${SVG} list`,
  delete: `${IMG} delete`,
  wait: `${SVG} wait`,
  watch: `${IMG} watch`,
  serviceError: `${IMG} service down`,
  inputVariable: `${IMG}Count`,
  inputMedia: `${SVG} source`,
};
const WORKFLOWS = {
  inputs: `${IMG} transcode`,
  fails: `${SVG} ingest`,
  alert: `${ALERT} render`,
  archived: `${SVG} retired`,
};

function hostileFixture() {
  return fixtureDocument(
    fixtureSpace(SPACE, {
      workflows: [
        fixtureWorkflow(WORKFLOWS.inputs, {
          job_duration_ms: 1500,
          description: IMG,
          inputs: {
            variables: [{ name: NAMES.inputVariable, typecode: 'Int32', default: '5', description: SVG }],
            media_nicknames: [{ name: NAMES.inputMedia, identifier: 'Source', description: IMG, files: [] }],
            attachments: [],
            labels: [],
          },
        }),
        fixtureWorkflow(WORKFLOWS.fails, { job_duration_ms: 1500, outcome: 'failed' }),
        fixtureWorkflow(WORKFLOWS.alert, { job_duration_ms: 1500 }),
        fixtureWorkflow(WORKFLOWS.archived, { status: 'archived' }),
      ],
    }),
  );
}

/** A "service" that fails every request with markup in its reason (one of the description's error shapes). */
async function startHostileService(): Promise<{ url: string; server: Server }> {
  const server = createServer((req, res) => {
    req.resume();
    res.writeHead(500, { 'Content-Type': 'application/json' });
    res.end(JSON.stringify({ error_message: NAMES.serviceError }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server };
}

/** A daily window (UTC) that opened 20 minutes ago, so the schedule catches it up at deploy. */
function openWindowCron(): string {
  const opened = new Date(Math.floor((Date.now() - 20 * 60_000) / 60_000) * 60_000);
  return `${opened.getUTCMinutes()} ${opened.getUTCHours()} * * *`;
}

function scheduleYaml(): string {
  return `windows:
  - id: news
    name: ${JSON.stringify(NAMES.news)}
    cron: "0 18 * * *"
    timezone: Europe/London
    duration: 1h
  - id: live
    name: ${JSON.stringify(NAMES.live)}
    cron: "${openWindowCron()}"
    timezone: UTC
    duration: 1h
    channel:
      name: "{{window.name}} {{slot.time}}"
      description: ${JSON.stringify(SVG)}
`;
}

function flows(sim: Simulator, broken: string): Record<string, unknown>[] {
  // right of the palette, left of the widened sidebar
  const at = (x: number, y: number) => ({ z: TAB, x: x + 160, y });
  const server = (id: string, name: string, url: string, live: string) => ({
    id,
    type: 'media-spaces-config',
    name,
    workflowUrl: url,
    liveCaptureUrl: live,
    spaceId: spaceIdFor(SPACE),
    workflowPrefix: '/workflow/v1',
    timeout: '5000',
    retries: '0',
    rejectUnauthorized: true,
  });
  const inject = (id: string, y: number, workflow: string, jobName: string) => ({
    id,
    type: 'inject',
    ...at(140, y),
    name: jobName,
    props: [{ p: 'payload' }, { p: 'workflow_id', v: workflow, vt: 'str' }, { p: 'job_name', v: jobName, vt: 'str' }],
    repeat: '',
    once: false,
    topic: '',
    payload: '{}',
    payloadType: 'json',
    wires: [[SUBMIT]],
  });
  const refusing = (id: string, name: string, paused: boolean, y: number) => ({
    id,
    type: 'media-spaces-test-schedule',
    ...at(700, y),
    name,
    windows: JSON.stringify([{ id: 'w1', name: NAMES.news, cron: '0 18 * * *', timezone: 'UTC', duration: 3600 }]),
    slots: '[]',
    paused,
    copies: 1,
    failWith: NAMES.refusal,
    wires: [[]],
  });
  return [
    { id: TAB, type: 'tab', label: `${IMG} flow`, disabled: false, info: '' },
    server(CONFIG, NAMES.config, sim.workflowUrl, sim.liveCaptureUrl),
    server(BROKEN, NAMES.broken, broken, broken),
    {
      id: SCHEDULE,
      type: 'media-spaces-schedule',
      ...at(160, 80),
      name: NAMES.schedule,
      source: 'yaml',
      yaml: scheduleYaml(),
      file: '',
      windows: [],
      scheduleId: 'hostile',
      timezone: 'UTC',
      catchUp: true,
      server: CONFIG,
      wires: [[CHANNEL], [], []],
    },
    {
      id: CHANNEL,
      type: 'media-spaces-create-channel',
      ...at(440, 80),
      name: NAMES.channel,
      server: CONFIG,
      channelName: IMG,
      description: SVG,
      wires: [[SCHEDULE], []],
    },
    inject('xssinjectok00001', 160, workflowIdFor(WORKFLOWS.alert), NAMES.jobOk),
    inject('xssinjectko00001', 220, workflowIdFor(WORKFLOWS.fails), NAMES.jobFails),
    {
      id: SUBMIT,
      type: 'media-spaces-submit-job',
      ...at(400, 190),
      name: NAMES.submit,
      server: CONFIG,
      workflowId: '',
      workflowIdType: 'str',
      workflowName: '',
      jobInputs: '',
      jobInputsType: 'json',
      wires: [[FOLLOW]],
    },
    {
      // the Inputs validator reads the saved workflow's declared inputs
      id: SUBMIT_INPUTS,
      type: 'media-spaces-submit-job',
      ...at(400, 250),
      name: NAMES.submitInputs,
      server: CONFIG,
      workflowId: workflowIdFor(WORKFLOWS.inputs),
      workflowIdType: 'str',
      workflowName: WORKFLOWS.inputs,
      jobInputs: '',
      jobInputsType: 'json',
      wires: [[]],
    },
    {
      id: FOLLOW,
      type: 'media-spaces-follow-job',
      ...at(620, 190),
      name: NAMES.follow,
      server: CONFIG,
      interval: 250,
      wires: [[], []],
    },
    refusing(REFUSING, NAMES.refusing, false, 300),
    refusing(REFUSING_PAUSED, NAMES.refusingPaused, true, 360),
    {
      id: HISTORY,
      type: 'media-spaces-test-schedule',
      ...at(700, 420),
      name: 'past day (fixture)',
      slotsFor: SCHEDULE,
      slots: JSON.stringify([
        { windowId: 'live', startMin: -180, durationMin: 60, outcome: { channel: 'failed', reason: NAMES.slotReason } },
      ]),
      wires: [[]],
    },
    {
      id: OTHERS.list,
      type: 'media-spaces-list-workflows',
      ...at(160, 300),
      name: NAMES.list,
      server: CONFIG,
      wires: [[]],
    },
    {
      id: OTHERS.delete,
      type: 'media-spaces-delete-event',
      ...at(160, 360),
      name: NAMES.delete,
      server: CONFIG,
      eventId: SVG,
      eventIdType: 'str',
      wires: [[]],
    },
    {
      id: OTHERS.wait,
      type: 'media-spaces-wait-workflow',
      ...at(420, 300),
      name: NAMES.wait,
      server: CONFIG,
      workflow: IMG,
      wires: [[]],
    },
    {
      id: OTHERS.watch,
      type: 'media-spaces-watch-workflows',
      ...at(420, 360),
      name: NAMES.watch,
      server: CONFIG,
      wires: [[], []],
    },
  ];
}

/** What the page would show had any text been parsed as HTML. */
async function injected(page: Page): Promise<{ flag: unknown; elements: number }> {
  return page.evaluate(() => ({
    flag: (window as unknown as { __xss?: unknown }).__xss,
    elements: document.querySelectorAll('img[src="x"], svg[onload], [onerror], [onload]').length,
  }));
}

let stack: SidebarStack;
let sim: Simulator;
let hostile: { url: string; server: Server };
const dialogs: string[] = [];

async function expectClean(page: Page): Promise<void> {
  expect(await injected(page)).toEqual({ flag: undefined, elements: 0 });
  expect(dialogs).toEqual([]);
}

beforeAll(async () => {
  const { startSimulator } = require(join(INSTALLED_PACKAGE, 'dist/lib/simulator/index.js')) as {
    startSimulator: (o: SimulatorOptions) => Promise<Simulator>;
  };
  sim = await startSimulator({ port: 0, host: '127.0.0.1', fixture: hostileFixture() });
  hostile = await startHostileService();
  stack = await startSidebarStack('hostile-text', {
    flows: flows(sim, hostile.url),
    credentials: {
      [CONFIG]: { apiKey: KEYS.admin, accessToken: KEYS.token },
      [BROKEN]: { apiKey: KEYS.admin, accessToken: KEYS.token },
    },
  });
  stack.page.on('dialog', (dialog) => {
    dialogs.push(dialog.message());
    dialog.dismiss().catch(() => undefined);
  });
  await dismissNotifications(stack.page);
  // a coordination server added in this editor only (deployed, the runtime would try to reach it)
  await stack.page.evaluate(
    (node) =>
      (window as unknown as { RED: { view: { importNodes(n: unknown[], o: unknown): void } } }).RED.view.importNodes(
        [node],
        { generateIds: false, addFlow: false },
      ),
    { id: COORD, type: 'media-spaces-coordination', name: NAMES.coordination, url: `redis://${IMG}:6379` },
  );
});

afterAll(async () => {
  await stack?.close();
  await sim?.close();
  await new Promise((resolve) => hostile?.server.close(resolve));
});

afterEach(async () => {
  if (!stack) return;
  // a question left open by a failed test would keep its modal shade over the page for the tests after it
  const questions = stack.page.locator('.red-ui-notification', { has: stack.page.locator('button.ms-confirm') });
  for (const question of await questions.all()) {
    await question.getByRole('button', { name: 'Cancel' }).click();
    await question.waitFor({ state: 'detached' });
  }
  await closeAllTrays(stack.page);
});

describe('hostile names in the Media Spaces tab', () => {
  it('shows schedule, window, job names and reasons as text', async () => {
    const { page } = stack;
    await expectClean(page);
    await widenSidebar(page);
    await openSidebar(page);
    const row = page.locator(`.ms-tl-row[data-node="${SCHEDULE}"]`);
    await row.waitFor();
    expect(await row.locator('.ms-tl-title').textContent()).toBe(NAMES.schedule);
    const news = row.locator('.ms-tl-bar-text[data-window="news"]').first();
    expect(await news.textContent()).toContain(NAMES.news);
    expect(await row.locator('.ms-tl-bar[data-window="news"]').first().getAttribute('title')).toContain(
      `schedule: ${NAMES.schedule}`,
    );
    // the window in progress (its channel made on the simulator, or refused by it)
    const recording = page.locator('.ms-fl-item', { hasText: `${NAMES.live} · ${NAMES.schedule}` }).first();
    await recording.waitFor({ timeout: 20_000 });
    // the past day's failed slot, with its reason
    await page.locator('.ms-fl-failures .ms-fl-item', { hasText: NAMES.slotReason }).waitFor();
    await page.locator('.ms-tl-bar-text.ms-failed', { hasText: NAMES.slotReason }).first().waitFor();
    for (const name of [NAMES.refusing, NAMES.refusingPaused]) {
      await page.locator('.ms-tl-title', { hasText: name }).waitFor();
    }
    // jobs submitted to the hostile workflows and followed by the real nodes
    await page.locator(`${nodeSelector('xssinjectok00001')} .red-ui-flow-node-button`).click();
    await page.locator(`${nodeSelector('xssinjectko00001')} .red-ui-flow-node-button`).click();
    const done = page.locator('.ms-fl-done .ms-fl-item', { hasText: NAMES.jobOk });
    await done.waitFor({ timeout: 30_000 });
    expect(await done.locator('.ms-fl-title').textContent()).toBe(NAMES.jobOk);
    const failed = page.locator('.ms-fl-failures .ms-fl-item', { hasText: NAMES.jobFails });
    await failed.waitFor({ timeout: 30_000 });
    expect(await failed.locator('.ms-fl-title').textContent()).toBe(NAMES.jobFails);
    await expectClean(page);
  });

  const literal = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  /** the window "Skip next" and "Start now" name: one of the schedules' windows, its name whole */
  const WINDOW = `(${[NAMES.news, NAMES.live].map(literal).join('|')})`;
  /** and its start, in its zone: "18:00–19:00 GMT (Europe/London)", the day first when not today */
  const WHEN = '([^<>"]*\\d\\d:\\d\\d–\\d\\d:\\d\\d [^<>"]+)';
  const QUESTIONS = {
    pause: (n: string) =>
      new RegExp(`^${literal(`Pause the schedule "${n}"? No window starts until it is resumed.`)}$`),
    resume: (n: string) => new RegExp(`^${literal(`Resume the schedule "${n}"?`)}$`),
    skip: (n: string) => new RegExp(`^${literal(`Skip the next window of "${n}": "`)}${WINDOW}", ${WHEN}\\?$`),
    start: (n: string) =>
      new RegExp(`^${literal('Start "')}${WINDOW}${literal(`" of "${n}" now? Its next planned start is `)}${WHEN}\\.$`),
  };

  /** Presses an action of a schedule's row, checks the question shows the names as text, and confirms. */
  async function act(page: Page, nodeId: string, name: string, action: keyof typeof QUESTIONS): Promise<void> {
    await page.locator(`.ms-tl-row[data-node="${nodeId}"] .ms-act-${action}`).click();
    const question = page.locator('.red-ui-notification', { has: page.locator('button.ms-confirm') }).last();
    await question.waitFor();
    await expectClean(page);
    expect((await question.locator('p').textContent())?.trim()).toMatch(QUESTIONS[action](name));
    await question.locator('button.ms-confirm').click();
    await question.waitFor({ state: 'detached' });
  }

  it('pauses, resumes, skips and starts the schedule: each question names it as text', async () => {
    const { page } = stack;
    const row = page.locator(`.ms-tl-row[data-node="${SCHEDULE}"]`);
    await act(page, SCHEDULE, NAMES.schedule, 'pause');
    await row.locator('.ms-tl-state', { hasText: 'paused' }).waitFor();
    await act(page, SCHEDULE, NAMES.schedule, 'resume');
    await page.locator(`.ms-tl-row[data-node="${SCHEDULE}"]:not(.ms-paused) .ms-act-pause`).waitFor();
    await act(page, SCHEDULE, NAMES.schedule, 'skip');
    await act(page, SCHEDULE, NAMES.schedule, 'start');
    expect(await page.locator('.red-ui-notification-error').count()).toBe(0);
    await expectClean(page);
  });

  it('shows every refusal ("Could not …") with the name and the reason as text', async () => {
    const { page } = stack;
    const refusals: Array<[string, string, keyof typeof QUESTIONS]> = [
      [REFUSING, NAMES.refusing, 'pause'],
      [REFUSING, NAMES.refusing, 'skip'],
      [REFUSING, NAMES.refusing, 'start'],
      [REFUSING_PAUSED, NAMES.refusingPaused, 'resume'],
    ];
    for (const [nodeId, name, action] of refusals) {
      await act(page, nodeId, name, action);
      const text = `Could not ${action} "${name}": ${NAMES.refusal}`;
      const notice = page.locator('.red-ui-notification-error', { hasText: text }).last();
      await notice.waitFor();
      expect((await notice.locator('p').textContent())?.trim()).toBe(text);
      await expectClean(page);
    }
  });
});

describe('hostile names in the edit dialogs', () => {
  const nameField = (page: Page) => page.locator('#node-input-name');

  it('the schedule dialog: preview and window list show the window names as text', async () => {
    const { page } = stack;
    await openNode(page, SCHEDULE);
    expect(await nameField(page).inputValue()).toBe(NAMES.schedule);
    const preview = page.locator('#ms-schedule-preview');
    await preview.locator('div', { hasText: NAMES.live }).first().waitFor();
    expect(await preview.textContent()).toContain(`${NAMES.news} (news)`);
    await page.locator('#node-input-source').selectOption('editor');
    const names = page.locator('#node-input-windows-container .ms-w-name');
    await expect
      .poll(() => names.evaluateAll((els) => els.map((e) => (e as HTMLInputElement).value)))
      .toEqual([NAMES.news, NAMES.live]);
    await expectClean(page);
    await closeNode(page, 'cancel');
  });

  it('the submit-job dialog: workflow names, declared inputs, the fill question and the Inputs reason as text', async () => {
    const { page } = stack;
    await openNode(page, SUBMIT_INPUTS);
    expect(await nameField(page).inputValue()).toBe(NAMES.submitInputs);
    const rows = page.locator('#node-media-spaces-workflow-list .ms-wf-name');
    await expect
      .poll(() => rows.allTextContents())
      .toEqual(expect.arrayContaining([WORKFLOWS.inputs, WORKFLOWS.fails, WORKFLOWS.alert]));
    await page.locator('#node-media-spaces-workflow-all').check();
    await expect.poll(() => rows.allTextContents()).toContain(WORKFLOWS.archived);
    expect(await page.locator('#node-media-spaces-workflow-list .ms-wf-row.selected .ms-wf-name').textContent()).toBe(
      WORKFLOWS.inputs,
    );
    const form = page.locator('#node-media-spaces-inputs-form');
    await form.locator('label', { hasText: NAMES.inputVariable }).waitFor();
    expect(await form.locator('label').allTextContents()).toEqual([
      `${NAMES.inputVariable} (Int32)`,
      // a media input without files is required, marked after its name
      `${NAMES.inputMedia} (media) *`,
    ]);
    // a bad Int32 value, written into the Inputs JSON by the form
    await form.locator('input[data-variable]').fill('not a number');
    await expectClean(page);
    // a typed value other than the default: "Fill inputs" asks, naming the input
    await page.locator('#node-media-spaces-inputs-template').click();
    const question = page.locator('.ms-fill-question');
    await question.waitFor();
    expect(await question.locator('li').allTextContents()).toEqual([NAMES.inputVariable]);
    await expectClean(page);
    await page.locator('#node-media-spaces-fill-cancel').click();
    await question.waitFor({ state: 'detached' });
    // kept: the node is invalid, and its error badge's tooltip gives the validator's reason, naming the input
    await closeNode(page, 'ok');
    await page.locator(`${nodeSelector(SUBMIT_INPUTS)} .red-ui-flow-node-error`).hover();
    const tooltip = page.locator('.red-ui-flow-port-tooltip');
    await tooltip.waitFor();
    expect(await tooltip.textContent()).toContain(`${NAMES.inputVariable}:`);
    await expectClean(page);
  });

  it('the config dialog: its name and the Test connection results as text', async () => {
    const { page } = stack;
    await openNode(page, SUBMIT);
    await page.locator('#node-input-btn-server-edit').click();
    await page.locator('#node-config-dialog-ok').waitFor();
    expect(await page.locator('#node-config-input-name').inputValue()).toBe(NAMES.config);
    await page.locator('#node-config-media-spaces-test').click();
    const results = page.locator('#node-config-media-spaces-test-result');
    await results.locator('div', { hasText: '✔' }).first().waitFor({ timeout: 20_000 });
    await expectClean(page);
    await page.locator('#node-config-dialog-cancel').click();
    await page.locator('#node-config-dialog-ok').waitFor({ state: 'detached' });
    await closeNode(page, 'cancel');
  });

  it("a service answering with markup: the picker's failure and the Test connection result show it as text", async () => {
    const { page } = stack;
    await openNode(page, SUBMIT);
    await page.locator('#node-input-server').selectOption(BROKEN);
    const count = page.locator('#node-media-spaces-workflow-count');
    await count.filter({ hasText: NAMES.serviceError }).waitFor({ timeout: 20_000 });
    await expectClean(page);
    await page.locator('#node-input-btn-server-edit').click();
    await page.locator('#node-config-dialog-ok').waitFor();
    expect(await page.locator('#node-config-input-name').inputValue()).toBe(NAMES.broken);
    await page.locator('#node-config-media-spaces-test').click();
    const results = page.locator('#node-config-media-spaces-test-result');
    await results.locator('div', { hasText: NAMES.serviceError }).first().waitFor({ timeout: 20_000 });
    expect(await results.textContent()).toContain(`HTTP 500: ${NAMES.serviceError}`);
    await expectClean(page);
    await page.locator('#node-config-dialog-cancel').click();
    await page.locator('#node-config-dialog-ok').waitFor({ state: 'detached' });
    await closeNode(page, 'cancel');
  });

  it('the follow-job dialog and its coordination server: the name and the URL warning as text', async () => {
    const { page } = stack;
    await openNode(page, FOLLOW);
    expect(await nameField(page).inputValue()).toBe(NAMES.follow);
    await page.locator('#node-input-coordination').selectOption(COORD);
    await page.locator('#node-input-btn-coordination-edit').click();
    await page.locator('#node-config-dialog-ok').waitFor();
    expect(await page.locator('#node-config-input-name').inputValue()).toBe(NAMES.coordination);
    const warning = page.locator('#node-config-media-spaces-coordination-plain');
    await warning.waitFor();
    expect(await warning.textContent()).toContain(IMG);
    await expectClean(page);
    await page.locator('#node-config-dialog-cancel').click();
    await page.locator('#node-config-dialog-ok').waitFor({ state: 'detached' });
    await closeNode(page, 'cancel');
  });

  const simpleDialogs: Array<[string, string, string, string]> = [
    [CHANNEL, NAMES.channel, '#node-input-channelName', IMG],
    [OTHERS.list, NAMES.list, '', ''],
    [OTHERS.delete, NAMES.delete, '#node-input-eventId', SVG],
    [OTHERS.wait, NAMES.wait, '#node-input-workflow', IMG],
    [OTHERS.watch, NAMES.watch, '', ''],
  ];
  for (const [id, name, field, value] of simpleDialogs) {
    it(`the dialog of "${name}" shows its settings as text`, async () => {
      const { page } = stack;
      await openNode(page, id);
      expect(await nameField(page).inputValue()).toBe(name);
      if (field) expect(await page.locator(field).inputValue()).toBe(value);
      await expectClean(page);
      await closeNode(page, 'cancel');
    });
  }

  it('leaves nothing behind: no dialog, no flag, no injected element', async () => {
    await expectClean(stack.page);
  });
});

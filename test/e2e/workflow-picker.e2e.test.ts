import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  credentialsFor,
  fixtureDocument,
  fixtureSpace,
  fixtureWorkflow,
  spaceIdFor,
  workflowIdFor,
} from '../../lib/simulator/fixture-builders';
import { generateWorkflows } from '../../lib/simulator/generate';
import { closeAllTrays, closeNode, editorNode, importNodes, openNode, typedInputValue } from './support/editor';
import { type Stack, screenshot, startStack } from './support/stack';

/**
 * The submit-job dialog's workflow picker against a space of 10,002
 * workflows (10,000 generated, as bench/ seeds them, plus two named ones),
 * and "Fill inputs from the workflow" merging with what the user typed.
 * Times to open and to filter are measured in the browser and printed.
 */

const SPACE = 'picker';
const GENERATED = 10_000;
const SEED = 7;
const SERVER = 'e2e0pickercfg001';
const SUBMIT = 'e2e0pickersub001';
const FILL = workflowIdFor('Promo render');
const generated = generateWorkflows(spaceIdFor(SPACE), GENERATED, SEED, 10_000);
// the generator gives its first four workflows the four statuses in this order
const [, IDLE, ARCHIVED] = generated;

let stack: Stack;

beforeAll(async () => {
  expect([IDLE.status, ARCHIVED.status]).toEqual(['idle', 'archived']);
  const keys = credentialsFor(SPACE);
  stack = await startStack('workflow-picker', {
    fixture: fixtureDocument(
      fixtureSpace(SPACE, {
        workflows: [
          fixtureWorkflow('Promo render', {
            inputs: {
              variables: [
                { name: 'Title', typecode: 'String', default: 'Untitled', description: '' },
                { name: 'Priority', typecode: 'Byte', default: '5', description: '' },
                { name: 'Region', typecode: 'String', default: 'EU', description: '' },
              ],
              media_nicknames: [],
              attachments: [],
              labels: [],
            },
          }),
          fixtureWorkflow('Promo render (retired)', { status: 'archived' }),
        ],
        generate: { count: GENERATED, seed: SEED },
      }),
    ),
  });
  await importNodes(stack.page, [
    {
      id: SERVER,
      type: 'media-spaces-config',
      name: 'Big space',
      workflowUrl: stack.sim.workflowUrl,
      liveCaptureUrl: stack.sim.liveCaptureUrl,
      spaceId: spaceIdFor(SPACE),
      workflowPrefix: '/workflow/v1',
      timeout: 30000,
      retries: 3,
      rejectUnauthorized: true,
      credentials: { apiKey: keys.admin, accessToken: keys.token },
    },
    { id: SUBMIT, type: 'media-spaces-submit-job', server: SERVER, x: 300, y: 120, wires: [[]] },
  ]);
});

afterAll(async () => {
  await stack?.close();
});

afterEach(async (ctx) => {
  if (stack && ctx.task.result?.state === 'fail') await closeAllTrays(stack.page);
});

const list = () => stack.page.locator('#node-media-spaces-workflow-list');
const rows = () => list().locator('.ms-wf-row');
const countText = async () => (await stack.page.locator('#node-media-spaces-workflow-count').textContent()) ?? '';

/** Types a search as a user would and returns the rows' ids. */
async function search(text: string): Promise<string[]> {
  await stack.page.fill('#node-media-spaces-workflow-search', text);
  return rows().evaluateAll((els) => els.map((e) => e.getAttribute('data-id') ?? ''));
}

/** The time the picker takes to redraw after one keystroke's input event, measured in the page. */
async function filterMs(text: string): Promise<number> {
  return stack.page.evaluate((query) => {
    const input = document.getElementById('node-media-spaces-workflow-search') as HTMLInputElement;
    const started = performance.now();
    input.value = query;
    input.dispatchEvent(new Event('input', { bubbles: true }));
    // the redraw is synchronous; reading layout makes the browser apply it before the clock stops
    void document.getElementById('node-media-spaces-workflow-list')?.offsetHeight;
    return performance.now() - started;
  }, text);
}

describe('workflow picker with 10,002 workflows', () => {
  it('opens fast, shows active workflows first with their status, and caps the rendered rows', async () => {
    const { page } = stack;
    const started = Date.now();
    await openNode(page, SUBMIT);
    await rows().first().waitFor({ state: 'visible', timeout: 20_000 });
    const firstRows = Date.now() - started;
    await expect.poll(countText, { timeout: 120_000, interval: 250 }).toMatch(/^10,?002 workflows/);
    const allLoaded = Date.now() - started;
    const activeCount = generated.filter((w) => w.status === 'active').length + 1;
    expect((await countText()).replace(/,/g, '')).toContain(`(${activeCount} active)`);

    // only active ones by default, each with its status; at most 100 rows and a line asking to refine
    expect(await rows().count()).toBe(100);
    const statuses = await list().locator('.ms-wf-status').allTextContents();
    expect(new Set(statuses)).toEqual(new Set(['active']));
    expect(await list().locator('.ms-wf-more').textContent()).toMatch(/more: show the next 100, or refine your search/);

    const timings = {
      firstRows,
      allLoaded,
      filterByName: await filterMs('transcode promo'),
      filterById: await filterMs(IDLE.id.slice(0, 13)),
      filterNoMatch: await filterMs('zzz-nothing'),
      filterCleared: await filterMs(''),
    };
    console.log(`[workflow-picker] 10,002 workflows: ${JSON.stringify(timings)} (ms)`);
    expect(timings.filterByName).toBeLessThan(250);
    expect(timings.filterCleared).toBeLessThan(250);
  });

  it('searches by name and by id; the toggle shows idle, archived and deleted ones', async () => {
    const { page } = stack;
    expect(await search('promo render')).toEqual([FILL]);
    await page.locator('#node-media-spaces-workflow-all').check();
    expect(await search('promo render')).toEqual([FILL, workflowIdFor('Promo render (retired)')]);
    await page.locator('#node-media-spaces-workflow-all').uncheck();

    // an idle workflow's id: hidden by default, with a line saying where it is
    expect(await search(IDLE.id)).toEqual([]);
    expect(await list().textContent()).toMatch(/1 idle, archived or deleted do/);
    await page.locator('#node-media-spaces-workflow-all').check();
    expect(await search(IDLE.id.toUpperCase())).toEqual([IDLE.id]);
    expect(await rows().first().locator('.ms-wf-status').textContent()).toBe('idle');
    expect(await search(ARCHIVED.name)).toEqual([ARCHIVED.id]);
    expect(await rows().first().locator('.ms-wf-status').textContent()).toBe('archived');
  });

  it("picking one sets the node's workflow id and name", async () => {
    const { page } = stack;
    await page.locator('#node-media-spaces-workflow-all').uncheck();
    await search('promo render');
    await screenshot(page, 'workflow-picker.png');
    await rows().first().click();
    expect(await typedInputValue(page, '#node-input-workflowId')).toBe(FILL);
    expect(await rows().first().getAttribute('aria-selected')).toBe('true');
    await closeNode(page);
    expect(await editorNode(page, SUBMIT)).toMatchObject({
      workflowId: FILL,
      workflowIdType: 'str',
      workflowName: 'Promo render',
    });
  });
});

describe('workflow picker: archived workflows and the chosen one', () => {
  const warning = () => stack.page.locator('#node-media-spaces-workflow-warning');

  it('archived workflows are found by their status and browsed past 100 rows; picking one warns', async () => {
    const { page } = stack;
    await openNode(page, SUBMIT);
    await expect.poll(countText, { timeout: 120_000, interval: 250 }).toMatch(/^10,?002 workflows/);
    await page.locator('#node-media-spaces-workflow-all').check();
    // the chosen workflow (Promo render) heads the list; below it, archived ones only
    const ids = await search('archived');
    expect(ids.length).toBe(100);
    const statuses = await list().locator('.ms-wf-row:not(.selected) .ms-wf-status').allTextContents();
    expect(new Set(statuses)).toEqual(new Set(['archived']));
    await list().locator('.ms-wf-more').click();
    await expect.poll(() => rows().count()).toBe(200);
    expect(await warning().isVisible()).toBe(false);
    await search(ARCHIVED.name);
    await list().locator(`.ms-wf-row[data-id="${ARCHIVED.id}"]`).click();
    await expect.poll(() => warning().isVisible()).toBe(true);
    expect(await warning().textContent()).toContain(`"${ARCHIVED.name}" is archived`);
    await closeNode(page);
  });

  it('reopened, the dialog shows the chosen workflow first and highlighted, with its warning', async () => {
    const { page } = stack;
    await openNode(page, SUBMIT);
    await rows().first().waitFor({ state: 'visible', timeout: 20_000 });
    // the chosen, archived workflow heads the list once its page has loaded (after every active one)
    await expect.poll(() => rows().first().getAttribute('data-id'), { timeout: 60_000 }).toBe(ARCHIVED.id);
    expect(await rows().first().getAttribute('aria-selected')).toBe('true');
    expect(await rows().first().isVisible()).toBe(true);
    await expect.poll(() => warning().isVisible()).toBe(true);
    await screenshot(page, 'workflow-picker-chosen.png', 'tray');
    // back to the active workflow the next tests use
    await search('promo render');
    await list().locator(`.ms-wf-row[data-id="${FILL}"]`).click();
    await expect.poll(() => warning().isVisible()).toBe(false);
    await closeNode(page);
  });
});

describe('Fill inputs from the workflow', () => {
  const inputs = async () => JSON.parse((await typedInputValue(stack.page, '#node-input-jobInputs')) || '{}');
  // Node-RED's typed input hides the original input and puts its own widget right after it
  const inputsBox = () => stack.page.locator('#node-input-jobInputs + .red-ui-typedInput-container');
  /** Types into the Inputs box (the typed input's visible field) and leaves it, as a user does. */
  const typeInputs = async (text: string) => {
    const field = inputsBox().locator('input.red-ui-typedInput-input');
    await field.fill(text);
    await field.dispatchEvent('change');
  };
  const question = () => stack.page.locator('.ms-fill-question');

  it('adds the missing inputs with their defaults without asking when nothing typed would change', async () => {
    const { page } = stack;
    await openNode(page, SUBMIT);
    await page.locator('#node-media-spaces-inputs-form [data-variable="Title"]').waitFor({ timeout: 10_000 });
    await typeInputs('{"variables":{"Priority":"5"}}');
    await page.click('#node-media-spaces-inputs-template');
    await expect.poll(inputs).toEqual({ variables: { Title: 'Untitled', Priority: '5', Region: 'EU' } });
    expect(await question().count()).toBe(0);
    expect(await page.locator('#node-media-spaces-submit-hint').textContent()).toMatch(/2 added/);
  });

  it('asks before changing typed values; Merge keeps them and adds the rest', async () => {
    const { page } = stack;
    await typeInputs('{"variables":{"Title":"Launch night","Legacy":"x"}}');
    await page.click('#node-media-spaces-inputs-template');
    await question().waitFor({ state: 'visible' });
    const asked = (await question().textContent()) ?? '';
    expect(asked).toContain('Title');
    expect(asked).toMatch(/no longer declares[\s\S]*Legacy/);
    await screenshot(page, 'fill-inputs-question.png');
    // cancel changes nothing
    await page.click('#node-media-spaces-fill-cancel');
    await question().waitFor({ state: 'detached' });
    expect(await inputs()).toEqual({ variables: { Title: 'Launch night', Legacy: 'x' } });

    await page.click('#node-media-spaces-inputs-template');
    await page.click('#node-media-spaces-fill-merge');
    await question().waitFor({ state: 'detached' });
    await expect.poll(inputs).toEqual({ variables: { Title: 'Launch night', Priority: '5', Region: 'EU' } });
    // the form shows the kept value (it is rebuilt once the workflow's inputs, cached, resolve: a tick later)
    await expect
      .poll(() => page.locator('#node-media-spaces-inputs-form [data-variable="Title"]').inputValue())
      .toBe('Launch night');
  });

  it('Reset restores the defaults; Inputs from msg are not replaced without asking', async () => {
    const { page } = stack;
    await page.click('#node-media-spaces-inputs-template');
    await page.click('#node-media-spaces-fill-reset');
    // a closed question slides away (300 ms) before it leaves the page; the next one must be the only one
    await question().waitFor({ state: 'detached' });
    await expect.poll(inputs).toEqual({ variables: { Title: 'Untitled', Priority: '5', Region: 'EU' } });

    await inputsBox().locator('button.red-ui-typedInput-type-select').click();
    await page.locator('.red-ui-typedInput-options a[value="msg"]:visible').click();
    await typeInputs('payload.inputs');
    await page.click('#node-media-spaces-inputs-template');
    await question().waitFor({ state: 'visible' });
    expect(await question().textContent()).toContain('msg.payload.inputs');
    await page.click('#node-media-spaces-fill-cancel');
    expect(await page.locator('#node-input-jobInputsType').inputValue()).toBe('msg');
    await closeNode(page, 'cancel');
  });

  it('the editor showed no script errors', () => {
    expect(stack.pageErrors).toEqual([]);
  });
});

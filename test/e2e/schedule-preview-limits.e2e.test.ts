import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { closeAllTrays, closeNode, editorNode, importNodes, openNode } from './support/editor';
import { type Stack, startStack } from './support/stack';

/**
 * The schedule dialog's preview of a document over the preview's limits: the
 * first windows, then what was left out in words; the list view refuses a
 * YAML it was sent only the first windows of, and the YAML stays as it was.
 */

const SCHEDULE = 'e2e0schedbig0001';
const LISTED = 'e2e0schedbig0002';
const WINDOWS = 60;
/** A window name that would be markup if it were ever written as HTML. */
const HOSTILE = '<img src=x onerror="window.__injected=1">';

const YAML = [
  'timezone: Europe/London',
  'windows:',
  ...Array.from({ length: WINDOWS }, (_, i) => [
    `  - id: w${i}`,
    `    name: ${JSON.stringify(i === 0 ? HOSTILE : `Programme ${i}`)}`,
    `    cron: "${i} 6 * * *"`,
    '    duration: 30m',
  ]).flat(),
  '',
].join('\n');

let stack: Stack;

beforeAll(async () => {
  stack = await startStack('schedule-preview-limits');
  await importNodes(stack.page, [
    {
      id: SCHEDULE,
      type: 'media-spaces-schedule',
      name: 'A large plan',
      source: 'yaml',
      yaml: YAML,
      x: 180,
      y: 120,
      wires: [[], [], []],
    },
    {
      id: LISTED,
      type: 'media-spaces-schedule',
      name: 'A long list',
      source: 'editor',
      windows: Array.from({ length: WINDOWS }, (_, i) => ({
        id: `l${i}`,
        name: `Listed ${i}`,
        cron: `${i} 7 * * *`,
        duration: '30m',
      })),
      x: 180,
      y: 200,
      wires: [[], [], []],
    },
  ]);
});

afterAll(async () => {
  await stack?.close();
});

afterEach(async (ctx) => {
  if (stack && ctx.task.result?.state === 'fail') await closeAllTrays(stack.page);
});

describe('schedule dialog, a document over the preview limits', () => {
  it('previews the first 50 windows and says, as text, how many it left out', async () => {
    const { page } = stack;
    await openNode(page, SCHEDULE);
    const summary = page.locator('#ms-schedule-preview .ms-schedule-omitted');
    await summary.waitFor({ timeout: 10_000 });
    expect((await summary.textContent())?.trim()).toBe(
      'Previewed the first 50 of 60 windows; the other 10 are neither checked nor listed here (deploying checks every window).',
    );
    expect(await page.locator('#ms-schedule-preview ol').count()).toBe(50);
    expect(await page.locator('#ms-schedule-preview').textContent()).toContain(`${HOSTILE} (w0)`);
    expect(await page.locator('#ms-schedule-preview img').count()).toBe(0);
  });

  it('will not turn that YAML into the list, and leaves the YAML as it was', async () => {
    const { page } = stack;
    await page.locator('#node-input-source').selectOption('editor');
    await page
      .locator('.red-ui-notification', { hasText: 'The list cannot show this schedule' })
      .first()
      .waitFor({ timeout: 10_000 });
    await expect.poll(() => page.locator('#node-input-source').inputValue()).toBe('yaml');
    await closeNode(page);
    const saved = await editorNode(page, SCHEDULE);
    expect(saved?.source).toBe('yaml');
    expect(saved?.yaml).toBe(YAML);
    expect(await page.evaluate(() => (window as unknown as { __injected?: number }).__injected)).toBeUndefined();
  });

  it('a long window list sends the preview its first 50 windows and its length, and is previewed as a whole', async () => {
    const { page } = stack;
    const bodies: unknown[] = [];
    const listen = (request: { url(): string; postData(): string | null }) => {
      if (request.url().endsWith('/media-spaces/schedule/preview'))
        bodies.push(JSON.parse(request.postData() ?? 'null'));
    };
    page.on('request', listen);
    try {
      await openNode(page, LISTED);
      const summary = page.locator('#ms-schedule-preview .ms-schedule-omitted');
      await summary.waitFor({ timeout: 10_000 });
      expect((await summary.textContent())?.trim()).toBe(
        'Previewed the first 50 of 60 windows; the other 10 are neither checked nor listed here (deploying checks every window).',
      );
      expect(await page.locator('#ms-schedule-preview ol').count()).toBe(50);
      const sent = bodies.at(-1) as { model: { windows: { id: string }[] }; total: number };
      expect(sent.total).toBe(WINDOWS);
      expect(sent.model.windows.map((w) => w.id)).toEqual(Array.from({ length: 50 }, (_, i) => `l${i}`));
      await closeNode(page);
      // the list itself is kept whole
      expect((await editorNode(page, LISTED))?.windows).toHaveLength(WINDOWS);
    } finally {
      page.off('request', listen);
    }
  });

  it('the editor showed no script errors', () => {
    expect(stack.pageErrors).toEqual([]);
  });
});

import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { type Browser, type BrowserContext, chromium, type Download, type Page } from 'playwright-core';
import { inject } from 'vitest';
import { CHROMIUM_ARGS, CHROMIUM_PATH } from '../../../scripts/e2e-lib.mjs';
import { E2E_DIR } from './paths';

export interface OpenedPage {
  browser: Browser;
  context: BrowserContext;
  page: Page;
}

/**
 * A page of its own in a fresh browser context (no cookies, storage or cache from another file)
 * of the chromium that global-setup.ts started once for the run; a chromium of the file's own
 * when there is none (a file run under another config). `browser.close()` ends this file's
 * contexts and its connection, or the browser it launched.
 */
export async function openPage(viewport: { width: number; height: number }): Promise<OpenedPage> {
  const endpoint = inject('e2eBrowser');
  const browser = endpoint
    ? await chromium.connect(endpoint)
    : await chromium.launch({ executablePath: CHROMIUM_PATH, headless: true, args: CHROMIUM_ARGS });
  try {
    const context = await browser.newContext({ viewport });
    const page = await context.newPage();
    return { browser, context, page };
  } catch (error) {
    await browser.close().catch(() => undefined);
    throw error;
  }
}

/**
 * What a download holds, as text. The run's chromium is connected to, not launched here, so the
 * file it wrote has no local path (download.path() refuses): a copy is saved and read.
 */
export async function downloadedText(download: Download): Promise<string> {
  mkdirSync(E2E_DIR, { recursive: true });
  const dir = mkdtempSync(join(E2E_DIR, 'download-'));
  try {
    const file = join(dir, download.suggestedFilename() || 'download');
    await download.saveAs(file);
    return readFileSync(file, 'utf8');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

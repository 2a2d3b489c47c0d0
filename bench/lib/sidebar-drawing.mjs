// The Media Spaces sidebar tab drawing its timeline in Debian's Chromium
// (playwright-core, as the editor tests open it): the editor is loaded, then,
// in the page, the tab's button is clicked and animation frames are watched
// until one row per schedule and their slot bars are on the page. Measured
// with performance.now() in the page; the activity fetch it made is read from
// the page's resource timings.
import { createRequire } from 'node:module';
import { CHROMIUM_ARGS } from '../../scripts/e2e-lib.mjs';

const require = createRequire(import.meta.url);

export async function sidebarDrawing(editorUrl, rowsExpected, { timeoutMs = 60_000 } = {}) {
  const { chromium } = require('playwright-core');
  const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', headless: true, args: CHROMIUM_ARGS });
  try {
    const page = await browser.newPage({ viewport: { width: 1600, height: 1000 } });
    const errors = [];
    page.on('pageerror', (e) => errors.push(String(e)));
    await page.goto(editorUrl, { timeout: timeoutMs });
    await page.waitForFunction(() => Boolean(window.RED?.workspaces?.active?.()), undefined, { timeout: timeoutMs });
    await page.waitForSelector('a.red-ui-tab-link-button[href="#media-spaces"], button[data-tab-id="media-spaces"]', {
      state: 'attached',
      timeout: timeoutMs,
    });
    const measured = await page.evaluate(
      ({ rows, limit }) =>
        new Promise((resolve) => {
          const button = document.querySelector(
            'a.red-ui-tab-link-button[href="#media-spaces"], button[data-tab-id="media-spaces"]',
          );
          const activityFetches = () =>
            performance
              .getEntriesByType('resource')
              .filter((e) => e.name.includes('/media-spaces/activity?part=schedules'))
              .map((e) => ({ ms: e.duration, bytes: e.transferSize || e.encodedBodySize }));
          // the editor may have fetched the activity as it loaded, before the tab was shown
          const atLoad = activityFetches();
          performance.clearResourceTimings();
          const t0 = performance.now();
          button.click();
          const frame = () => {
            const drawnRows = document.querySelectorAll('.ms-tl-row').length;
            const bars = document.querySelectorAll('.ms-tl-bar').length;
            const elapsed = performance.now() - t0;
            if ((drawnRows >= rows && bars >= rows) || elapsed > limit) {
              resolve({ drawnMs: elapsed, rows: drawnRows, bars, fetches: activityFetches(), atLoad });
              return;
            }
            requestAnimationFrame(frame);
          };
          requestAnimationFrame(frame);
        }),
      { rows: rowsExpected, limit: timeoutMs },
    );
    const fetched = measured.fetches[0] ?? measured.atLoad.at(-1);
    return {
      ...measured,
      fetchMs: fetched?.ms ?? null,
      fetchKB: fetched ? fetched.bytes / 1024 : null,
      fetchedBeforeShown: measured.fetches.length === 0,
      pageErrors: errors.slice(0, 3),
    };
  } finally {
    await browser.close().catch(() => undefined);
  }
}

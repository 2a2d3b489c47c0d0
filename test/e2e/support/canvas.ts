import type { Page } from 'playwright-core';

/** A thing drawn on the canvas and where it is on screen. */
export interface Box {
  what: string;
  x: number;
  y: number;
  w: number;
  h: number;
}

/** Screen boxes of every node's rectangle and of every visible status text on the active flow. */
export function canvasBoxes(page: Page): Promise<Box[]> {
  return page.evaluate(() => {
    const out: Array<{ what: string; x: number; y: number; w: number; h: number }> = [];
    for (const g of document.querySelectorAll('g.red-ui-flow-node-group')) {
      const rect = g.querySelector('rect.red-ui-flow-node');
      if (rect) {
        const r = rect.getBoundingClientRect();
        out.push({ what: `node ${g.id}`, x: r.x, y: r.y, w: r.width, h: r.height });
      }
      const group = g.querySelector('.red-ui-flow-node-status-group') as SVGGElement | null;
      const label = g.querySelector('.red-ui-flow-node-status-label');
      if (group && label && group.style.display !== 'none' && label.textContent) {
        const r = group.getBoundingClientRect();
        out.push({ what: `status of ${g.id}: ${label.textContent}`, x: r.x, y: r.y, w: r.width, h: r.height });
      }
    }
    return out;
  });
}

/** Every pair of boxes that overlap: a node over a node, a status over a node or another status. */
export function overlaps(list: Box[]): string[] {
  const found: string[] = [];
  for (let i = 0; i < list.length; i++) {
    for (let j = i + 1; j < list.length; j++) {
      const [a, b] = [list[i], list[j]];
      if (a.x < b.x + b.w && b.x < a.x + a.w && a.y < b.y + b.h && b.y < a.y + a.h) found.push(`${a.what} / ${b.what}`);
    }
  }
  return found;
}

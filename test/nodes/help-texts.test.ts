import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

/**
 * The help every node shows in the editor's Help sidebar: short (the whole reference is in
 * docs/nodes/), in Node-RED's help style, and no code sample wider than the sidebar.
 */

const NODES = new URL('../../nodes/', import.meta.url);
const MAX_CHARS = 4_000;
/** Characters of monospace that fit the Help sidebar at its default width. */
const MAX_PRE_LINE = 40;
/** Node-RED's help never wraps inside inline code: a longer one runs out of a nested list's width. */
const MAX_INLINE_CODE = 30;
/** A property's term is monospace and never wraps either (Node-RED 5's Help panel is about 280 px wide), its type beside it. */
const MAX_TERM = 26;

const helps = readdirSync(NODES, { withFileTypes: true })
  .filter((d) => d.isDirectory())
  .flatMap((d) => {
    const dir = new URL(`${d.name}/locales/en-US/`, NODES);
    try {
      return readdirSync(dir)
        .filter((f) => f.endsWith('.html'))
        .map((f) => ({ file: `${d.name}/${f}`, text: readFileSync(new URL(f, dir), 'utf8') }));
    } catch {
      return [];
    }
  });

describe("the nodes' help texts", () => {
  it('every node with a locale has one', () => {
    expect(helps.length).toBeGreaterThanOrEqual(10);
  });

  for (const { file, text } of helps) {
    it(`${file}: at most ${MAX_CHARS} characters, a summary first, code samples that fit the sidebar`, () => {
      expect(text.length, file).toBeLessThanOrEqual(MAX_CHARS);
      const body = text.replace(/^<script[^>]*>\s*/, '');
      // Node-RED's style: a short summary paragraph before any section
      expect(body.startsWith('<p>'), file).toBe(true);
      const summary = /^<p>([\s\S]*?)<\/p>/.exec(body)?.[1] ?? '';
      expect(summary.length, file).toBeLessThanOrEqual(400);
      for (const code of text.match(/<code>[\s\S]*?<\/code>/g) ?? []) {
        expect(code.length - '<code></code>'.length, `${file}: ${code}`).toBeLessThanOrEqual(MAX_INLINE_CODE);
      }
      for (const dt of text.match(/<dt[^>]*>[\s\S]*?<\/dt>/g) ?? []) {
        const term = dt
          .replace(/<span class="property-type">[\s\S]*?<\/span>/, '')
          .replace(/<[^>]+>/g, '')
          .trim();
        expect(term.length, `${file}: ${dt}`).toBeLessThanOrEqual(MAX_TERM);
      }
      for (const pre of text.match(/<pre>[\s\S]*?<\/pre>/g) ?? []) {
        for (const line of pre.replace(/<\/?pre>/g, '').split('\n')) {
          expect(line.length, `${file}: ${line}`).toBeLessThanOrEqual(MAX_PRE_LINE);
        }
      }
    });
  }
});

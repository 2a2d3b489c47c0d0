import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { importCycles, sourceFiles } from '../support/import-cycles';

describe('import cycles in lib/', () => {
  it('the finder sees a cycle through a type import and a re-export', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'cycles-'));
    try {
      writeFileSync(path.join(dir, 'a.ts'), "import type { B } from './b';\nexport type A = B | 1;\n");
      writeFileSync(path.join(dir, 'b.ts'), "export { c } from './c';\nexport type B = 2;\n");
      writeFileSync(path.join(dir, 'c.ts'), "import { a } from './a';\nexport const c = a;\n");
      writeFileSync(path.join(dir, 'd.ts'), "import { c } from './c';\nexport const d = c;\n");
      expect(importCycles(sourceFiles(dir), dir)).toEqual([['a.ts', 'b.ts', 'c.ts']]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('has none', () => {
    expect(importCycles(sourceFiles(path.resolve(__dirname, '../../lib')))).toEqual([]);
  });
});

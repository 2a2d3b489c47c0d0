// Copies the non-TypeScript files Node-RED and the simulator load at run time
// (editor HTML, icons, locales, fixtures) next to the compiled JavaScript.
import { cpSync, existsSync, mkdirSync, readdirSync, statSync } from 'node:fs';
import { dirname, extname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const ASSET_EXTENSIONS = new Set(['.html', '.json', '.yaml', '.yml', '.svg', '.png']);

function walk(dir) {
  if (!existsSync(dir)) return;
  for (const entry of readdirSync(dir)) {
    const path = join(dir, entry);
    if (statSync(path).isDirectory()) walk(path);
    else if (ASSET_EXTENSIONS.has(extname(entry))) {
      const target = join(root, 'dist', relative(root, path));
      mkdirSync(dirname(target), { recursive: true });
      cpSync(path, target);
    }
  }
}

walk(join(root, 'nodes'));
walk(join(root, 'lib'));

// Bundles each node's typed editor code (nodes/<node>/editor.ts, which may
// import the library's rules) into the <script> of the node's .html, so the
// editor and the runtime apply the same code. The template is
// nodes/<node>/media-spaces-<node>.html with a line `<!-- editor.ts -->`
// where the script goes.
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const MARKER = '<!-- editor.ts -->';

const folders = readdirSync(join(root, 'nodes'), { withFileTypes: true }).filter((d) => d.isDirectory());
const jobs = [];
for (const { name } of folders) {
  const entry = join(root, 'nodes', name, 'editor.ts');
  if (!existsSync(entry)) continue;
  const html = readdirSync(join(root, 'nodes', name)).find((f) => f.endsWith('.html'));
  if (!html) throw new Error(`nodes/${name}/editor.ts has no .html template beside it`);
  jobs.push(bundleInto(entry, join(root, 'nodes', name, html), join(root, 'dist', 'nodes', name, html)));
}
await Promise.all(jobs);

async function bundleInto(entry, templatePath, target) {
  const template = readFileSync(templatePath, 'utf8');
  if (!template.includes(MARKER)) throw new Error(`${templatePath} lacks the line ${MARKER}`);
  const result = await build({
    entryPoints: [entry],
    bundle: true,
    write: false,
    format: 'iife',
    platform: 'browser',
    target: 'es2020',
    legalComments: 'none',
    charset: 'utf8',
    logLevel: 'warning',
  });
  // a literal "</script>" inside the bundle would end the tag early
  const code = result.outputFiles[0].text.replace(/<\/script/gi, '<\\/script');
  writeFileSync(target, template.replace(MARKER, `<script type="text/javascript">\n${code}</script>`));
}

// Bundles each node's typed editor code (nodes/<node>/editor.ts, which may
// import the library's rules) into the <script> of the node's .html, so the
// editor and the runtime apply the same code. The template is
// nodes/<node>/media-spaces-<node>.html with a line `<!-- editor.ts -->`
// where the script goes.
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { basename, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const MARKER = '<!-- editor.ts -->';
const require = createRequire(import.meta.url);

// A dialog's `defaults` take every field of the node's table with `...field,`
// (nodes/shared/editor/field-defaults.ts). The Flow Library's checker
// (node-red-dev) reads the defaults' keys from the source and cannot follow a
// spread, so the bundle gets them written out, key by key, from the compiled
// table (tsc has built dist/ before this step): a setting added to the table
// needs no line in the dialog.
const FIELD_SPREAD = /^([ \t]+)\.\.\.field,[ \t]*$/m;
const inlineFieldKeys = {
  name: 'inline-field-keys',
  setup(build) {
    build.onLoad({ filter: /[\\/]nodes[\\/][^\\/]+[\\/]editor\.ts$/ }, (args) => {
      const source = readFileSync(args.path, 'utf8');
      if (!FIELD_SPREAD.test(source)) return undefined;
      const compiled = join(root, 'dist', 'nodes', basename(dirname(args.path)), 'fields.js');
      if (!existsSync(compiled)) throw new Error(`${compiled} is missing: run tsc (npm run build) first`);
      const { FIELDS } = require(compiled);
      const spread = source.match(FIELD_SPREAD);
      const indent = spread[1];
      // the entries the dialog writes itself after the spread replace the table's, as a spread's would
      const rest = source
        .slice(spread.index + spread[0].length)
        .split(new RegExp(`\\n {0,${indent.length - 1}}\\}`))[0];
      const own = new Set([...rest.matchAll(new RegExp(`^${indent}(\\w+):`, 'gm'))].map((m) => m[1]));
      const keys = Object.entries(FIELDS)
        .filter(([, field]) => field.value !== undefined)
        .flatMap(([key, field]) => (field.types ? [key, `${key}Type`] : [key]))
        .filter((key) => !own.has(key));
      const contents = source.replace(FIELD_SPREAD, () =>
        keys.map((key) => `${indent}${key}: field[${JSON.stringify(key)}],`).join('\n'),
      );
      return { contents, loader: 'ts' };
    });
  },
};

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
    plugins: [inlineFieldKeys],
  });
  // a literal "</script>" inside the bundle would end the tag early
  const code = result.outputFiles[0].text.replace(/<\/script/gi, '<\\/script');
  writeFileSync(target, template.replace(MARKER, `<script type="text/javascript">\n${code}</script>`));
}

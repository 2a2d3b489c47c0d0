// Builds dist/ from the sources: clean, tsc, the assets, the editor bundles. Every test command builds
// first, and CI runs ten of them on sources that do not change between them, so a build whose inputs
// (every file under lib/ and nodes/, the build scripts, the tsconfigs and the package's manifest and lock)
// hash to the stamp the last whole build left is skipped, and says so. `--force` builds anyway.
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const require = createRequire(import.meta.url);
// outside dist/, which is packed whole, and gone with node_modules (a new install builds again)
const STAMP = join(root, 'node_modules', '.cache', 'media-spaces-build', 'stamp');
const INPUT_DIRS = ['lib', 'nodes'];
const INPUT_FILES = [
  'package.json',
  'package-lock.json',
  'tsconfig.json',
  'tsconfig.editor.json',
  'scripts/build.mjs',
  'scripts/clean.mjs',
  'scripts/copy-assets.mjs',
  'scripts/build-editor.mjs',
];
// what every build writes: a dist/ without them was removed or cut short since the stamp
const OUTPUTS = ['dist/lib/index.js', 'dist/nodes/config/media-spaces-config.js', 'dist/lib/simulator/cli.js'];

function files(dir) {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { withFileTypes: true })
    .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
    .flatMap((entry) => (entry.isDirectory() ? files(join(dir, entry.name)) : [join(dir, entry.name)]));
}

function inputsHash() {
  const hash = createHash('sha256');
  const all = [...INPUT_DIRS.flatMap((d) => files(join(root, d))), ...INPUT_FILES.map((f) => join(root, f))];
  for (const file of all) {
    hash.update(`${relative(root, file)}\0`);
    hash.update(existsSync(file) ? readFileSync(file) : '(none)');
    hash.update('\0');
  }
  return hash.digest('hex');
}

function run(command, args) {
  const result = spawnSync(command, args, { cwd: root, stdio: 'inherit' });
  if (result.status !== 0) process.exit(result.status ?? 1);
}

const force = process.argv.includes('--force');
const wanted = inputsHash();
const stamped = existsSync(STAMP) ? readFileSync(STAMP, 'utf8').trim() : '';
if (!force && stamped === wanted && OUTPUTS.every((f) => existsSync(join(root, f)))) {
  console.log(`dist/ is up to date: its sources are unchanged since it was built (${wanted.slice(0, 12)})`);
  process.exit(0);
}

rmSync(STAMP, { force: true });
run(process.execPath, [join(root, 'scripts', 'clean.mjs')]);
run(process.execPath, [require.resolve('typescript/bin/tsc'), '-p', 'tsconfig.json']);
run(process.execPath, [join(root, 'scripts', 'copy-assets.mjs')]);
run(process.execPath, [join(root, 'scripts', 'build-editor.mjs')]);
mkdirSync(dirname(STAMP), { recursive: true });
writeFileSync(STAMP, `${wanted}\n`);

#!/usr/bin/env node
// `npm run test:package`: the package as a user installs it.
//
//  1. `npm pack`; the tarball holds what a user needs and nothing of the
//     development tree (dist/, examples/, README.md, LICENSE, package.json).
//  2. For Node-RED 4.1 on Node.js 20 (Debian's /usr/bin/node, else `npx -p
//     node@20`; node-red@~4.1 installed in a scratch directory) and Node-RED 5
//     on Node.js 22 (the node and node-red dev dependencies): install the
//     tarball into a fresh user directory, start Node-RED, check the versions it
//     reports, and that every node type registers without a warning, that the
//     examples are listed and readable, and that the example flows deploy and
//     run against the package's own simulator (POST /flows with credentials,
//     POST /inject/:id, the simulator's request log); then the browser smoke
//     test in chromium (scripts/browser-smoke.mjs).
//  3. `node-red-dev validate`, the Flow Library's checker; its output goes to
//     test/e2e/node-red-dev-validate.txt. Checks that need catalogue.nodered.org
//     (unreachable here) are reported, not failed.
//
// Options: --skip-nr4, --skip-nr5, --skip-validate, --skip-browser, --keep (leave the scratch directory).
// Prints one line per check and a closing "N passed, N failed" line.
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { browserSmoke } from './browser-smoke.mjs';
import {
  adminApi,
  NODE_TYPES,
  PACKAGE_NAME,
  packTarball,
  prepareUserDir,
  problemLines,
  startNodeRed,
  waitFor,
} from './e2e-lib.mjs';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const WORK = join(ROOT, 'test/.tmp/pack-check');
const VALIDATE_OUT = join(ROOT, 'test/e2e/node-red-dev-validate.txt');
const NODE_RED_DEV = 'node-red-dev@0.1.6';
const require = createRequire(import.meta.url);
const RUNTIME_4 = 'Node-RED 4.1';
const RUNTIME_5 = 'Node-RED 5';
const userDirName = (label) => `userdir-${label.replace(/\W+/g, '-')}`;
const args = new Set(process.argv.slice(2));

// ------------------------------------------------------------------ reporting
const results = [];
const timings = [];
function check(name, ok, detail = '') {
  results.push({ name, ok });
  console.log(`${ok ? '  ok  ' : '  FAIL'} ${name}${detail ? ` — ${detail}` : ''}`);
  return ok;
}
function note(text) {
  console.log(`       ${text}`);
}
async function step(title, fn) {
  console.log(`\n== ${title}`);
  const started = Date.now();
  try {
    return await fn();
  } catch (error) {
    check(
      `${title}: completed`,
      false,
      error instanceof Error ? error.message.split('\n').slice(0, 12).join('\n') : String(error),
    );
    return undefined;
  } finally {
    timings.push({ title, ms: Date.now() - started });
  }
}

// ------------------------------------------------------------------ 1. tarball
const ALLOWED_TOP = [/^package\.json$/, /^README\.md$/, /^LICENSE$/, /^dist\//, /^examples\//];
const FORBIDDEN = [
  { re: /(^|\/)(test|tests|bench|scripts|\.ci|node_modules|coverage|\.demo|\.tmp)\//, why: 'development tree' },
  { re: /(?<!\.d)\.(ts|mts|cts)$/, why: 'TypeScript source' },
  { re: /\.(map|tsbuildinfo|tgz|log)$/, why: 'build by-product' },
  {
    re: /(^|\/)(tsconfig[^/]*\.json|biome\.json|vitest[^/]*|\.gitignore|\.npmrc|package-lock\.json)$/,
    why: 'tool config',
  },
];

function checkTarball(report, bytes) {
  const files = report.files.map((f) => f.path);
  const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8'));
  const outside = files.filter((f) => !ALLOWED_TOP.some((re) => re.test(f)));
  check('only dist/, examples/, README.md, LICENSE, package.json', outside.length === 0, outside.join(', '));
  const forbidden = files.flatMap((f) => FORBIDDEN.filter((x) => x.re.test(f)).map((x) => `${f} (${x.why})`));
  check('no development files', forbidden.length === 0, forbidden.slice(0, 20).join(', '));

  const missing = [];
  const need = (path) => {
    if (!files.includes(path)) missing.push(path);
  };
  need('README.md');
  need('LICENSE');
  need(pkg.main);
  need(pkg.types);
  for (const bin of Object.values(pkg.bin ?? {})) need(bin.replace(/^\.\//, ''));
  for (const [type, js] of Object.entries(pkg['node-red']?.nodes ?? {})) {
    need(js);
    need(js.replace(/\.js$/, '.html'));
    // Node-RED reads a node's locales from the folder beside its .js
    const dir = js.slice(0, js.lastIndexOf('/'));
    need(`${dir}/locales/en-US/${type}.json`);
    need(`${dir}/locales/en-US/${type}.html`);
  }
  for (const js of Object.values(pkg['node-red']?.plugins ?? {})) {
    need(js);
    need(js.replace(/\.js$/, '.html'));
  }
  need('dist/lib/simulator/fixtures/demo.yaml');
  check(
    'every node has its .js, .html and en-US locale, every plugin its .js and .html; main, types, bin, demo fixture',
    missing.length === 0,
    missing.join(', '),
  );
  const declared = Object.keys(pkg['node-red']?.nodes ?? {}).sort();
  check(
    `package.json declares the ${NODE_TYPES.length} node types`,
    JSON.stringify(declared) === JSON.stringify([...NODE_TYPES].sort()),
    declared.join(', '),
  );

  // icons named in the editor definitions ship in the icons folder beside the node's .js
  const iconProblems = [];
  for (const js of Object.values(pkg['node-red']?.nodes ?? {})) {
    const htmlPath = join(ROOT, js.replace(/\.js$/, '.html'));
    if (!existsSync(htmlPath)) continue;
    for (const m of readFileSync(htmlPath, 'utf8').matchAll(/icon:\s*['"]([^'"]+)['"]/g)) {
      const icon = m[1];
      if (icon.includes('/') || icon.startsWith('font-awesome')) continue; // core or font-awesome icons
      if (!files.includes(`${js.slice(0, js.lastIndexOf('/'))}/icons/${icon}`)) iconProblems.push(`${icon} (${js})`);
    }
  }
  check(
    'icons named by the nodes are in the icons folder beside each node',
    iconProblems.length === 0,
    iconProblems.join(', '),
  );
  // tsc never deletes: output of a source that is gone would ship
  const stale = files.filter(
    (f) => /^dist\/.+\.js$/.test(f) && !existsSync(join(ROOT, f.replace(/^dist\//, '').replace(/\.js$/, '.ts'))),
  );
  check('no stale build output (every dist/**/*.js has its .ts source)', stale.length === 0, stale.join(', '));
  const examples = files.filter((f) => /^examples\/.+\.json$/.test(f));
  check('examples/ holds flows', examples.length > 0, examples.map((f) => f.replace('examples/', '')).join(', '));
  const cli = join(ROOT, pkg.bin?.['media-spaces-sim'] ?? 'dist/lib/simulator/cli.js');
  check(
    'the simulator bin starts with a node shebang',
    existsSync(cli) && readFileSync(cli, 'utf8').startsWith('#!/usr/bin/env node'),
  );

  const byDir = {};
  for (const f of report.files) {
    const dir = f.path.split('/').slice(0, 2).join('/');
    byDir[dir] = (byDir[dir] ?? 0) + f.size;
  }
  note(
    `tarball ${report.filename}: ${bytes} bytes packed (${(bytes / 1024).toFixed(1)} KiB), ${report.unpackedSize} bytes unpacked, ${files.length} files`,
  );
  for (const [dir, size] of Object.entries(byDir).sort((a, b) => b[1] - a[1]))
    note(`  ${String(size).padStart(8)}  ${dir}`);
  return examples;
}

// ------------------------------------------------------------------ 2. runtime
/** The "Media Spaces" sidebar plugin: listed, enabled, its editor script served, its state endpoint answering. */
async function checkSidebarPlugin(label, url) {
  const plugins = await adminApi(url, 'GET', '/plugins');
  const sets = (Array.isArray(plugins.json) ? plugins.json : []).filter((s) => s.module === PACKAGE_NAME);
  const sidebar = sets.find((s) => (s.plugins ?? []).some((p) => p.id === 'media-spaces-sidebar'));
  check(
    `${label}: GET /plugins lists the media-spaces-sidebar plugin, enabled, without error`,
    Boolean(sidebar) && sidebar.enabled !== false && !sidebar.err,
    sidebar ? (sidebar.err ?? '') : `HTTP ${plugins.status}: ${JSON.stringify(sets)}`,
  );
  const html = await fetch(`${url}/plugins`, { headers: { Accept: 'text/html' } }).then((r) => r.text());
  check(
    `${label}: the editor receives the plugin's tab script`,
    html.includes("registerPlugin('media-spaces-sidebar'") || html.includes('registerPlugin("media-spaces-sidebar"'),
  );
  const state = await adminApi(url, 'GET', '/media-spaces/activity');
  check(
    `${label}: GET /media-spaces/activity answers the sidebar's state`,
    state.status === 200 &&
      state.json?.format === 2 &&
      Array.isArray(state.json?.schedules) &&
      Array.isArray(state.json?.jobs),
    `HTTP ${state.status}`,
  );
}

/** A Node.js binary of the given major version: one on this machine, else the `node` package from the registry. */
function nodeOfMajor(major, candidates) {
  for (const bin of candidates) {
    if (!bin || !existsSync(bin)) continue;
    const r = spawnSync(bin, ['-p', 'process.versions.node'], { encoding: 'utf8' });
    if (r.status === 0 && r.stdout.trim().split('.')[0] === String(major)) return bin;
  }
  const out = execFileSync('npx', ['-y', '-p', `node@${major}`, 'node', '-p', 'process.execPath'], {
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'ignore'],
  });
  return out.trim().split('\n').at(-1);
}

/** node-red at `spec` in a scratch directory of its own (kept between runs). */
function installNodeRed(name, spec) {
  const dir = join(WORK, name);
  const redJs = join(dir, 'node_modules/node-red/red.js');
  const versionOf = () => JSON.parse(readFileSync(join(dir, 'node_modules/node-red/package.json'), 'utf8')).version;
  if (!existsSync(redJs) || !satisfies(versionOf(), spec)) {
    rmSync(dir, { recursive: true, force: true });
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'package.json'), JSON.stringify({ name, private: true }));
    const r = spawnSync(
      'npm',
      ['install', `node-red@${spec}`, '--no-audit', '--no-fund', '--loglevel=error', '--prefer-offline'],
      { cwd: dir, encoding: 'utf8' },
    );
    if (r.status !== 0) throw new Error(`npm install node-red@${spec} failed:\n${r.stderr}`);
  }
  return { redJs, version: versionOf() };
}

/** `~4.1` or `5`: the version starts with those numbers. */
function satisfies(version, spec) {
  return `${version}.`.startsWith(`${spec.replace(/^[~^]/, '')}.`);
}

/** One example flow, deployable on its own: on a tab, its config nodes pointed at the simulator with credentials. */
function deployableExample(name, doc, info) {
  const { pointFlowAtSimulator } = require('./demo-userdir.cjs');
  const { flow, credentials } = pointFlowAtSimulator(structuredClone(doc), info);
  let tab = flow.find((n) => n.type === 'tab');
  if (!tab) {
    tab = { id: 'packcheck0000tab', type: 'tab', label: name };
    flow.unshift(tab);
  }
  for (const n of flow) {
    if (n.type !== 'tab' && n.type !== 'media-spaces-config' && !n.z) n.z = tab.id;
    if (n.type === 'media-spaces-config' && credentials[n.id]) n.credentials = credentials[n.id];
  }
  return flow;
}

/** What each inject-driven example is expected to call on the simulator. */
const EXAMPLE_ROUTES = {
  'media-spaces-list-workflows': 'list',
  'media-spaces-submit-job': 'submit',
  'media-spaces-create-channel': 'create_channel',
  'media-spaces-delete-event': 'delete_event',
  'media-spaces-wait-workflow': 'list',
  'media-spaces-watch-workflows': 'list',
};

/** The request an inject's message makes its node send: create channel stops a recording for `topic: "stop"`. */
function exampleRoute(inject, target) {
  const route = target ? EXAMPLE_ROUTES[target.type] : undefined;
  const sendsTopic = (inject.props ?? []).some((p) => p.p === 'topic');
  if (route === 'create_channel' && sendsTopic && inject.topic === 'stop') return 'stop_channel';
  return route;
}

async function checkRuntime(label, { nodeBin, redJs, tarball, expect }) {
  const userDir = join(WORK, userDirName(label));
  let t = Date.now();
  prepareUserDir(userDir, { tarball });
  note(`tarball installed into ${userDir} in ${Date.now() - t} ms`);
  // the simulator shipped in the installed package: what a user runs
  const { startSimulator } = require(join(userDir, 'node_modules', PACKAGE_NAME, 'dist/lib/simulator/index.js'));
  const sim = await startSimulator({ port: 0, host: '127.0.0.1' });
  const info = sim.info();
  let nodeRed;
  try {
    t = Date.now();
    nodeRed = await startNodeRed({ nodeBin, redJs, userDir });
    note(`Node-RED up at ${nodeRed.url} in ${Date.now() - t} ms`);
    const versionLine = nodeRed.log().match(/Node-RED version: (\S+)/)?.[1];
    const nodeLine = nodeRed.log().match(/Node\.js\s+version: (\S+)/)?.[1];
    note(`Node-RED ${versionLine}, Node.js ${nodeLine}`);
    check(
      `${label}: runs Node-RED ${expect.nodeRed}.x on Node.js ${expect.node}`,
      satisfies(versionLine?.replace(/^v/, '') ?? '', expect.nodeRed) &&
        satisfies(nodeLine?.replace(/^v/, '') ?? '', String(expect.node)),
      `Node-RED ${versionLine}, Node.js ${nodeLine}`,
    );

    // every type registered, no load error
    const nodes = await adminApi(nodeRed.url, 'GET', '/nodes');
    const sets = (Array.isArray(nodes.json) ? nodes.json : []).filter((s) => s.module === PACKAGE_NAME);
    const types = sets.flatMap((s) => s.types ?? []);
    const missingTypes = NODE_TYPES.filter((x) => !types.includes(x));
    check(
      `${label}: GET /nodes lists all ${NODE_TYPES.length} types of ${PACKAGE_NAME}`,
      missingTypes.length === 0,
      missingTypes.length ? `missing ${missingTypes.join(', ')}` : `${sets[0]?.version ?? ''}`,
    );
    const broken = sets.filter((s) => s.err || s.enabled === false);
    check(
      `${label}: every node set enabled without error`,
      sets.length === NODE_TYPES.length && broken.length === 0,
      broken.map((s) => `${s.id}: ${s.err}`).join('; '),
    );
    await checkSidebarPlugin(label, nodeRed.url);
    const ours = problemLines(nodeRed.log()).filter((l) => /media-spaces/i.test(l));
    check(`${label}: no [warn]/[error] about the package while loading`, ours.length === 0, ours.join(' | '));
    const others = problemLines(nodeRed.log()).filter(
      (l) => !/media-spaces/i.test(l) && !/^\S+ \S+ \S+ - \[warn\] -+$/.test(l),
    );
    for (const l of others) note(`(not ours) ${l.trim()}`);

    // examples listed by the library API the editor's Import > Examples uses
    const listed = await adminApi(nodeRed.url, 'GET', `/library/examples/flows/${PACKAGE_NAME}`);
    const entries = Array.isArray(listed.json) ? listed.json.map((e) => (typeof e === 'string' ? `${e}/` : e.fn)) : [];
    check(
      `${label}: GET /library/examples/flows/${PACKAGE_NAME} lists the examples`,
      listed.status === 200 && entries.length > 0,
      entries.join(', ') || `HTTP ${listed.status}`,
    );
    const known = new Set((Array.isArray(nodes.json) ? nodes.json : []).flatMap((s) => s.types ?? []));
    known.add('tab');
    known.add('group');
    const docs = {};
    for (const fn of entries.filter((e) => !e.endsWith('/'))) {
      const got = await adminApi(nodeRed.url, 'GET', `/library/examples/flows/${PACKAGE_NAME}/${fn}`);
      const flow = Array.isArray(got.json) ? got.json : null;
      const unknown = flow
        ? [...new Set(flow.map((n) => n.type).filter((x) => !known.has(x) && !x.startsWith('subflow:')))]
        : [];
      const leaked = flow
        ? flow.filter((n) => n.credentials && Object.keys(n.credentials).length > 0).map((n) => n.id)
        : [];
      check(
        `${label}: example ${fn} is a flow of known node types without stored credentials`,
        Boolean(flow) && unknown.length === 0 && leaked.length === 0,
        [unknown.join(', '), leaked.length ? `credentials in ${leaked.join(', ')}` : ''].filter(Boolean).join('; '),
      );
      if (flow) docs[fn] = flow;
    }

    // each example on its own, as a user imports it: deployed with credentials, pointed at the simulator
    const log = async () => (await (await fetch(`${info.admin_url}/requests`)).json()).requests;
    const starts = () => nodeRed.log().match(/Started flows/g)?.length ?? 0;
    for (const [name, doc] of Object.entries(docs)) {
      const flow = deployableExample(name, doc, info);
      // a window caught up in its last seconds ends before its recording has an output, and the schedule
      // rightly warns that the follow-up's media is empty: deploy a scheduled example early in its minute
      if (flow.some((n) => n.type === 'media-spaces-schedule')) await earlyInTheMinute();
      const startsBefore = starts();
      const logBefore = nodeRed.log().length;
      const deployed = await adminApi(nodeRed.url, 'POST', '/flows', flow, { 'Node-RED-Deployment-Type': 'full' });
      if (
        !check(
          `${label}: example ${name} deploys (POST /flows)`,
          deployed.status === 200 || deployed.status === 204,
          `HTTP ${deployed.status} ${deployed.text.slice(0, 200)}`,
        )
      )
        continue;
      await waitFor(() => starts() > startsBefore, { what: 'flows restarted', timeoutMs: 20_000 });

      // press each inject that feeds one of the operation nodes; the simulator's request log says what reached it
      for (const inject of flow.filter((n) => n.type === 'inject')) {
        const target = flow.find((n) => (inject.wires?.[0] ?? []).includes(n.id));
        const route = exampleRoute(inject, target);
        if (!route) continue;
        const before = (await log()).length;
        const fired = await adminApi(nodeRed.url, 'POST', `/inject/${inject.id}`);
        const hit = await waitFor(async () => (await log()).slice(before).find((r) => r.route === route), {
          what: `a ${route} request`,
          timeoutMs: 15_000,
        }).catch(() => undefined);
        const authorised = hit?.authorization_present && hit.status !== 401 && hit.status !== 403;
        const good = route === 'list' ? hit?.status === 200 : hit?.status != null && hit.status < 500;
        check(
          `${label}: example ${name} runs (POST /inject/${inject.id} -> ${target.type} -> simulator ${route})`,
          fired.status === 200 && Boolean(authorised) && Boolean(good),
          hit
            ? `${hit.method} ${hit.path} -> ${hit.status}`
            : `inject HTTP ${fired.status}, no ${route} request reached the simulator`,
        );
      }
      await new Promise((r) => setTimeout(r, 300));
      const problems = problemLines(nodeRed.log().slice(logBefore)).filter(
        (l) => /media-spaces/i.test(l) && /\[warn\]/.test(l),
      );
      check(
        `${label}: example ${name}: no [warn] from the package's nodes`,
        problems.length === 0,
        problems.join(' | '),
      );
    }

    if (!args.has('--skip-browser')) {
      const example = Object.keys(docs).find((fn) => /list-workflows/.test(fn));
      if (check(`${label}: the list-workflows example is there for the browser smoke test`, Boolean(example))) {
        await browserSmoke(label, nodeRed.url, deployableExample(example, docs[example], info), check);
      }
    }
  } finally {
    await nodeRed?.stop();
    await sim.close();
  }
}

// ------------------------------------------------------------------ 3. node-red-dev validate
function validate(unpackedDir) {
  const scorecard = join(WORK, 'node-red-dev-scorecard.json');
  rmSync(scorecard, { force: true });
  const started = Date.now();
  // one stream, so that the checker's warnings (stderr) stay beside the checks they belong to
  const r = spawnSync('sh', ['-c', `npx -y ${NODE_RED_DEV} validate -p "${unpackedDir}" -o "${scorecard}" 2>&1`], {
    cwd: WORK,
    encoding: 'utf8',
    env: { ...process.env, NODE_OPTIONS: `--require ${join(ROOT, 'scripts/e2e-nrdev-offline.cjs')}`, FORCE_COLOR: '0' },
    timeout: 300_000,
  });
  const output = `${r.stdout ?? ''}${r.stderr ?? ''}`
    .split('\n')
    .filter((l) => !/^npm warn Unknown user config/.test(l))
    .join('\n');
  const card = existsSync(scorecard) ? JSON.parse(readFileSync(scorecard, 'utf8')) : null;
  const header = [
    `# npx ${NODE_RED_DEV} validate -p <the unpacked tarball>   (written by scripts/pack-check.mjs)`,
    `# exit status ${r.status}`,
    ...(/\[offline\]/.test(output)
      ? ['# [offline]: catalogue.nodered.org was unreachable; P08 and N01 ran against an empty catalogue.']
      : []),
    '',
  ].join('\n');
  writeFileSync(VALIDATE_OUT, `${header}${output.trim()}\n\n# scorecard\n${JSON.stringify(card, null, 2)}\n`);
  note(`node-red-dev took ${Date.now() - started} ms; output in ${VALIDATE_OUT.replace(`${ROOT}/`, '')}`);
  console.log(output.trim().replace(/^/gm, '       '));
  if (!card) return check('node-red-dev validate produced a scorecard', false, `exit ${r.status}`);
  // MUST-level checks of the Flow Library fail the run; SHOULD-level ones and network-only ones are reported
  const HARD = {
    P01: 'licence',
    P04: 'scoped name',
    P05: 'node-red keyword',
    P06: 'Node-RED version',
    P07: 'Node.js engine',
    N02: 'examples for every node',
    D02: 'no incompatible packages',
  };
  for (const [code, what] of Object.entries(HARD)) {
    check(`node-red-dev ${code} (${what})`, card[code]?.test === true, JSON.stringify(card[code] ?? 'not run'));
  }
  const offline = /\[offline\]/.test(output);
  if (!offline)
    check('node-red-dev N01 (node names unique in the catalogue)', card.N01?.test === true, JSON.stringify(card.N01));
  for (const [code, value] of Object.entries(card)) {
    if (code === 'package' || code in HARD || (code === 'N01' && !offline)) continue;
    if (value?.test === false) note(`node-red-dev ${code} not met (advice, not failed): ${JSON.stringify(value)}`);
  }
  return true;
}

// ------------------------------------------------------------------ main
const overall = Date.now();
rmSync(join(WORK, 'pack'), { recursive: true, force: true });
mkdirSync(WORK, { recursive: true });
if (!existsSync(join(ROOT, 'dist/nodes/config/media-spaces-config.js'))) {
  console.error('dist/ is missing: run `npm run build` first (npm run test:package does)');
  process.exit(1);
}

const packed = await step('npm pack', async () => {
  const p = packTarball(ROOT, join(WORK, 'pack'));
  const examples = checkTarball(p.report, p.bytes);
  const unpacked = join(WORK, 'unpacked');
  rmSync(unpacked, { recursive: true, force: true });
  mkdirSync(unpacked, { recursive: true });
  execFileSync('tar', ['xzf', p.tarball, '-C', unpacked]);
  return { ...p, examples, unpackedDir: join(unpacked, 'package') };
});

if (packed) {
  if (!args.has('--skip-nr4')) {
    await step('Node-RED 4.1 on Node.js 20', async () => {
      const nodeBin = nodeOfMajor(20, [process.env.NODE20_BIN, '/usr/bin/node']);
      const { redJs, version } = installNodeRed('nr4', '~4.1');
      note(`node-red@${version} (${redJs}), ${nodeBin}`);
      return checkRuntime(RUNTIME_4, {
        nodeBin,
        redJs,
        tarball: packed.tarball,
        expect: { nodeRed: '4.1', node: 20 },
      });
    });
  }
  if (!args.has('--skip-nr5')) {
    await step('Node-RED 5 on Node.js 22', async () => {
      // `npm run` runs this script on the node dev dependency (Node 22); run directly on another Node, it fetches one
      const nodeBin = nodeOfMajor(22, [process.execPath]);
      const redJs = require.resolve('node-red/red.js', { paths: [ROOT] });
      const version = JSON.parse(readFileSync(join(dirname(redJs), 'package.json'), 'utf8')).version;
      note(`node-red@${version} (the dev dependency), ${nodeBin}`);
      return checkRuntime(RUNTIME_5, { nodeBin, redJs, tarball: packed.tarball, expect: { nodeRed: '5', node: 22 } });
    });
  }
  if (!args.has('--skip-validate')) {
    await step(`npx ${NODE_RED_DEV} validate`, () => validate(packed.unpackedDir));
  }
}

if (!args.has('--keep')) {
  for (const dir of ['unpacked', userDirName(RUNTIME_4), userDirName(RUNTIME_5)])
    rmSync(join(WORK, dir), { recursive: true, force: true });
}
console.log('\n== timings');
for (const { title, ms } of timings) console.log(`  ${String(ms).padStart(7)} ms  ${title}`);
console.log(`  ${String(Date.now() - overall).padStart(7)} ms  total`);
const failed = results.filter((r) => !r.ok).length;
console.log(`\n${results.length - failed} passed, ${failed} failed`);
process.exit(failed === 0 ? 0 : 1);

/** Waits until the wall clock is between 1 and 20 seconds past a minute. */
async function earlyInTheMinute() {
  const second = new Date().getSeconds();
  if (second >= 1 && second <= 20) return;
  const wait = ((61 - second) % 60) * 1000 - new Date().getMilliseconds();
  await new Promise((r) => setTimeout(r, Math.max(0, wait)));
}

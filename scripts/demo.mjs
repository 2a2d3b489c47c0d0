// `npm start`: the reference simulator with the demo fixture, and a real
// Node-RED with these nodes installed and the recording-automation flow
// deployed against it, credentials preset. Ctrl-C stops both, and so does a
// SIGINT or SIGTERM to the npm process alone (as Docker, supervisors and
// `kill <pid>` send it): npm passes it on to its script, which `exec` in the
// start script makes this process rather than a shell that would keep it.
// Whatever ends first (this process, its parent, Node-RED) ends the rest.
import { spawn } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const require = createRequire(import.meta.url);
const { startSimulator } = require(join(root, 'dist/lib/simulator/index.js'));
const { prepareDemoUserDir } = require(join(root, 'scripts/demo-userdir.cjs'));
const { onParentGone } = require(join(root, 'scripts/parent-watch.cjs'));

const simPort = Number(process.env.SIM_PORT ?? 8787);
const editorPort = Number(process.env.PORT ?? 1880);
const host = '127.0.0.1';

const sim = await startSimulator({ port: simPort, host });
const info = sim.info();
// DEMO_DIR: where Node-RED keeps the demo's flow and context (default .demo), so two demos can run side by side
const userDir = process.env.DEMO_DIR ?? join(root, '.demo');
prepareDemoUserDir({ root, userDir, info, fs: { mkdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } });

const nodeRed = spawn(
  process.execPath,
  [
    '--require',
    join(root, 'scripts/stop-with-parent.cjs'),
    require.resolve('node-red/red.js'),
    '--userDir',
    userDir,
    '--port',
    String(editorPort),
    'flows.json',
  ],
  { cwd: root, stdio: ['ignore', 'pipe', 'inherit'], env: { ...process.env, NODE_RED_HOST: host } },
);

let announced = false;
nodeRed.stdout.on('data', (chunk) => {
  const text = chunk.toString();
  process.stdout.write(text);
  if (!announced && /Started flows/.test(text)) {
    announced = true;
    const space = info.spaces[0];
    console.log(`
  Media Spaces demo is running.
    Node-RED editor:  http://${host}:${editorPort}/
    Simulator:        ${info.workflow_url}  (workflow area: ${info.workflow_url}/workflow/v1)
    Demo space:       ${space.space_id}
    Admin API key:    ${space.api_keys.admin}    Access token: ${space.access_token}
  The demo schedule starts a recording window every minute; watch the Debug sidebar, and the
  Media Spaces tab (the TV icon in the right sidebar's tab bar; in Node-RED 4, when the sidebar is
  narrow, its ▾ menu > Media Spaces) for each window's stage. To build your own flow beside it,
  press the "pause the demo" inject ("resume the demo" starts it again).
  Press Ctrl-C to stop.
`);
  }
});

let stopping = false;
async function stop(code = 0) {
  if (stopping) return;
  stopping = true;
  const running = nodeRed.exitCode === null && nodeRed.signalCode === null;
  if (running) nodeRed.kill('SIGINT');
  const exited = running ? new Promise((resolve) => nodeRed.once('exit', resolve)) : Promise.resolve();
  const timeout = new Promise((resolve) => setTimeout(resolve, 5000).unref());
  await Promise.race([exited, timeout]);
  if (nodeRed.exitCode === null && nodeRed.signalCode === null) nodeRed.kill('SIGKILL');
  await sim.close();
  process.exit(code);
}
for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) process.on(signal, () => stop(0));
// npm (or whatever started this) killed without passing the signal on
onParentGone(() => stop(0));
nodeRed.on('exit', (code, signal) => {
  if (!stopping) {
    console.error(`Node-RED exited (${signal ?? `code ${code}`}); stopping the simulator.`);
    stop(code ?? 1);
  }
});

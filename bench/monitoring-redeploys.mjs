// The heap of a Node-RED runtime over 200 full redeploys of the demo's wiring
// (examples/recording-automation.json against the simulator, its window every
// 4 s for 3 s, plus an as-run node), with the metrics scraped after each
// redeploy and the as-run day read every 20: the heap after a full GC every
// 20 redeploys, its growth from the 20th to the 200th, the slots counted, the
// slots a redeploy left open, and whether anything was "already registered".
// Prints figures, asserts nothing. GAP_MS sets the pause between redeploys
// (default 100 ms, 3 s after every tenth so that slots run their course).
//   node --expose-gc bench/monitoring-redeploys.mjs [--redeploys 200] [--json]
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import { createRequire } from 'node:module';
import path from 'node:path';
import { embeddedSettings, fmt, installedUserDir, ROOT, sleep } from './lib/common.mjs';

const require = createRequire(import.meta.url);
const argv = process.argv.slice(2);
const at = argv.indexOf('--redeploys');
const REDEPLOYS = at >= 0 ? Number(argv[at + 1]) : 200;
const JSON_OUT = argv.includes('--json');
const EVERY = 20;

if (typeof global.gc !== 'function') {
  console.error('run with node --expose-gc');
  process.exit(2);
}

function heap() {
  global.gc();
  global.gc();
  return process.memoryUsage().heapUsed;
}

function demoFlow(info) {
  const { pointFlowAtSimulator } = require(path.join(ROOT, 'scripts/demo-userdir.cjs'));
  const example = JSON.parse(readFileSync(path.join(ROOT, 'examples/recording-automation.json'), 'utf8'));
  const { flow, credentials } = pointFlowAtSimulator(example, info);
  for (const node of flow) {
    if (node.type === 'media-spaces-schedule') {
      node.yaml = node.yaml
        .replace('cron: "* * * * *"', 'cron: "*/4 * * * * *"')
        .replace('duration: 40s', 'duration: 3s');
      node.catchUp = false;
    }
    if (node.type === 'debug') node.active = false;
  }
  const tab = flow.find((n) => n.type === 'tab').id;
  flow.push(
    { id: 'benchasrun000001', type: 'media-spaces-as-run', z: tab, x: 700, y: 60, wires: [['benchasrunsink01']] },
    { id: 'benchasrunsink01', type: 'function', z: tab, func: 'return null;', outputs: 1, x: 900, y: 60, wires: [[]] },
  );
  return { flow, credentials };
}

async function main() {
  const { startSimulator } = require(path.join(ROOT, 'dist/lib/simulator/index.js'));
  const sim = await startSimulator({ host: '127.0.0.1', port: 0 });
  const userDir = installedUserDir('ms-bench-redeploys-');
  const { flow, credentials } = demoFlow(sim.info());
  writeFileSync(path.join(userDir, 'flows.json'), JSON.stringify(flow));
  writeFileSync(path.join(userDir, 'flows_cred.json'), JSON.stringify(credentials));
  let registeredTwice = 0;
  const settings = embeddedSettings(userDir);
  settings.logging.bench = {
    level: 'warn',
    handler: () => (m) => {
      if (/already (been )?registered/i.test(String(m.msg))) registeredTwice++;
    },
  };
  const RED = require('node-red');
  const app = require('express')();
  const server = http.createServer(app);
  RED.init(server, settings);
  app.use('/admin', RED.httpAdmin);
  await RED.start();
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const base = `http://127.0.0.1:${server.address().port}/admin`;
  const day = new Date().toISOString().slice(0, 10);
  const samples = [];
  let scrape = '';
  let records = [];
  for (let i = 1; i <= REDEPLOYS; i++) {
    const res = await fetch(`${base}/flows`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'node-red-deployment-type': 'full' },
      body: JSON.stringify(flow),
    });
    if (res.status !== 204) throw new Error(`redeploy ${i}: HTTP ${res.status} ${await res.text()}`);
    scrape = await (await fetch(`${base}/media-spaces/metrics`)).text();
    if (i % EVERY === 0) {
      records = JSON.parse(await (await fetch(`${base}/media-spaces/as-run?day=${day}&zone=UTC`)).text()).records;
      samples.push({ redeploys: i, heap: heap() });
    }
    // slots start, record and end between some of the redeploys
    await sleep(Number(process.env.GAP_MS ?? (i % 10 === 0 ? 3000 : 100)));
  }
  // after the redeploys: the slots whose end passed well before now and that are still open were left so by one
  await sleep(10_000);
  const settled = JSON.parse(await (await fetch(`${base}/media-spaces/as-run?day=${day}&zone=UTC`)).text()).records;
  const leftOpen = settled.filter((r) => r.outcome === 'open' && Date.parse(r.scheduled.end) < Date.now() - 8000);
  const count = (outcome) =>
    [...scrape.matchAll(new RegExp(`media_spaces_slots_total\\{[^}]*outcome="${outcome}"\\} (\\d+)`, 'g'))].reduce(
      (sum, m) => sum + Number(m[1]),
      0,
    );
  const first = samples[0];
  const last = samples.at(-1);
  const result = {
    redeploys: REDEPLOYS,
    heapMB: samples.map((s) => ({ redeploys: s.redeploys, mb: Math.round((s.heap / 2 ** 20) * 100) / 100 })),
    growthBytes: last.heap - first.heap,
    growthPerRedeployBytes: Math.round((last.heap - first.heap) / (last.redeploys - first.redeploys)),
    slots: { recorded: count('recorded'), missed: count('missed'), partial: count('partial') },
    asRunRecords: records.length,
    asRunOutcomes: Object.fromEntries(
      [...new Set(records.map((r) => r.outcome))].map((o) => [o, records.filter((r) => r.outcome === o).length]),
    ),
    leftOpen: leftOpen.length,
    leftOpenPhases: Object.fromEntries(
      [...new Set(leftOpen.map((r) => r.phase))].map((p) => [p, leftOpen.filter((r) => r.phase === p).length]),
    ),
    registeredTwice,
  };
  await RED.stop();
  server.close();
  await sim.close();
  rmSync(userDir, { recursive: true, force: true });
  if (JSON_OUT) {
    console.log(JSON.stringify(result));
    return;
  }
  console.log(`heap after a full GC, every ${EVERY} redeploys (MB):`);
  console.log(`  ${result.heapMB.map((s) => `${s.redeploys}: ${fmt(s.mb)}`).join('  ')}`);
  console.log(
    `growth from redeploy ${first.redeploys} to ${last.redeploys}: ${fmt(result.growthBytes / 1024)} KB (${fmt(result.growthPerRedeployBytes)} B per redeploy)`,
  );
  console.log(
    `slots ended more than 8 s before the end of the run and still open (their end cut by a redeploy): ${leftOpen.length} of ${settled.length}, last phases ${JSON.stringify(result.leftOpenPhases)}`,
  );
  console.log(
    `slots counted: ${result.slots.recorded} recorded, ${result.slots.partial} partial, ${result.slots.missed} missed; as-run records of the day: ${JSON.stringify(result.asRunOutcomes)}; "already registered": ${registeredTwice}`,
  );
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});

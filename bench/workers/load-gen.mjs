// Load generator for the simulator-capacity figure: `connections` loops of
// raw undici submissions on keep-alive connections for `durationMs`.
// Two of these run at once, each in its own process.
import { randomUUID } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { Agent, request } from 'undici';
import { serveRpc } from '../lib/common.mjs';

const BODY = JSON.stringify({
  job_name: 'capacity',
  usage: { input: { variables: [{ name: 'Priority', typecode: 'Byte', value: '5' }] } },
});

async function run({ info, ids, durationMs, connections, startAt }) {
  const agent = new Agent({ keepAliveTimeout: 10_000, connections, pipelining: 1 });
  const url = `${info.workflow_url}/workflow/v1/${ids.benchSpace}/workflows/${ids.submitWorkflow}/jobs`;
  // both generators start at the same moment
  await new Promise((r) => setTimeout(r, Math.max(0, startAt - Date.now())));
  const end = performance.now() + durationMs;
  let ok = 0;
  let failed = 0;
  const loop = async () => {
    while (performance.now() < end) {
      try {
        const res = await request(url, {
          method: 'POST',
          dispatcher: agent,
          headers: {
            authorization: `Bearer ${ids.keys.admin}`,
            'idempotency-key': randomUUID(),
            'content-type': 'application/json',
          },
          body: BODY,
        });
        await res.body.text();
        if (res.statusCode === 200) ok++;
        else failed++;
      } catch {
        failed++;
      }
    }
  };
  const t0 = performance.now();
  await Promise.all(Array.from({ length: connections }, loop));
  const elapsedMs = performance.now() - t0;
  await agent.close();
  return { ok, failed, elapsedMs };
}

serveRpc({ run });

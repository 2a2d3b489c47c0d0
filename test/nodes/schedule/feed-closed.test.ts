import { createRequire } from 'node:module';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Simulator, startSimulator } from '../../../lib/simulator';
import { helper, waitFor } from '../../support/node-red-runtime';
import { loadScheduleChain } from '../../support/schedule-chain';
import { type Stub, startStub } from '../../support/stub-server';

/**
 * A schedule closed (a redeploy, a removal) while its calendar is being fetched, in a real runtime: the fetch
 * is cut off at once rather than left to run to its 60 s limit, holding a connection and a reader's turn the
 * next deploy's schedule waits for.
 */

const require = createRequire(import.meta.url);
let sim: Simulator;
let stub: Stub;
const opened: Array<{ at: number; closedAt?: number }> = [];

beforeAll(async () => {
  helper.init(require.resolve('node-red'));
  sim = await startSimulator();
  // a calendar server that takes the request and never answers
  stub = await startStub((_req, res) => {
    const entry: { at: number; closedAt?: number } = { at: Date.now() };
    opened.push(entry);
    res.once('close', () => {
      entry.closedAt = Date.now();
    });
  });
});
afterAll(async () => {
  await helper.unload();
  await stub.close();
  await sim.close();
});

describe('a schedule closed while its calendar is fetched', () => {
  it('cuts the fetch off as it closes', { timeout: 30_000 }, async () => {
    await loadScheduleChain(sim, {
      yaml: `windows:
  - id: desk
    ical: ${stub.url}/desk.ics
    timezone: UTC
`,
      scheduleId: `closed-${process.pid}-${Date.now()}`,
    });
    await waitFor(() => opened.length === 1, 10_000);
    await new Promise((r) => setTimeout(r, 300));
    expect(opened[0].closedAt).toBeUndefined();
    const closing = Date.now();
    await helper.unload();
    await waitFor(() => opened[0].closedAt !== undefined, 5_000);
    expect((opened[0].closedAt as number) - closing).toBeLessThan(2_000);
    expect(opened).toHaveLength(1);
  });
});

import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Simulator, startSimulator } from '../../lib/simulator';
import {
  freePort,
  type NodeRedProcess,
  prepareUserDir,
  ROOT,
  sleep,
  startNodeRed,
  waitFor,
} from './support-restart/node-red';
import { DURATION_MS, PERIOD_MS, recordingFlow, windowPlans } from './support-restart/recording-flow';
import { journalChannel, slotFigures, slotKeyOf } from './support-restart/slot-facts';

/**
 * Node-RED's default memory context store forgets everything on a restart; the schedule's journal does not.
 * One window (6 s every 10 s) in a real Node-RED process whose settings.js keeps the memory store, killed with
 * SIGKILL while a slot's channel records and started again on the same user directory: the recording is
 * stopped at the end and followed up once. Then the same with the journal turned off in settings.js
 * (`mediaSpaces: { journal: false }`): nothing is written to the user directory.
 */

const WINDOW = 'w0';
const MEMORY = `{ default: { module: 'memory' } }`;

describe('restart with the memory context store: the journal keeps the slot', () => {
  const base = join(ROOT, 'test', '.tmp', 'reliability-restart');
  let sim: Simulator;
  let space: string;
  const processes: NodeRedProcess[] = [];

  beforeAll(async () => {
    sim = await startSimulator({ port: 0, host: '127.0.0.1' });
    space = sim.info().spaces[0].space_id;
    mkdirSync(base, { recursive: true });
  });
  afterAll(async () => {
    for (const p of processes) await p.kill();
    await sim?.close();
  });

  const figures = (start: number) => slotFigures(sim, space, WINDOW, start);

  it('SIGKILL mid-window while recording, restarted before the end: stopped once, followed up once', async () => {
    const userDir = join(base, `userdir-memory-${process.pid}`);
    const port = await freePort();
    const { flows, credentials } = recordingFlow(sim.info(), windowPlans(1));
    prepareUserDir({ dir: userDir, flows, credentials, contextStorage: MEMORY });
    let red = await startNodeRed({ userDir, port });
    processes.push(red);
    const start = Math.ceil(Math.max(Date.now() + 1500, red.startedAt + 2500) / PERIOD_MS) * PERIOD_MS;
    const channelId = await waitFor(
      () => journalChannel(userDir, slotKeyOf(WINDOW, start), 'other'),
      'the channel in the journal',
      { timeoutMs: 15_000 },
    );
    await waitFor(async () => (await figures(start)).channel?.state === 'RECORDING', 'the channel recording', {
      timeoutMs: 15_000,
    });
    await red.kill();
    const atKill = await figures(start);
    expect(atKill.stops.total).toBe(0);
    red = await startNodeRed({ userDir, port });
    processes.push(red);
    expect(red.startedAt).toBeLessThan(start + DURATION_MS);
    await waitFor(async () => (await figures(start)).jobs.length > 0, 'the follow-up job', { timeoutMs: 30_000 });
    // the next slot over too: a second stop or follow-up for this one would have gone by then
    await waitFor(async () => (await figures(start + PERIOD_MS)).jobs.length > 0, 'the next slot over', {
      timeoutMs: 30_000,
    });
    const after = await figures(start);
    expect(after.channel?.id).toBe(channelId);
    expect(after.channel?.state).toBe('INACTIVE');
    expect(after.stops.carriedOut).toBe(1);
    expect(after.jobs).toHaveLength(1);
    expect(after.submits.carriedOut).toBe(1);
    expect(JSON.stringify(after.jobs[0].input?.media_nicknames)).toContain(channelId);
    await red.kill();
  }, 120_000);

  it('with the journal turned off in settings.js, nothing is written to the user directory', async () => {
    const userDir = join(base, `userdir-nojournal-${process.pid}`);
    const port = await freePort();
    const { flows, credentials } = recordingFlow(sim.info(), windowPlans(1));
    prepareUserDir({
      dir: userDir,
      flows,
      credentials,
      contextStorage: MEMORY,
      settings: 'mediaSpaces: { journal: false },',
    });
    const red = await startNodeRed({ userDir, port });
    processes.push(red);
    const start = Math.ceil(Math.max(Date.now() + 1500, red.startedAt + 2500) / PERIOD_MS) * PERIOD_MS;
    await waitFor(async () => (await figures(start)).jobs.length > 0, 'a recorded and followed-up slot', {
      timeoutMs: 30_000,
    });
    await sleep(200);
    expect(journalChannel(userDir, slotKeyOf(WINDOW, start), 'other')).toBeUndefined();
    expect(existsSync(join(userDir, '.media-spaces'))).toBe(false);
    await red.kill();
  }, 120_000);
});

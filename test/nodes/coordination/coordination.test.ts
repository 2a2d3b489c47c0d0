import type { NodeModule } from 'node-red-node-test-helper';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { ConnectionStatus, Coordinator } from '../../../lib/coordination';
import type { CoordinationProvider } from '../../../nodes/shared/coordination-provider';
import type { Node, NodeAPI, NodeDef } from '../../../nodes/shared/node-red-types';
import { nodeModule } from '../../support/node-modules';
import { helper, initRuntime, waitFor } from '../../support/node-red-runtime';
import { RedisServer } from '../../support/redis-server';

const coordinationNode = nodeModule('media-spaces-coordination');

/**
 * A minimal node that uses the coordination config node the way the schedule
 * node will: it claims and completes a slot per input, and mirrors the shared
 * connection's status.
 */
const seen = new Map<string, { coordinator?: Coordinator; statuses: ConnectionStatus[] }>();
const userNode: NodeModule = (red) => {
  const RED = red as unknown as NodeAPI;
  RED.nodes.registerType('coordination-user', function (this: Node, def: NodeDef) {
    RED.nodes.createNode(this, def);
    const config = RED.nodes.getNode(String(def.coordination)) as (Node & CoordinationProvider) | null;
    const record: { coordinator?: Coordinator; statuses: ConnectionStatus[] } = { statuses: [] };
    seen.set(this.id, record);
    const off = config?.onCoordinationStatus((s) => record.statuses.push(s));
    this.on('input', (msg, send, done) => {
      try {
        const coordinator = config!.getCoordinator();
        record.coordinator = coordinator;
        const ref = { schedule: 'news', slot: String(msg.slot), phase: 'start' };
        coordinator
          .claim(ref)
          .then(async (claim) => {
            if (claim.status === 'won') await coordinator.complete(ref, claim.token, { by: this.id });
            send({ payload: claim.status });
            done();
          })
          .catch((err: Error) => done(err));
      } catch (err) {
        done(err as Error);
      }
    });
    this.on('close', (_removed, done) => {
      off?.();
      done();
    });
  });
};

let redis: RedisServer;
const at = { z: 'tab', x: 100, y: 100 };

function flow(props: Record<string, unknown> = {}): Record<string, unknown>[] {
  return [
    { id: 'tab', type: 'tab', label: 'test' },
    { id: 'coord', type: 'media-spaces-coordination', name: 'shared', url: redis.url, keyPrefix: 'nr-test', ...props },
    { id: 'user1', ...at, type: 'coordination-user', coordination: 'coord', wires: [['out']] },
    { id: 'user2', ...at, type: 'coordination-user', coordination: 'coord', wires: [['out']] },
    { id: 'out', ...at, type: 'helper' },
  ];
}

async function clientsOfThisProcess(): Promise<number> {
  const list = await redis.cli('-a', 'pw', '--no-auth-warning', 'CLIENT', 'LIST');
  return list.split('\n').filter((line) => / name=media-spaces:\S+/.test(line)).length;
}

async function send(id: string, slot: string): Promise<string> {
  const out = helper.getNode('out');
  const result = new Promise<string>((resolve) => {
    out.on('input', (msg) => resolve(String(msg.payload)));
  });
  helper.getNode(id).receive({ slot });
  return result;
}

beforeAll(async () => {
  redis = await RedisServer.start({ password: 'pw' });
  initRuntime();
});
afterEach(async () => {
  await helper.unload();
  seen.clear();
});
afterAll(async () => {
  await redis.dispose();
});

describe('media-spaces-coordination in a Node-RED runtime', () => {
  it('shares one connection between its users and closes it on redeploy', async () => {
    await helper.load([coordinationNode, userNode], flow(), { coord: { password: 'pw' } });
    expect(await send('user1', '2030-01-01T06:00:00Z')).toBe('won');
    expect(await send('user2', '2030-01-01T06:00:00Z')).toBe('done');
    expect(seen.get('user1')?.coordinator).toBe(seen.get('user2')?.coordinator);
    expect(await clientsOfThisProcess()).toBe(1);
    expect(seen.get('user1')?.coordinator?.keyPrefix).toBe('nr-test:');

    await helper.setFlows(flow({ keyPrefix: 'nr-test-2' }), 'full', { coord: { password: 'pw' } });
    await waitFor(() => seen.get('user1')?.coordinator === undefined, 5000);
    expect(await send('user1', '2030-01-01T06:00:00Z')).toBe('won'); // new prefix, new keys
    expect(await clientsOfThisProcess()).toBe(1);

    await helper.unload();
    const deadline = Date.now() + 3000;
    while ((await clientsOfThisProcess()) > 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    expect(await clientsOfThisProcess()).toBe(0);
  });

  it('logs a wrong password clearly, shows it to its users, and does not crash', async () => {
    await helper.load([coordinationNode, userNode], flow(), { coord: { password: 'not-it' } });
    await waitFor(() => (seen.get('user1')?.statuses.length ?? 0) > 0, 5000);
    expect(seen.get('user1')?.statuses[0]).toMatchObject({
      state: 'error',
      error: 'Redis rejected the username or password',
      errorCode: 'auth',
    });
    const warnings = helper
      .log()
      .args.map((a) => a[0])
      .filter((e) => e.id === 'coord' && e.level === 30);
    expect(warnings.map((w) => w.msg)).toContain(
      'Redis coordination "shared": Redis rejected the username or password',
    );
    // the user's input fails with the same clear error (done(err)), and the runtime carries on
    helper.getNode('user1').receive({ slot: '2030-01-01T06:00:00Z' });
    const errors = () =>
      helper
        .log()
        .args.map((a) => a[0])
        .filter((e) => e.id === 'user1' && e.level === 20)
        .map((e) => String(e.msg));
    await waitFor(() => errors().length > 0, 5000);
    expect(errors()).toContain('CoordinationError: Redis rejected the username or password');
  });

  it('reports a malformed url by name and does not connect', async () => {
    await helper.load([coordinationNode, userNode], flow({ url: 'http://127.0.0.1:6379' }), {});
    const errors = helper
      .log()
      .args.map((a) => a[0])
      .filter((e) => e.id === 'coord' && e.level === 20);
    expect(errors.map((e) => e.msg)).toContain(
      'Redis coordination "shared": Redis URL must be redis://host:port or rediss://host:port, got "http://127.0.0.1:6379" (scheme http:); every node using it fails until it is fixed',
    );
    helper.getNode('user1').receive({ slot: '2030-01-01T06:00:00Z' });
    await new Promise((r) => setTimeout(r, 100));
    expect(await clientsOfThisProcess()).toBe(0);
  });

  it('names each bad setting as its dialog does, in the sentence every node uses, and does not connect', async () => {
    await helper.load(
      [coordinationNode, userNode],
      flow({ leaseMs: '500', doneTtlDays: 0, whenUnreachable: 'retry' }),
      { coord: { password: 'pw' } },
    );
    const errors = helper
      .log()
      .args.map((a) => a[0])
      .filter((e) => e.id === 'coord' && e.level === 20)
      .map((e) => String(e.msg));
    expect(errors).toEqual([
      'Redis coordination "shared": Lease must be 1000 to 3600000 ms; ' +
        'Keep done records must be 1 to 365 days; Redis unreachable must be skip or alone; ' +
        'every node using it fails until it is fixed',
    ]);
    const status = (helper.getNode('coord') as unknown as CoordinationProvider).coordinationStatus();
    expect(status).toMatchObject({ state: 'error', errorCode: 'invalid_config' });
    expect(await clientsOfThisProcess()).toBe(0);
  });

  it("reads a flow saved without the optional settings with the dialog's defaults", async () => {
    await helper.load([coordinationNode, userNode], flow(), { coord: { password: 'pw' } });
    expect((helper.getNode('coord') as unknown as CoordinationProvider).coordinationSettings).toEqual({
      url: redis.url,
      keyPrefix: 'nr-test',
      leaseMs: 30_000,
      doneTtlMs: 7 * 24 * 3600_000,
      whenUnreachable: 'skip',
    });
  });
});

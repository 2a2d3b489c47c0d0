import {
  Coordinator,
  type CoordinatorOptions,
  RedisConnection,
  type RedisConnectionOptions,
} from '../../../lib/coordination';

/** Coordinators of distinct "instances", each with its own connection, closed together by closeAll(). */
/**
 * Waits until each coordinator's connection is up, for the tests about what connected instances do: the 1 s
 * connect timeout of these connections is for the tests of an unreachable Redis, and a loaded machine can take
 * longer to bring several fresh connections up at once.
 */
export async function connected(coordinators: Coordinator[], timeoutMs = 15_000): Promise<void> {
  await Promise.all(coordinators.map((c) => c.connection.whenReady(timeoutMs)));
}

export class Instances {
  readonly #connections: RedisConnection[] = [];

  connection(options: RedisConnectionOptions): RedisConnection {
    const connection = new RedisConnection({ connectTimeoutMs: 1000, commandTimeoutMs: 2000, ...options });
    this.#connections.push(connection);
    return connection;
  }

  coordinator(
    url: string,
    instanceId: string,
    options: Partial<CoordinatorOptions> & { username?: string; password?: string } = {},
  ): Coordinator {
    const { username, password, ...rest } = options;
    return new Coordinator({ connection: this.connection({ url, username, password }), instanceId, ...rest });
  }

  async closeAll(): Promise<void> {
    await Promise.all(this.#connections.splice(0).map((c) => c.close()));
  }
}

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

export async function waitFor(condition: () => boolean, timeoutMs = 5000): Promise<void> {
  const start = Date.now();
  while (!condition()) {
    if (Date.now() - start > timeoutMs) throw new Error(`condition not met within ${timeoutMs} ms`);
    await sleep(10);
  }
}

import { type ClientConfig, createClient, type MediaSpacesClient } from '../../lib/client';
import type { MediaSpacesError } from '../../lib/errors';
import { type Simulator, type SimulatorOptions, startSimulator } from '../../lib/simulator';
import { KEYS, libraryFixture, SPACE, TOKENS } from './fixture';

/** Small retry delays so that retried calls take milliseconds. */
export const FAST_RETRY = { baseDelayMs: 10, maxDelayMs: 50 } as const;

/**
 * A simulator with the library fixture plus the clients made against it;
 * `close()` shuts both down (clients first, so nothing is left in flight).
 */
export interface SimHarness {
  sim: Simulator;
  client(overrides?: Partial<ClientConfig>): MediaSpacesClient;
  /** Event ids the simulator holds for the space (admin API; events exist once a recording started). */
  eventIds(spaceId?: string): Promise<string[]>;
  jobIds(spaceId?: string): Promise<string[]>;
  close(): Promise<void>;
}

export async function startHarness(options: SimulatorOptions & { big?: boolean } = {}): Promise<SimHarness> {
  const { big, ...simOptions } = options;
  const sim = await startSimulator({ fixture: libraryFixture({ big }), manualClock: true, ...simOptions });
  const clients: MediaSpacesClient[] = [];
  const admin = async <T>(path: string): Promise<T> => {
    const res = await fetch(`${sim.adminUrl}${path}`);
    if (!res.ok) throw new Error(`admin ${path}: HTTP ${res.status}`);
    return (await res.json()) as T;
  };
  return {
    sim,
    client(overrides = {}) {
      const c = createClient({
        workflowUrl: sim.workflowUrl,
        liveCaptureUrl: sim.liveCaptureUrl,
        spaceId: SPACE,
        apiKey: KEYS.admin,
        accessToken: TOKENS.main,
        timeout: 5_000,
        retryPolicy: { ...FAST_RETRY },
        ...overrides,
      });
      clients.push(c);
      return c;
    },
    async eventIds(spaceId = SPACE) {
      const body = await admin<{ events: Array<{ id: string }> }>(`/spaces/${spaceId}/events`);
      return body.events.map((e) => e.id);
    },
    async jobIds(spaceId = SPACE) {
      const body = await admin<{ jobs: Array<{ id: string }> }>(`/spaces/${spaceId}/jobs`);
      return body.jobs.map((j) => j.id);
    },
    async close() {
      await Promise.all(clients.map((c) => c.close()));
      await sim.close();
    },
  };
}

/** Awaits a promise that must reject with a MediaSpacesError and returns the error. */
export async function rejection(p: Promise<unknown>): Promise<MediaSpacesError> {
  return p.then(
    (value) => {
      throw new Error(`expected a failure, got ${JSON.stringify(value)?.slice(0, 200)}`);
    },
    (error: MediaSpacesError) => error,
  );
}

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

// biome-ignore lint/suspicious/noExplicitAny: response bodies are asserted field by field
export type Body = any;

/** A raw HTTP answer of the simulator, for tests that check the wire itself. */
export interface RawResponse {
  status: number;
  headers: Headers;
  /** The JSON body; the text itself where the body is not JSON; undefined where there is none. */
  body: Body;
  text: string;
}

export interface CallOptions {
  /** Sent as `Authorization: Bearer <key>`. */
  key?: string;
  /** Sent as JSON. */
  body?: unknown;
  /** Sent as is (as application/json), for malformed bodies. */
  raw?: string;
  headers?: Record<string, string>;
}

/** One HTTP call to the simulator, bypassing the client: the key (or the options), a JSON body, or a raw one. */
export async function call(
  method: string,
  url: string,
  keyOrOptions: string | CallOptions = {},
  body?: unknown,
  raw?: string,
): Promise<RawResponse> {
  const o: CallOptions = typeof keyOrOptions === 'string' ? { key: keyOrOptions, body, raw } : keyOrOptions;
  const headers: Record<string, string> = { ...o.headers };
  if (o.key) headers.authorization = `Bearer ${o.key}`;
  const payload = o.raw ?? (o.body === undefined ? undefined : JSON.stringify(o.body));
  if (payload !== undefined) headers['content-type'] = 'application/json';
  const r = await fetch(url, { method, headers, body: payload });
  const text = await r.text();
  let parsed: Body;
  try {
    parsed = text ? JSON.parse(text) : undefined;
  } catch {
    parsed = text;
  }
  return { status: r.status, headers: r.headers, body: parsed, text };
}

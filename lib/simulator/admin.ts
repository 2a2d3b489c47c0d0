import type { IncomingMessage, ServerResponse } from 'node:http';
import { isPlainObject } from '../guards';
import { ChannelFailureSpec, type ChannelFailures } from './channel-failures';
import { channelView } from './channels';
import { type FaultRegistry, FaultSpec } from './faults';
import { type BodyBudget, BUSY_RETRY_AFTER_SECONDS, readBodyAsync, send } from './http-io';
import { jobView } from './jobs';
import { parseJsonBody } from './operation';
import type { RequestLog } from './request-log';
import type { SimulatorState } from './state';
import { isoTime } from './timespan';
import { WARM_UP_MAX_MS, WARM_UP_MIN_MS } from './warm-up';

/** What the admin API reaches into; the Simulator itself provides it. */
export interface AdminTarget {
  readonly state: SimulatorState;
  readonly faults: FaultRegistry;
  readonly channelFailures: ChannelFailures;
  readonly log: RequestLog;
  readonly bodies: BodyBudget;
  readonly manualClock: boolean;
  info(): unknown;
  now(): number;
  advance(ms: number): void;
  reset(): void;
}

export const ADMIN_PREFIX = '/__admin';

const json = (res: ServerResponse, status: number, body?: unknown) =>
  send(res, status, body === undefined ? undefined : JSON.stringify(body));
const problem = (res: ServerResponse, status: number, message: string, errors?: Record<string, string>) =>
  json(res, status, errors ? { error_message: message, errors } : { error_message: message });

/**
 * The simulator's own control API under /__admin: no authentication (it
 * listens on loopback and is a test tool), JSON in and out, never logged and
 * never subject to faults, so tests can always reach it.
 */
export async function serveAdmin(t: AdminTarget, req: IncomingMessage, res: ServerResponse, path: string) {
  const method = req.method ?? 'GET';
  const parts = path.slice(ADMIN_PREFIX.length).split('/').filter(Boolean);
  const read = await readBodyAsync(req, res, t.bodies);
  if (!read.ok) {
    if (read.reason === 'too_large') problem(res, 413, 'the request body is larger than 5 MB');
    if (read.reason === 'busy') {
      send(res, 503, JSON.stringify({ error_message: 'too many request bodies held at once; retry shortly' }), {
        'retry-after': String(BUSY_RETRY_AFTER_SECONDS),
      });
    }
    return;
  }
  const body = () => {
    if (!read.body || read.body.length === 0) return {};
    const parsed = parseJsonBody(read.body);
    return parsed.ok ? parsed.value : undefined;
  };
  const route = `${method} /${parts.map((p, i) => (parts[0] === 'spaces' && i === 1 ? ':id' : p)).join('/')}`;

  switch (route) {
    case 'GET /':
    case 'GET /info':
      return json(res, 200, t.info());
    case 'GET /faults':
      return json(res, 200, { faults: t.faults.list(t.now()) });
    case 'POST /faults': {
      const spec = FaultSpec.safeParse(body());
      if (!spec.success) return problem(res, 400, 'invalid fault', issueMap(spec.error.issues));
      const fault = t.faults.add(spec.data, t.now());
      return json(res, 201, { id: fault.id, fault });
    }
    case 'DELETE /faults':
      t.faults.clear();
      return json(res, 204);
    case 'GET /channel-failures':
      return json(res, 200, t.channelFailures.list(t.state));
    case 'POST /channel-failures': {
      const spec = ChannelFailureSpec.safeParse(body());
      if (!spec.success) return problem(res, 400, 'invalid channel failure', issueMap(spec.error.issues));
      const armed = t.channelFailures.arm(spec.data, t.state, t.now());
      if (!armed.ok) return problem(res, armed.status, armed.message);
      return json(res, 201, { id: armed.id, failure: armed.view });
    }
    case 'DELETE /channel-failures':
      t.channelFailures.clear(t.state, t.now());
      return json(res, 204);
    case 'GET /warm-up':
      return json(res, 200, { ms: t.state.warmUpMs });
    case 'POST /warm-up': {
      const b = body();
      const ms = isPlainObject(b) ? b.ms : undefined;
      if (typeof ms !== 'number' || !Number.isInteger(ms) || ms < WARM_UP_MIN_MS || ms > WARM_UP_MAX_MS) {
        const range = `a whole number of ms from ${WARM_UP_MIN_MS} to ${WARM_UP_MAX_MS}`;
        return problem(res, 400, `send {"ms": ${range}}`, { ms: `must be ${range}` });
      }
      t.state.warmUpMs = ms;
      return json(res, 200, { ms });
    }
    case 'GET /clock':
      return json(res, 200, { now: t.now(), iso: isoTime(t.now()), manual: t.manualClock });
    case 'POST /clock/advance': {
      const b = body();
      const ms = isPlainObject(b) ? b.ms : undefined;
      if (typeof ms !== 'number' || !Number.isFinite(ms) || ms < 0) {
        return problem(res, 400, 'send {"ms": <non-negative number>}', { ms: 'must be a non-negative number' });
      }
      t.advance(ms);
      return json(res, 200, { now: t.now(), iso: isoTime(t.now()) });
    }
    case 'GET /requests':
      return json(res, 200, { requests: t.log.entries() });
    case 'DELETE /requests':
      t.log.clear();
      return json(res, 204);
    case 'POST /reset':
      t.reset();
      return json(res, 204);
    case 'GET /state':
      return json(res, 200, t.state.counts(t.now()));
    case 'GET /spaces/:id/events':
    case 'GET /spaces/:id/jobs':
    case 'GET /spaces/:id/channels':
      return spaceListing(t, res, decodeSafe(parts[1]), parts[2]);
  }
  if (method === 'DELETE' && parts[0] === 'faults' && parts.length === 2) {
    return t.faults.remove(parts[1]) ? json(res, 204) : problem(res, 404, `no fault ${parts[1]}`);
  }
  return problem(res, 404, `no admin route ${method} ${path}`);
}

function spaceListing(t: AdminTarget, res: ServerResponse, spaceId: string, what: string) {
  const space = t.state.spaces.get(spaceId.toLowerCase());
  if (!space) return problem(res, 404, `space ${spaceId} not found`);
  const now = t.now();
  if (what === 'jobs') {
    return json(res, 200, {
      jobs: [...space.jobs.values()].map((j) => ({ ...jobView(j, now), input: j.input ?? null })),
    });
  }
  if (what === 'channels') {
    return json(res, 200, { channels: [...space.channels.values()].map((c) => channelView(c, now)) });
  }
  const events = [...space.events.values()]
    .filter((e) => e.occursAt <= now)
    .map((e) => ({
      id: e.id,
      kind: e.kind,
      name: e.name,
      channel_id: e.channelId,
      recording_id: e.recordingId,
      created_at: isoTime(e.occursAt),
    }));
  return json(res, 200, { events });
}

function issueMap(issues: ReadonlyArray<{ path: PropertyKey[]; message: string }>): Record<string, string> {
  const errors: Record<string, string> = {};
  for (const i of issues) errors[i.path.map(String).join('.') || 'body'] ??= i.message;
  return errors;
}

function decodeSafe(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}

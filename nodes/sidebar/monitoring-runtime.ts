import path from 'node:path';
import { exportFileName, recordsToCsv, recordsToJsonl } from '../../lib/asrun/export';
import { AS_RUN_OUTCOMES, type AsRunOutcome } from '../../lib/asrun/record';
import type { AsRunQuery } from '../../lib/asrun/recorder';
import { AsRunRecorder } from '../../lib/asrun/recorder';
import { RedisAsRunStore } from '../../lib/asrun/redis-store';
import type { Coordinator } from '../../lib/coordination';
import { metrics, type SlotMetrics } from '../../lib/metrics/slot-metrics';
import { isCoordinationProvider } from '../shared/coordination-provider';
import type { HttpRequest, HttpResponse, NodeAPI } from '../shared/node-red-types';
import { type MetricsRegistry, metricsRegistry } from './metrics-registry';

const AS_RUN_DIR = 'media-spaces-as-run';
const FORMATS = ['json', 'csv', 'jsonl'] as const;

/** What monitoring reads of the runtime: the flows' node definitions, the deployed nodes, the settings. */
export type MonitoringHost = Pick<NodeAPI, 'auth' | 'httpAdmin'> & {
  nodes: Pick<NodeAPI['nodes'], 'getNode'> & { eachNode?(cb: (def: Record<string, unknown>) => void): void };
  settings?: { userDir?: string; mediaSpaces?: { asRunRetentionDays?: unknown } };
  log?: { warn(text: string): void };
};

let recorder: AsRunRecorder | undefined;

/**
 * The as-run recorder of this process, started once on the runtime's user
 * directory (`<userDir>/media-spaces-as-run/`): slot transitions are
 * published process-wide, so one recorder logs every schedule's slots
 * whichever flow, redeploy or plugin registration came first.
 */
function asRunRecorder(RED: MonitoringHost): AsRunRecorder {
  if (!recorder) {
    const userDir = RED.settings?.userDir ?? process.cwd();
    const retention = Number(RED.settings?.mediaSpaces?.asRunRetentionDays);
    let warned = false;
    recorder = new AsRunRecorder({
      dir: path.join(userDir, AS_RUN_DIR),
      ...(Number.isInteger(retention) && retention > 0 ? { retentionDays: retention } : {}),
      redisFor: (scheduleId) => storeOf(RED, coordinationOfSchedule(RED, scheduleId)),
      redisStores: () => coordinationIds(RED).flatMap((id) => storeOf(RED, id) ?? []),
      onError: (error, where) => {
        // once per process: a full disk would otherwise log on every transition
        if (warned) return;
        warned = true;
        RED.log?.warn(`media-spaces as-run log: a write to the ${where} failed: ${String(error)}`);
      },
    });
    recorder.start();
  }
  return recorder;
}

/** The coordination node a schedule names, from the deployed flows' definitions. */
function coordinationOfSchedule(RED: MonitoringHost, scheduleId: string): string | undefined {
  let found: string | undefined;
  RED.nodes.eachNode?.((def) => {
    if (def.id === scheduleId && typeof def.coordination === 'string' && def.coordination !== '')
      found = def.coordination;
  });
  return found;
}

function coordinationIds(RED: MonitoringHost): string[] {
  const ids: string[] = [];
  RED.nodes.eachNode?.((def) => {
    if (def.type === 'media-spaces-coordination' && typeof def.id === 'string') ids.push(def.id);
  });
  return ids;
}

const stores = new WeakMap<Coordinator, RedisAsRunStore>();

/** The shared as-run stream of a deployed coordination node, on its connection and key prefix. */
function storeOf(RED: MonitoringHost, coordinationId: string | undefined): RedisAsRunStore | undefined {
  if (coordinationId === undefined) return undefined;
  const node = RED.nodes.getNode(coordinationId);
  if (!isCoordinationProvider(node)) return undefined;
  let coordinator: Coordinator;
  try {
    coordinator = node.getCoordinator();
  } catch {
    return undefined;
  }
  let store = stores.get(coordinator);
  if (!store) {
    store = new RedisAsRunStore(coordinator.connection, coordinator.keyPrefix, recorder?.file.retentionDays);
    stores.set(coordinator, store);
  }
  return store;
}

/** The process's metrics and as-run recorder, started on the first event or request that needs them. */
export function startMonitoring(RED: MonitoringHost): { metrics: SlotMetrics; recorder: AsRunRecorder } {
  return { metrics: metrics(), recorder: asRunRecorder(RED) };
}

let registry: MetricsRegistry | undefined;

/** GET /media-spaces/metrics: prom-client (and its process collectors) loaded at the first scrape, once per process. */
export async function serveMetrics(counted: SlotMetrics, res: HttpResponse): Promise<void> {
  registry ??= metricsRegistry(counted);
  const text = await registry.text();
  res.status(200).set('content-type', registry.contentType).send(text);
}

/** GET /media-spaces/as-run: a day of the log, as JSON, CSV or JSON Lines. */
export async function serveAsRun(log: AsRunRecorder, req: HttpRequest, res: HttpResponse): Promise<void> {
  const q = req.query;
  const text = (v: unknown) => (typeof v === 'string' && v !== '' ? v : undefined);
  const format = text(q.format) ?? 'json';
  const outcome = text(q.outcome);
  const zone = text(q.zone) ?? 'UTC';
  const day = text(q.day) ?? new Date().toISOString().slice(0, 10);
  if (!(FORMATS as readonly string[]).includes(format))
    return refuse(res, `format must be one of ${FORMATS.join(', ')}`);
  if (outcome !== undefined && !AS_RUN_OUTCOMES.includes(outcome as AsRunOutcome)) {
    return refuse(res, `outcome must be one of ${AS_RUN_OUTCOMES.join(', ')}`);
  }
  const query: AsRunQuery = { day, zone, outcome: outcome as AsRunOutcome | undefined, schedule: text(q.schedule) };
  let records: Awaited<ReturnType<AsRunRecorder['read']>>;
  const warnings: string[] = [];
  try {
    records = await log.read(query, warnings);
  } catch (error) {
    if (error instanceof RangeError) return refuse(res, error.message);
    throw error;
  }
  if (format === 'json') {
    res.status(200).json({ day, zone, records, ...(warnings.length > 0 ? { warnings } : {}) });
    return;
  }
  const name = exportFileName({ day, zone, schedule: query.schedule, outcome, format });
  res
    .status(200)
    .set('content-type', format === 'csv' ? 'text/csv; charset=utf-8' : 'application/x-ndjson; charset=utf-8')
    .set('content-disposition', `attachment; filename="${name}"`)
    .send(format === 'csv' ? recordsToCsv(records) : recordsToJsonl(records));
}

function refuse(res: HttpResponse, message: string): void {
  res.status(400).json({ error: { code: 'invalid_input', message } });
}

import { formatIssue, type ParseResult, parseScheduleObject, parseScheduleYaml, scheduleToYaml } from './config';
import { compileCron, describeCron, nextOccurrences } from './cron';
import { formatDuration } from './duration';
import type { PreviewResponse, PreviewWindow } from './preview-response';
import { formatLocalIso, formatShort, isoSeconds } from './tz';

export interface PreviewRequest {
  /** YAML text (takes precedence) */
  yaml?: unknown;
  /** or the object model the editor's list builds */
  model?: unknown;
  /** zone of windows that name none */
  timezone?: unknown;
  /** starts per window (1-20, default 5) */
  count?: unknown;
  /** preview from this instant (default now) */
  now?: number;
}

export type { PreviewResponse, PreviewWindow };

/** Validates a schedule and lists the next starts of each window, for the editor. */
export function previewSchedule(request: PreviewRequest): PreviewResponse {
  const count = clampCount(request.count);
  const now = typeof request.now === 'number' ? request.now : Date.now();
  const defaultTimezone = typeof request.timezone === 'string' && request.timezone ? request.timezone : undefined;
  let result: ParseResult;
  const response: PreviewResponse = { ok: false, issues: [], windows: [] };
  if (typeof request.yaml === 'string') {
    result = parseScheduleYaml(request.yaml, { defaultTimezone });
    if (result.raw !== undefined) response.model = result.raw;
  } else if (request.model !== undefined) {
    result = parseScheduleObject(request.model, { defaultTimezone });
    try {
      response.yaml = scheduleToYaml(request.model);
    } catch {
      /* not serialisable: the issues say why */
    }
  } else {
    result = { ok: false, issues: [{ path: '', message: 'give the schedule as yaml (text) or model (object)' }] };
  }
  if (!result.ok) {
    response.issues = result.issues.map((i) => ({ ...i, text: formatIssue(i) }));
    return response;
  }
  response.ok = true;
  response.schedule_id = result.config.scheduleId;
  response.windows = result.config.windows.map((w) => ({
    id: w.id,
    name: w.name,
    cron: w.cron,
    description: describeCron(w.cron),
    timezone: w.timezone,
    duration: formatDuration(w.duration),
    enabled: w.enabled,
    next: nextOccurrences(compileCron(w.cron), now, w.timezone, count).map((start) => ({
      start: isoSeconds(start),
      end: isoSeconds(start + w.duration * 1000),
      local: formatLocalIso(start, w.timezone),
      label: `${formatShort(start, w.timezone)} ${w.timezone}`,
    })),
  }));
  return response;
}

function clampCount(value: unknown): number {
  const n = typeof value === 'string' ? Number.parseInt(value, 10) : typeof value === 'number' ? value : 5;
  return Number.isFinite(n) ? Math.min(20, Math.max(1, Math.floor(n))) : 5;
}

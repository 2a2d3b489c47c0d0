import type { ScheduleIssue } from './issues';

/** What the editor's preview shows (a pure module: the editor bundle reads its types). */

export interface PreviewWindow {
  id: string;
  name: string;
  cron: string;
  /** the cron expression in words */
  description: string;
  timezone: string;
  duration: string;
  enabled: boolean;
  next: { start: string; end: string; local: string; label: string }[];
}

export interface PreviewResponse {
  ok: boolean;
  issues: (ScheduleIssue & { text: string })[];
  schedule_id?: string;
  windows: PreviewWindow[];
  /** the object model (when YAML was given), for the editor's list */
  model?: unknown;
  /** the YAML text (when the model was given), for the editor's text view */
  yaml?: string;
}

import type { ScheduleIssue } from './issues';

/** What the editor's preview shows (a pure module: the editor bundle reads its types). */

/**
 * Windows a preview checks and lists; the rest of a document are counted. The editor sends no more of
 * its list than this, with the list's length (`total`): a list of 20,000 windows is 2.8 MB of JSON, which
 * Node-RED's body parser would read in one go, holding the event loop before the preview runs.
 */
export const PREVIEW_WINDOWS = 50;

export interface PreviewWindow {
  id: string;
  name: string;
  cron: string;
  /** the cron expression in words */
  description: string;
  timezone: string;
  duration: string;
  /**
   * a calendar, guide or messages window: how long its recordings are, in words (each occurrence keeps its
   * own length, padded; `duration` is a manual start's only). Absent for a cron window: `duration` it is.
   */
  lengths?: string;
  enabled: boolean;
  /** the window's priority, when it has one (over max_channels, higher records) */
  priority?: number;
  /** a calendar or guide window's rerecord, in words: a missed slot is recorded at the next airing within `within` */
  rerecord?: { within: string; min_lost: string };
  /**
   * `lost_to`: with max_channels, this start would not record: it loses a conflict (by the windows' priorities)
   * to the starts named (window names and times), among the starts the preview lists
   */
  next: { start: string; end: string; local: string; label: string; lost_to?: string[] }[];
}

/**
 * What a preview left out to stay within its limits (the work per request and the size of the
 * answer are bounded, so that no document, however large, holds up the runtime). Present only
 * when something was left out.
 */
export interface PreviewOmitted {
  /** windows of the document after the first `limits.windows`: neither checked nor listed (a deploy checks them) */
  windows: number;
  /** checked windows left out of `windows` to keep the answer within `limits.bytes` */
  listed: number;
  /** next starts not listed, beyond `limits.occurrences` */
  occurrences: number;
  /** issues not listed, beyond `limits.issues` */
  issues: number;
  /** the model (from YAML) or YAML (from the model) is not sent back: the document is over the limits */
  echo: boolean;
}

/** The bounds a preview keeps to. */
export interface PreviewLimits {
  /** windows checked and listed; the rest are counted */
  windows: number;
  /** next starts listed over all windows */
  occurrences: number;
  /** issues listed */
  issues: number;
  /** size of the answer as JSON, in bytes (UTF-16 code units) */
  bytes: number;
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
  /** the document's max_channels, when it has one: the starts listed are decided against it (`lost_to`) */
  max_channels?: number;
  /** windows in the whole document, when known (the preview may list fewer: see omitted) */
  total_windows?: number;
  /** what was left out, when anything was */
  omitted?: PreviewOmitted;
  /** the limits the preview kept to, when anything was left out */
  limits?: PreviewLimits;
}

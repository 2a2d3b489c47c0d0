/** A problem in a schedule document, where it is and what is wrong. */
export interface ScheduleIssue {
  /** 1-based line in the YAML text (absent for the editor's object model) */
  line?: number;
  column?: number;
  /** `windows[1].cron`; empty for the whole document */
  path: string;
  message: string;
}

/** The schedule node as the editor holds it (its settings, plus what the open dialog keeps). */
export interface ScheduleEditorNode extends EditorNodeInstance {
  source: string;
  yaml: string;
  file: string;
  windows: unknown;
  scheduleId: string;
  timezone: string;
  /** the media-spaces-coordination node's id; '' for this instance alone */
  coordination: string;
  yamlEditor?: ReturnType<EditorRED['editor']['createEditor']>;
  /** Node-RED's translation of a label key (set on every node in the editor) */
  _(key: string): string;
  /** the editor list's windows, while the dialog is open */
  _readWindows?: () => WindowModel[];
}

/** One window of the editor list, as the runtime's schedule object model takes it. */
export interface WindowModel {
  id: string;
  name?: string;
  cron: string;
  timezone?: string;
  duration: string | number;
  enabled?: boolean;
  channel?: unknown;
  followup?: unknown;
  [key: string]: unknown;
}

import type { DeclaredInputs } from '../../shared/editor/declared-inputs';
import type { FieldNode } from '../../shared/editor/field-defaults';
import type { WorkflowPage } from '../../shared/editor/workflow-picker';
import type { FIELDS } from '../fields';

/** The schedule node as the editor holds it (its fields, plus what the open dialog keeps). */
export type ScheduleEditorNode = FieldNode<typeof FIELDS> & ScheduleDialogState;

interface ScheduleDialogState {
  yamlEditor?: ReturnType<EditorRED['editor']['createEditor']>;
  /** Node-RED's translation of a label key (set on every node in the editor) */
  _(key: string): string;
  /** the editor list's windows, while the dialog is open */
  _readWindows?: () => WindowModel[];
  /** oneditsave: writes the feed secrets typed in the dialog into the feeds credential's input; the private addresses typed */
  _saveFeeds?: () => string[];
  /** stops what the open dialog has running (its preview timer, the follow-up pickers' loading) */
  _closeDialog?: () => void;
}

/** One window of the editor list, as the runtime's schedule object model takes it. */
export interface WindowModel {
  id: string;
  name?: string;
  cron?: string;
  timezone?: string;
  duration?: string | number;
  enabled?: boolean;
  channel?: unknown;
  followup?: unknown;
  [key: string]: unknown;
}

/** What the follow-up forms of one dialog share: words, the server, and what was read through it. */
export interface FollowupShared {
  label(key: string): string;
  /** the submit-job dialog's words, for the picker they share */
  pickerText(key: string, values?: Record<string, unknown>): string;
  /** the config node's id chosen in the dialog */
  server(): unknown;
  /** whether the window list is the dialog's source (else nothing is read for it) */
  listShown(): boolean;
  declared: DeclaredInputs;
  fetchPage(body: Record<string, unknown>): PromiseLike<WorkflowPage>;
}

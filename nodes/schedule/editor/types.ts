import type { FieldNode } from '../../shared/editor/field-defaults';
import type { FIELDS } from '../fields';

/** The schedule node as the editor holds it (its fields, plus what the open dialog keeps). */
export type ScheduleEditorNode = FieldNode<typeof FIELDS> & ScheduleDialogState;

interface ScheduleDialogState {
  yamlEditor?: ReturnType<EditorRED['editor']['createEditor']>;
  /** Node-RED's translation of a label key (set on every node in the editor) */
  _(key: string): string;
  /** the editor list's windows, while the dialog is open */
  _readWindows?: () => WindowModel[];
  /** stops what the open dialog has running (its preview timer, the follow-up pickers' loading) */
  _closeDialog?: () => void;
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

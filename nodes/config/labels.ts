import { dialogLabel } from '../shared/dialog-labels';

/** How the runtime's messages about a config setting name it: as the dialog does ("Workflow URL is required"). */
export function configLabel(field: string): string {
  return dialogLabel(undefined, 'media-spaces-config', field) ?? field;
}

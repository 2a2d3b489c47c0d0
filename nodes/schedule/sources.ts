/** Where the windows come from: YAML typed in the node, a watched YAML file, or the editor's list. */
export const SCHEDULE_SOURCES = ['yaml', 'file', 'editor'] as const;

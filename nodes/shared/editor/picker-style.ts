/**
 * The workflow picker's look, for every dialog that shows one (submit job, and each window's
 * follow-up in the schedule): added to the page once, for lists with the class ms-wf-list.
 */
const CSS = `
.ms-wf-list { height: 220px; overflow-y: auto; border: 1px solid var(--red-ui-form-input-border-color, #ccc); border-radius: 4px; margin-top: 4px; }
.ms-wf-list .ms-wf-row { padding: 3px 6px; cursor: pointer; white-space: nowrap; overflow: hidden; text-overflow: ellipsis; }
.ms-wf-list .ms-wf-row:hover { background: var(--red-ui-list-item-background-hover, #eee); }
.ms-wf-list .ms-wf-row.selected { background: var(--red-ui-list-item-background-selected, #ddd); font-weight: bold; }
.ms-wf-list .ms-wf-status { margin-left: 6px; padding: 0 4px; border-radius: 3px; font-size: 0.8em; background: #999; color: #fff; }
.ms-wf-list .ms-wf-status-active { background: #5a8; }
.ms-wf-list .ms-wf-status-deleted { background: #c66; }
.ms-wf-list .ms-wf-id { margin-left: 8px; font-family: monospace; font-size: 0.8em; color: var(--red-ui-secondary-text-color, #888); }
.ms-wf-list .ms-wf-more, .ms-wf-list .ms-wf-none { padding: 3px 6px; font-style: italic; color: var(--red-ui-secondary-text-color, #888); }
.ms-wf-list .ms-wf-more { cursor: pointer; text-decoration: underline; }
`;

export function addPickerStyle(): void {
  if (document.getElementById('ms-wf-picker-style')) return;
  const style = document.createElement('style');
  style.id = 'ms-wf-picker-style';
  style.textContent = CSS;
  document.head.appendChild(style);
}

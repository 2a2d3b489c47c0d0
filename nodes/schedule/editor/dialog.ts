import type { PreviewResponse } from '../../../lib/schedule/preview-response';
import { postAdmin } from '../../shared/editor/admin';
import { declaredInputsLoader } from '../../shared/editor/declared-inputs';
import { serverBody } from '../../shared/editor/server-body';
import type { WorkflowPage } from '../../shared/editor/workflow-picker';
import { feedSecrets } from './feed-secrets';
import { type PreviewBody, renderPreview, requestPreview, tooLargeToSwitch } from './preview';
import type { FollowupShared, ScheduleEditorNode } from './types';
import { createWindowList, type FeedShared, type WindowList, zoneCheck } from './window-list';
import { yamlFromList } from './yaml-switch';

/** Waits this long after the last keystroke before asking for a preview. */
const PREVIEW_DELAY_MS = 400;

function showSource(source: string): void {
  $('.ms-schedule-yaml-tools').toggle(source === 'yaml');
  $('.ms-schedule-yaml').toggle(source === 'yaml');
  $('.ms-schedule-file').toggle(source === 'file');
  $('.ms-schedule-editor').toggle(source === 'editor');
  $('#ms-schedule-preview-row').toggle(source !== 'file');
  $('#ms-schedule-file-note').toggle(source === 'file');
}

/** The list holds windows only: the document's zone goes into each window that names none, and its id into the setting. */
function listFromModel(res: PreviewResponse, list: WindowList): void {
  const model = res.model;
  if (typeof model !== 'object' || model === null || !('windows' in model) || !Array.isArray(model.windows)) return;
  const zone = 'timezone' in model && typeof model.timezone === 'string' ? model.timezone : '';
  list.fill(
    model.windows.map((w: unknown) =>
      zone && typeof w === 'object' && w !== null && !('timezone' in w && w.timezone) ? { ...w, timezone: zone } : w,
    ),
  );
  const id = 'schedule_id' in model ? model.schedule_id : undefined;
  if (id && !$('#node-input-scheduleId').val()) $('#node-input-scheduleId').val(String(id));
}

/**
 * The list rebuilt from the YAML as the runtime reads it; until the answer comes it takes no typing that would
 * be lost. A YAML too large for the list stays YAML. `read` learns the list as read (unchanged, going back
 * leaves the YAML and its comments alone).
 */
function listFromYaml(
  label: (key: string) => string,
  yaml: string,
  list: WindowList,
  read: (asRead: string) => void,
  schedulePreview: () => void,
): void {
  const container = $('#node-input-windows-container').attr('data-loading', 'true').css('opacity', 0.5);
  container.find('input, select, textarea').prop('disabled', true);
  const enable = () => {
    container.removeAttr('data-loading').css('opacity', '');
    container.find('input, select, textarea').prop('disabled', false);
  };
  requestPreview({ yaml }, (res) => {
    if (!document.body.contains(container[0])) return; // the dialog closed meanwhile
    if (tooLargeToSwitch(res)) {
      // the answer holds the first windows only: a list of those would drop the rest on the way back
      enable();
      RED.notify($('<p>').text(label('preview.tooLargeForList')), { type: 'warning' });
      // back to YAML with the list taken as unchanged, so that the YAML is left as it is
      read(JSON.stringify(list.read()));
      $('#node-input-source').val('yaml').trigger('change');
      return;
    }
    listFromModel(res, list);
    for (const form of list.followups()) form.shown();
    read(JSON.stringify(list.read()));
    enable();
    schedulePreview();
  });
}

/** oneditprepare: the YAML editor, the window list, the source switch (carrying the windows) and the live preview. */
export function prepareDialog(node: ScheduleEditorNode): void {
  const label = (key: string) => node._(`media-spaces-schedule.${key}`);
  let previewTimer: ReturnType<typeof setTimeout> | undefined;
  const yamlEditor = RED.editor.createEditor({ id: 'node-input-yaml-editor', mode: 'yaml', value: node.yaml || '' });
  node.yamlEditor = yamlEditor;
  const schedulePreview = (): void => {
    if (previewTimer) clearTimeout(previewTimer);
    previewTimer = setTimeout(() => {
      previewTimer = undefined;
      const source = $('#node-input-source').val();
      if (source === 'file') return;
      const body: PreviewBody =
        source === 'editor' ? { model: { windows: list.read() } } : { yaml: yamlEditor.getValue() };
      requestPreview(body, (res) => renderPreview(res, label));
    }, PREVIEW_DELAY_MS);
  };
  yamlEditor.getSession().on('change', schedulePreview);
  const shared = followupShared(label);
  const feeds = feedShared(node, label, () => yamlEditor.getValue());
  const list = createWindowList(shared, feeds, schedulePreview);
  node._saveFeeds = () => feeds.secrets.save(list.secrets());
  reloadOnServerChange(list, shared);
  // nothing of this dialog runs on once it is closed: a preview due would read the next dialog's fields
  node._closeDialog = () => {
    if (previewTimer) clearTimeout(previewTimer);
    previewTimer = undefined;
    for (const form of list.followups()) form.stop();
  };
  list.fill(node.windows);

  let currentSource = node.source || 'yaml';
  // the list as it was read from the YAML: unchanged, going back leaves the YAML (and its comments) alone
  let listAsRead: string | undefined;
  $('#node-input-source').on('change', function () {
    const next = String($(this).val());
    if (next === currentSource) return;
    // carry the windows across between the two in-editor forms
    if (currentSource === 'yaml' && next === 'editor') {
      listFromYaml(
        label,
        yamlEditor.getValue(),
        list,
        (asRead) => {
          listAsRead = asRead;
        },
        schedulePreview,
      );
    } else if (currentSource === 'editor' && next === 'yaml') {
      const windows = list.read();
      if (JSON.stringify(windows) !== listAsRead) yamlFromList(label, yamlEditor, windows, schedulePreview);
    }
    currentSource = next;
    showSource(next);
    schedulePreview();
  });
  showSource(currentSource);
  node._readWindows = list.read;
  nodeZoneField(label, schedulePreview);
  $('#node-input-yaml-expand').on('click', () => {
    RED.editor.editText({
      mode: 'yaml',
      value: yamlEditor.getValue(),
      width: 'Infinity',
      complete: (value) => {
        yamlEditor.setValue(value, -1);
        schedulePreview();
      },
    });
  });
  schedulePreview();
}

const server = () => $('#node-input-server').val();

/** The document's `max_channels` (a top-level line of the YAML), for "Test feed" to mark conflicts. */
function maxChannelsOf(yaml: string): number | undefined {
  const n = /^max_channels:\s*(\d+)\s*(#.*)?$/m.exec(yaml)?.[1];
  return n === undefined ? undefined : Number(n);
}

/** What the dialog's feed windows share: the secrets typed, and what "Test feed" sends. */
function feedShared(node: ScheduleEditorNode, label: (key: string) => string, yaml: () => string): FeedShared {
  return {
    secrets: feedSecrets(),
    test: {
      label,
      nodeId: node.id,
      timezone: () => String($('#node-input-timezone').val() ?? '').trim(),
      // the YAML view's text, also while the list is shown (the list holds windows only)
      maxChannels: () => maxChannelsOf(yaml()),
    },
  };
}

/**
 * What the windows' follow-up forms share: submit job's words for the picker, and the workflow
 * pages and declared inputs read through the dialog's server, each read once for every window.
 */
function followupShared(label: (key: string) => string): FollowupShared {
  const submitJob = RED.nodes.getType('media-spaces-submit-job');
  const pages = new Map<string, PromiseLike<WorkflowPage>>();
  return {
    label,
    pickerText: (key, values) => submitJob?._?.(`media-spaces-submit-job.${key}`, values) ?? key,
    server,
    listShown: () => $('#node-input-source').val() === 'editor',
    declared: declaredInputsLoader(server, () => undefined),
    fetchPage(body) {
      const key = JSON.stringify(body);
      const known = pages.get(key);
      if (known) return known;
      const page = postAdmin<WorkflowPage>('workflow-page', body).fail(() => pages.delete(key));
      pages.set(key, page);
      return page;
    },
  };
}

/** The server select fires change while the dialog opens too: only another server, or edited settings, reload. */
function reloadOnServerChange(list: WindowList, shared: FollowupShared): void {
  let loadedFor = JSON.stringify(serverBody(server()));
  $('#node-input-server').on('change', () => {
    const key = JSON.stringify(serverBody(server()));
    if (key === loadedFor) return;
    loadedFor = key;
    shared.declared.forget();
    for (const form of list.followups()) form.reload();
  });
}

/** The node's default zone: flagged when the field is left, with IANA names offered. */
function nodeZoneField(label: (key: string) => string, changed: () => void): void {
  zoneCheck($('#node-input-timezone'), $('#node-input-timezone-error'), label, changed);
}

/**
 * oneditresize: the YAML editor takes the height the other rows leave. The window list takes none: each window's
 * form is shown at its full height and the dialog scrolls (a list box of the height left would cut a form of
 * some 1,200 px into a box of 350).
 */
export function resizeDialog(node: ScheduleEditorNode, size: { height: number }): void {
  // Node-RED gives the tray's body the width its content took when it opened as a min-width: in a window
  // narrower than that (1024 px with the sidebar open) the dialog would scroll sideways and cut every label.
  // The rows take any width from the list's 450 px, so the body follows the tray instead.
  $('#dialog-form').closest('.red-ui-tray-body').css('min-width', '');
  // only rows on screen: jQuery measures a display:none row as if shown, which would take the
  // hidden file row's and file note's height away from the YAML editor
  const rows = $('#dialog-form>div:not(.node-text-editor-row):not(.ms-schedule-editor)').filter(':visible');
  let height = size.height;
  rows.each(function () {
    height -= $(this).outerHeight(true) ?? 0;
  });
  if ($('.ms-schedule-yaml').is(':visible')) {
    $('.node-text-editor-row .node-text-editor').css('height', `${Math.max(200, height - 20)}px`);
    node.yamlEditor?.resize();
  }
}

/** The windows to save: the open list's, else those the node had. */
export function windowsToSave(node: ScheduleEditorNode): unknown[] {
  return node._readWindows ? node._readWindows() : node.windows;
}

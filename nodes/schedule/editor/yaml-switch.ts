import { requestPreview, tooLargeToSwitch } from './preview';
import type { ScheduleEditorNode, WindowModel } from './types';
import { hasComments } from './yaml-comments';

type YamlEditor = NonNullable<ScheduleEditorNode['yamlEditor']>;

/**
 * Switching from the list to YAML writes the list's windows as YAML. The
 * list cannot hold comments, so when the YAML it replaces has some, the user
 * chooses: replace (comments dropped) or keep the YAML as it was. (Keeping
 * comments through the change would need the yaml library's Document API in
 * the browser, over 200 KB of editor script: see the node's help.)
 */
export function yamlFromList(
  label: (key: string) => string,
  yamlEditor: YamlEditor,
  windows: WindowModel[],
  done: () => void,
): void {
  requestPreview({ model: { windows } }, (res) => {
    if (tooLargeToSwitch(res)) RED.notify($('<p>').text(label('preview.tooLargeForYaml')), { type: 'warning' });
    if (typeof res.yaml !== 'string') return done();
    const next = res.yaml;
    const before = yamlEditor.getValue();
    if (!hasComments(before) || before === next) {
      yamlEditor.setValue(next, -1);
      return done();
    }
    const question = $('<div class="ms-schedule-comments-question">').append($('<p>').text(label('tip.comments')));
    const notice = RED.notify(question, {
      modal: true,
      fixed: true,
      type: 'warning',
      buttons: [
        {
          id: 'ms-schedule-comments-keep',
          text: label('comments.keep'),
          click: () => {
            notice?.close();
            done();
          },
        },
        {
          id: 'ms-schedule-comments-replace',
          class: 'primary',
          text: label('comments.replace'),
          click: () => {
            notice?.close();
            yamlEditor.setValue(next, -1);
            done();
          },
        },
      ],
    });
  });
}

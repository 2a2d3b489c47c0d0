import type { InputsFormHost } from '../../shared/editor/inputs-form';

/**
 * The submit-job dialog's form: its values are the Inputs JSON (only while Inputs is JSON). `fromMessage`: what
 * an empty input says when a schedule's follow-up feeds this node (its inputs then come in the message).
 */
export function submitJobForm(fromMessage?: string): InputsFormHost {
  return {
    $form: $('#node-media-spaces-inputs-form'),
    ...(fromMessage !== undefined ? { fromMessage } : {}),
    read() {
      if ($('#node-input-jobInputsType').val() !== 'json') return {};
      const json = String($('#node-input-jobInputs').typedInput('value') ?? '');
      try {
        return json.trim() === '' ? {} : JSON.parse(json);
      } catch {
        return {}; // the Inputs box says what is wrong with its JSON
      }
    },
    write(inputs) {
      $('#node-input-jobInputs').typedInput('type', 'json');
      $('#node-input-jobInputs').typedInput('value', Object.keys(inputs).length > 0 ? JSON.stringify(inputs) : '');
    },
  };
}

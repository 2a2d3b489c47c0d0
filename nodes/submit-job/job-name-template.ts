import { MediaSpacesError } from '../../lib/errors';
import type { NodeAPI, NodeMessage } from '../shared/node-red-types';

const PLACEHOLDER = /\{\{\s*msg\.([^{}]+?)\s*\}\}/g;

/**
 * Fills `{{msg.some.property}}` placeholders of the job-name setting from the
 * message, mustache style: text as is, numbers and booleans as text, objects
 * as JSON, a missing property as nothing. Other text is left alone.
 */
export function renderJobName(RED: NodeAPI, template: string, msg: NodeMessage): string {
  return template.replace(PLACEHOLDER, (_match, path: string) => {
    let value: unknown;
    try {
      value = RED.util.getMessageProperty(msg, path);
    } catch (error) {
      throw MediaSpacesError.invalidInput(
        `job name placeholder {{msg.${path}}} is not a valid property path: ${
          error instanceof Error ? error.message : String(error)
        }`,
        { job_name: 'bad placeholder' },
      );
    }
    if (value === undefined || value === null) return '';
    if (typeof value === 'string') return value;
    if (typeof value === 'number' || typeof value === 'boolean' || typeof value === 'bigint') return String(value);
    try {
      return JSON.stringify(value) ?? '';
    } catch {
      return String(value);
    }
  });
}

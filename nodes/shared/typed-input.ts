import { MediaSpacesError } from '../../lib/errors';
import type { Node, NodeAPI, NodeMessage } from './node-red-types';

/**
 * Reads a typed-input setting (str, msg, flow, global, env, json) for one
 * message. The callback form lets flow/global values come from asynchronous
 * context stores; `json` and bad property paths throw synchronously even with
 * a callback, so both ways of failing end up as one error naming the setting.
 */
export function evaluateSetting(
  RED: NodeAPI,
  node: Node,
  msg: NodeMessage,
  setting: { name: string; label?: string; value: unknown; type: unknown },
): Promise<unknown> {
  const type = typeof setting.type === 'string' && setting.type !== '' ? setting.type : 'str';
  const fail = (reason: unknown) =>
    MediaSpacesError.invalidInput(
      `${setting.label ?? `the ${setting.name} setting`} (${type} "${String(setting.value)}") cannot be read: ${
        reason instanceof Error ? reason.message : String(reason)
      }`,
      { [setting.name]: 'cannot be read' },
    );
  return new Promise((resolve, reject) => {
    try {
      RED.util.evaluateNodeProperty(setting.value, type, node, msg, (err, result) => {
        if (err) reject(fail(err));
        else resolve(result);
      });
    } catch (err) {
      reject(fail(err));
    }
  });
}
